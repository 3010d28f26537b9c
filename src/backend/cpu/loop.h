// The shared strided loop (PyTorch's TensorIterator idea, kept small).
//
// N operands (operand 0 is the output) share one iteration shape; each has its own strides in
// bytes (0 for a broadcast dim). plan() drops size-1 dims, orders dims so the output's smallest
// stride is innermost, and merges dims that are contiguous in every operand; run() walks the
// result, calling `inner(ptrs, strides, n)` on 1-D runs, in parallel above a grain size.
// Kernels only ever see this 1-D view, so each one is a few lines (see Note [Inner loops]).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>

#include "backend/cpu/parallel.h"
#include "ember/int_array.h"

namespace ember::cpu {

template <int N>
struct LoopPlan {
  DimVector shape;                   // outermost first; may be empty (a single element)
  std::array<DimVector, N> strides;  // bytes, same order as shape
  std::array<char*, N> base;
  int64_t numel = 1;
};

template <int N>
LoopPlan<N> plan_loop(IntArrayRef shape, const std::array<char*, N>& base,
                      const std::array<IntArrayRef, N>& byte_strides) {
  LoopPlan<N> p;
  p.base = base;
  const int64_t ndim = int64_t(shape.size());
  for (int64_t s : shape) p.numel *= s;
  // Keep dims of size != 1, ordered by the output's stride (largest first); ties keep order.
  DimVector order;
  for (int64_t d = 0; d < ndim; ++d)
    if (shape[d] != 1) order.push_back(d);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    for (int k = 0; k < N; ++k) {
      const int64_t sa = std::abs(byte_strides[k][a]), sb = std::abs(byte_strides[k][b]);
      if (sa == 0 || sb == 0) continue;  // a broadcast stride says nothing about order
      if (sa != sb) return sa > sb;
      // equal strides in this operand: let the next operand decide
    }
    return false;
  });
  // Merge neighbours that are contiguous in every operand.
  for (int64_t d : order) {
    const int64_t size = shape[d];
    if (!p.shape.empty()) {
      bool mergeable = true;
      for (int k = 0; k < N; ++k)
        mergeable &= p.strides[k].back() == byte_strides[k][d] * size;
      if (mergeable) {
        p.shape.back() *= size;
        for (int k = 0; k < N; ++k) p.strides[k].back() = byte_strides[k][d];
        continue;
      }
    }
    p.shape.push_back(size);
    for (int k = 0; k < N; ++k) p.strides[k].push_back(byte_strides[k][d]);
  }
  return p;
}

/// Runs inner(std::array<char*, N>& ptrs, const std::array<int64_t, N>& strides, int64_t n)
/// over elements [begin, end) of the plan's row-major order.
template <int N, class F>
void run_range(const LoopPlan<N>& p, int64_t begin, int64_t end, const F& inner) {
  const int64_t nd = int64_t(p.shape.size());
  std::array<char*, N> ptrs = p.base;
  std::array<int64_t, N> inner_strides{};
  if (nd == 0) {
    if (begin < end) inner(ptrs, inner_strides, 1);
    return;
  }
  for (int k = 0; k < N; ++k) inner_strides[k] = p.strides[k][nd - 1];
  const int64_t inner_size = p.shape[nd - 1];
  // Coordinates of `begin`.
  DimVector coord(nd);
  int64_t rest = begin;
  for (int64_t d = nd - 1; d >= 0; --d) {
    coord[d] = rest % p.shape[d];
    rest /= p.shape[d];
  }
  for (int k = 0; k < N; ++k)
    for (int64_t d = 0; d < nd; ++d) ptrs[k] += coord[d] * p.strides[k][d];
  int64_t i = begin;
  while (i < end) {
    const int64_t n = std::min(inner_size - coord[nd - 1], end - i);
    inner(ptrs, inner_strides, n);
    i += n;
    if (i >= end) break;
    // Advance to the start of the next row, carrying into outer dims.
    for (int k = 0; k < N; ++k) ptrs[k] += (n - 0) * inner_strides[k];
    coord[nd - 1] += n;
    for (int64_t d = nd - 1; d > 0 && coord[d] == p.shape[d]; --d) {
      for (int k = 0; k < N; ++k) ptrs[k] += p.strides[k][d - 1] - p.shape[d] * p.strides[k][d];
      coord[d] = 0;
      ++coord[d - 1];
    }
  }
}

template <int N, class F>
void run_loop(const LoopPlan<N>& p, const F& inner, int64_t grain = kGrainSize) {
  if (p.numel == 0) return;
  parallel_for(0, p.numel, grain, [&](int64_t b, int64_t e) { run_range(p, b, e, inner); });
}

/// Byte strides of a tensor's element strides.
inline DimVector byte_strides(IntArrayRef strides, int64_t itemsize) {
  DimVector s(strides.size());
  for (size_t i = 0; i < strides.size(); ++i) s[i] = strides[i] * itemsize;
  return s;
}

}  // namespace ember::cpu
