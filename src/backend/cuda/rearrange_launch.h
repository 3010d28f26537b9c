// What the host side (rearrange.cpp) hands the CUDA rearranging kernels (rearrange.cu): flip,
// tril/triu, trace, one_hot, repeat_interleave, searchsorted and unique, as
// backend/rearrange_kernels.h describes their operands. Plain structs, so nvcc compiles no ember
// header.
#pragma once

#include <cstdint>

#include "backend/cuda/elementwise_launch.h"

namespace ember::cuda::kernels {

/// flip: operand 0 (the contiguous output) = operand 1 (self read from its last element along
/// each flipped dim, that dim's stride negated), moved as itemsize-byte words: the strided layout
/// the CPU's flip walks.
struct FlipLaunch : Strided {
  int32_t itemsize;  // 1, 2, 4 or 8
};

/// tril/triu: a thread per element of (rows, cols) matrices stacked in `numel`; kept are
/// j - i <= k (lower) or j - i >= k (upper), the rest zero bits.
struct TriangleLaunch {
  int32_t itemsize;  // 1, 2, 4 or 8
  int32_t lower;
  int64_t k;
  int64_t rows, cols, numel;
  const char* src;
  char* dst;
  uint32_t blocks, threads;  // a grid-stride loop over the elements
};

/// trace: one block sums the n diagonal elements, `step` elements apart, in the CPU kernel's
/// accumulator (double for float32/float64, float for the half types, int64 for the integers):
/// thread t the elements t, t + threads, ..., then block_reduce's tree. `out` is int64 for the
/// integers, else self's type.
struct TraceLaunch {
  Type type;  // float32, float64, float16, bfloat16, int32 or int64
  int64_t n, step;
  const char* self;
  char* out;
  uint32_t blocks, threads;  // one block
};

/// One block reduces the n int64 of x to stats = {min, max, sum} (n >= 1): what one_hot and
/// repeat_interleave read back to check the values and size their results.
struct IntStatsLaunch {
  int64_t n;
  const int64_t* x;
  int64_t* stats;
  uint32_t blocks, threads;  // one block
};

/// one_hot: out (n, classes), zeroed, gets a 1 at (i, x[i]) for each i (x checked in range).
struct OneHotLaunch {
  int64_t n, classes;
  const int64_t* x;
  int64_t* out;
  uint32_t blocks, threads;  // a grid-stride loop over x
};

/// repeat_interleave: out[j] = the i whose run [ends[i - 1], ends[i]) holds j, for j < total;
/// ends the inclusive scan of the n repeats (a binary search per output).
struct RepeatLaunch {
  int64_t n, total;
  const int64_t* ends;
  int64_t* out;
  uint32_t blocks, threads;  // a grid-stride loop over out
};

/// searchsorted: out[i] = the first position of value i's row of boundaries (m long; the one
/// row when per_row is 0, else row i / per_row) whose boundary is >= (left) or > (right) the
/// value, read through sorter when not null; the CPU kernel's binary search and comparisons.
struct SearchsortedLaunch {
  Type type;  // float32, float64, float16, bfloat16, int32 or int64
  int32_t right;
  int64_t n, m, per_row;
  const char* boundaries;
  const char* values;
  const int64_t* sorter;
  int64_t* out;
  uint32_t blocks, threads;  // a grid-stride loop over the values
};

/// unique, over the elements or along a dim (rows). Elements: self sorted stably first into
/// `sorted` and `order` (sort.cu: NaN last, equal values in their order in self, as the CPU's
/// stable_sort). Rows: x (n, row) contiguous, and `sort_rows` sorts the permutation `order` of
/// its rows in one block (the bitonic network of sort_body.cuh), rows compared lexicographically
/// as the CPU's group_rows compares them, ties by row index (so the CPU's stable order). Then, a
/// thread per sorted position, `mark` flags the first of each group (elements: !(a == b), so
/// every NaN its own group; rows: the lexicographic compare), a scan of the flags numbers the
/// groups (ids), `write` gives each group its first sorted position, its value (elements:
/// self's element) or first row (rows), and each element or row its group (inverse, when not
/// null); `count`, a thread per group, the group sizes.
struct UniqueLaunch {
  enum Phase : int32_t { sort_rows, mark, write, count } phase;
  Type type;     // float32, float64, float16, bfloat16, int32, int64 (bool: rows only)
  int32_t rows;  // 1: along a dim (self is x (n, row)); 0: over the elements
  int64_t n, row, groups;
  const char* self;
  const char* sorted;        // elements: self sorted (n)
  int64_t* order;            // the sorted position's element or row (n)
  int64_t* starts;           // mark's flags (n), 1 at a group's first sorted position
  const int64_t* ids;        // the inclusive scan of starts (n): group + 1
  char* values;              // elements: (groups) the values
  int64_t* first;            // rows: (groups) each group's first row
  int64_t* inverse;          // (n), or null
  int64_t* firsts;           // (groups) each group's first sorted position
  int64_t* counts;           // (groups), or null
  uint32_t blocks, threads;  // sort_rows: one block; else a grid-stride loop
};

/// Queue the kernel on `stream` (a cudaStream_t); return the launch's cudaError_t.
int launch_flip(const FlipLaunch& launch, void* stream);
int launch_triangle(const TriangleLaunch& launch, void* stream);
int launch_trace(const TraceLaunch& launch, void* stream);
int launch_int_stats(const IntStatsLaunch& launch, void* stream);
int launch_one_hot(const OneHotLaunch& launch, void* stream);
int launch_repeat(const RepeatLaunch& launch, void* stream);
int launch_searchsorted(const SearchsortedLaunch& launch, void* stream);
int launch_unique(const UniqueLaunch& launch, void* stream);

}  // namespace ember::cuda::kernels
