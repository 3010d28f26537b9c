// What the host side (renorm.cpp) hands the CUDA embedding_renorm kernel (renorm.cu): a weight
// table (num, D), contiguous, and the int64 indices of the rows to renormalise. A plain struct,
// so nvcc compiles no ember header.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

/// torch.embedding_renorm_ in two passes over the n index entries, a block per entry (grid-
/// stride over blocks):
///   - own: owner[r] = j for entry j holding row r; of repeated entries one write lands, any
///     one (the rows are independent, so which one does not matter); an entry outside
///     [0, num) is recorded in `bad` (block.cuh's record_bad_index) and skipped;
///   - renorm: the block of the entry that owns its row computes the row's norm_type norm in
///     opmath over the block's threads (block_reduce's tree) and, when it exceeds max_norm,
///     scales the row by max_norm / (norm + 1e-7) in place, as the CPU kernel. Each distinct row
///     is renormalised once, by one block, and no two blocks touch one row.
struct RenormLaunch {
  enum Pass : int32_t { own, renorm } pass;
  Type type;  // float32, float64, float16 or bfloat16
  int64_t num, D, n;
  const int64_t* indices;  // n entries
  int64_t* owner;          // num entries; only those at valid indices are written and read
  int64_t* bad;
  char* weight;
  double max_norm, norm_type;
  uint32_t blocks, threads;
};

/// Queue the kernel on `stream` (a cudaStream_t); return the launch's cudaError_t.
int launch_renorm(const RenormLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
