// The CPU emulation of elementwise.cu: the same block body over a grid loop (emulation.h).
#include "backend/cuda/elementwise_body.cuh"
#include "backend/cuda/emulation.h"
#include "ember/error.h"

namespace ember::cuda::kernels {

void emulate_elementwise(const Launch& l) {
  bool ran = false;
  with_floating_type(l.type, [&](auto type) {
    with_op(l.op, [&](auto f, auto arity) {
      using S = typename decltype(type)::type;
      ran = emulate_grid(l.blocks, 1, l.threads, [&](const HostBlock& b) {
        map_block<S, decltype(arity)::value>(b, f, l);
      });
    });
  });
  EMBER_CHECK(ran, "cuda emulation", "no elementwise kernel for op ", int(l.op), " on type ",
              int(l.type), " in blocks of ", l.threads, " threads");
}

}  // namespace ember::cuda::kernels
