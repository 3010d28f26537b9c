// The CPU emulation of softmax.cu: the same block body over a grid loop (emulation.h).
#include "backend/cuda/emulation.h"
#include "backend/cuda/softmax_body.cuh"
#include "ember/error.h"

namespace ember::cuda::kernels {

void emulate_softmax(const SoftmaxLaunch& l) {
  bool ran = false;
  with_softmax_type(l, [&](auto type) {
    ran = emulate_grid(l.blocks, 1, l.threads, [&](const HostBlock& b) {
      softmax_block<typename decltype(type)::type>(b, l);
    });
  });
  EMBER_CHECK(ran, "cuda emulation", "no softmax kernel for type ", int(l.type), " in blocks of ",
              l.threads, " threads");
}

}  // namespace ember::cuda::kernels
