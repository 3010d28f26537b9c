// The CPU emulation of copy.cu: the same block bodies over a grid loop (emulation.h).
#include "backend/cuda/copy_body.cuh"
#include "backend/cuda/emulation.h"
#include "ember/error.h"

namespace ember::cuda::kernels {

void emulate_copy(const CopyLaunch& l) {
  bool ran = false;
  with_type(l.dst, [&](auto d) {
    with_type(l.src, [&](auto s) {
      ran = emulate_grid(l.blocks, 1, l.threads, [&](const HostBlock& b) {
        copy_block<typename decltype(d)::type, typename decltype(s)::type>(b, l);
      });
    });
  });
  EMBER_CHECK(ran, "cuda emulation", "no copy kernel from type ", int(l.src), " to ", int(l.dst),
              " in blocks of ", l.threads, " threads");
}

void emulate_fill(const FillLaunch& l) {
  bool ran = false;
  with_item_bits(l.itemsize, [&](auto u) {
    ran = emulate_grid(l.blocks, 1, l.threads,
                       [&](const HostBlock& b) { fill_block<typename decltype(u)::type>(b, l); });
  });
  EMBER_CHECK(ran, "cuda emulation", "no fill kernel for ", l.itemsize,
              "-byte elements in blocks of ", l.threads, " threads");
}

}  // namespace ember::cuda::kernels
