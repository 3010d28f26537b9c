// The CPU emulation of amp.cu: the same block body over a grid loop (emulation.h).
#include "backend/cuda/amp_body.cuh"
#include "backend/cuda/emulation.h"
#include "ember/error.h"

namespace ember::cuda::kernels {

void emulate_unscale(const UnscaleLaunch& l) {
  bool ran = false;
  with_floating_type(l.type, [&](auto type) {
    ran = emulate_grid(l.blocks, 1, l.threads, [&](const HostBlock& b) {
      unscale_block<typename decltype(type)::type>(b, l);
    });
  });
  EMBER_CHECK(ran, "cuda emulation", "no unscale kernel for type ", int(l.type), " in blocks of ",
              l.threads, " threads");
}

}  // namespace ember::cuda::kernels
