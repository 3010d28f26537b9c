// The CUDA multinomial sampling: multinomial_body.cuh's bodies, one kernel per dtype each.
#include "backend/cuda/launch.cuh"
#include "backend/cuda/multinomial_body.cuh"

namespace ember::cuda::kernels {

int launch_renorm_rows(const RenormRowsLaunch& l, void* stream) { return launch_grid(l, stream); }
int launch_multinomial(const MultinomialLaunch& l, void* stream) { return launch_grid(l, stream); }

}  // namespace ember::cuda::kernels
