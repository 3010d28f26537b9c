// The CUDA advanced indexing's offsets (index_launch.h, Note [CUDA advanced indexing] step 1),
// for the device (index.cu) and the CPU emulation (index_emulation.cpp) alike. Step 2 is the
// gather family's body (gather_body.cuh).
#pragma once

#include <cstdint>

#include "backend/cuda/block.cuh"
#include "backend/cuda/index_launch.h"

namespace ember::cuda::kernels {

struct IndexOffsetsBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const IndexOffsetsLaunch& l) {
    grid_stride(b, l.count, [&](int64_t j) {
      int64_t offset = 0;
      for (int32_t k = 0; k < l.m; ++k) {
        int64_t i = l.indices[k][j];
        if (i < -l.sizes[k] || i >= l.sizes[k]) {
          record_bad_index(l.bad + 2 * k, i);
          continue;  // the host raises before anything reads the offset
        }
        if (i < 0) i += l.sizes[k];
        offset += i * l.strides[k];
      }
      l.offsets[j] = offset;
    });
  }
};

/// The body of l (launch.cuh).
template <class F>
bool with_body(const IndexOffsetsLaunch&, F&& f) {
  f(Tag<IndexOffsetsBody>{});
  return true;
}

}  // namespace ember::cuda::kernels
