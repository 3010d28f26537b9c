// The CPU emulation of reduce.cu: the same block bodies and passes over grid loops (emulation.h).
#include "backend/cuda/emulation.h"
#include "backend/cuda/reduce_body.cuh"
#include "ember/error.h"

namespace ember::cuda::kernels {

void emulate_reduce(const ReduceLaunch& l) {
  EMBER_CHECK(l.splits <= 1 || l.partial, "cuda emulation", "a reduction in ", l.splits,
              " splits needs its partial buffer");
  bool ran = false;
  with_reduction(l, [&](auto type, auto acc, auto r) {
    using S = typename decltype(type)::type;
    using Acc = typename decltype(acc)::type;
    ran = emulate_grid(l.blocks, l.splits, l.threads,
                       [&](const HostBlock& b) { reduce_block<S, Acc>(b, r, l); });
    if (ran && l.splits > 1)
      ran = emulate_grid(combine_blocks(l), 1, l.threads,
                         [&](const HostBlock& b) { combine_block<S, Acc>(b, r, l); });
  });
  EMBER_CHECK(ran, "cuda emulation", "no reduction kernel for op ", int(l.op), " on type ",
              int(l.type), " in blocks of ", l.threads, " threads");
}

}  // namespace ember::cuda::kernels
