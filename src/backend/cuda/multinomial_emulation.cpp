// The CPU emulation of multinomial.cu: the same block bodies over a grid loop (launch.cuh).
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"
#include "backend/cuda/multinomial_body.cuh"

namespace ember::cuda::kernels {

void emulate_renorm_rows(const RenormRowsLaunch& l) { emulate_launch(l, "renorm_rows"); }
void emulate_multinomial(const MultinomialLaunch& l) { emulate_launch(l, "multinomial"); }

}  // namespace ember::cuda::kernels
