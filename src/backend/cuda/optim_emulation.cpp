// The CPU emulation of optim.cu: the same block body over a grid loop (emulation.h).
#include "backend/cuda/emulation.h"
#include "backend/cuda/optim_body.cuh"
#include "ember/error.h"

namespace ember::cuda::kernels {

void emulate_optim(const OptimLaunch& l) {
  bool ran = false;
  with_optim_type(l, [&](auto type) {
    ran = emulate_grid(l.blocks, 1, l.threads, [&](const HostBlock& b) {
      optim_block<typename decltype(type)::type>(b, l);
    });
  });
  EMBER_CHECK(ran, "cuda emulation", "no optimizer kernel for type ", int(l.type), " in blocks of ",
              l.threads, " threads");
}

}  // namespace ember::cuda::kernels
