// The CUDA gather-family kernels: gather_body.cuh's block bodies, one instantiation per element
// size for the moves and per floating type for scatter_add.
#include "backend/cuda/gather_body.cuh"
#include "backend/cuda/launch.cuh"

namespace ember::cuda::kernels {

int launch_gather(const GatherLaunch& l, void* stream) { return launch_grid(l, stream); }
int launch_select(const SelectLaunch& l, void* stream) { return launch_grid(l, stream); }
int launch_check_index(const CheckIndexLaunch& l, void* stream) { return launch_grid(l, stream); }

}  // namespace ember::cuda::kernels
