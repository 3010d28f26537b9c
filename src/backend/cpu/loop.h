// The shared strided loop (PyTorch's TensorIterator idea, kept small).
//
// N operands (operand 0 is the output) share one iteration shape; each has its own strides in
// bytes (0 for a broadcast dim). plan() drops size-1 dims, orders dims so the output's smallest
// stride is innermost, and merges dims that are contiguous in every operand; run() walks the
// result, calling `inner(ptrs, strides, n)` on 1-D runs, in parallel above a grain size.
// Kernels only ever see this 1-D view, so each one is a few lines (see Note [Inner loops]).
#pragma once

#include <array>
#include <cstdint>

#include "core/parallel.h"
#include "ember/int_array.h"

namespace ember {
class Tensor;
}

namespace ember::cpu {

template <int N>
struct LoopPlan {
  DimVector shape;                   // outermost first; may be empty (a single element)
  std::array<DimVector, N> strides;  // bytes, same order as shape
  std::array<char*, N> base;
  int64_t numel = 1;
};

/// The plan of `shape` for N operands (defined in loop.cpp for N = 1..4).
template <int N>
LoopPlan<N> plan_loop(IntArrayRef shape, const std::array<char*, N>& base,
                      const std::array<IntArrayRef, N>& byte_strides);

/// The plan of N tensors (operand 0 the output) over `shape`: each tensor's own strides, in bytes
/// of its element size.
template <int N>
LoopPlan<N> plan_tensors(IntArrayRef shape, const std::array<const Tensor*, N>& ops);

/// A kernel's row function: `ctx` is the kernel's state (its functor), called on each 1-D run.
template <int N>
using RowFn = void (*)(const void* ctx, std::array<char*, N>& ptrs,
                       const std::array<int64_t, N>& strides, int64_t n);

/// Walks the plan (in parallel above `grain` elements), calling row(ctx, ...) on each 1-D run.
/// Note [One loop per arity]: the walk over outer dims and the OpenMP region are compiled once
/// per N in loop.cpp, not once per kernel; a kernel's own code is only its row function, where
/// the functor is inlined into the contiguous, broadcast and strided inner loops. The price is
/// one indirect call per row, nothing next to a row's work.
template <int N>
void run_rows(const LoopPlan<N>& p, RowFn<N> row, const void* ctx, int64_t grain);

/// Runs inner(std::array<char*, N>& ptrs, const std::array<int64_t, N>& strides, int64_t n)
/// on every 1-D run of the plan.
template <int N, class F>
void run_loop(const LoopPlan<N>& p, const F& inner, int64_t grain = kGrainSize) {
  run_rows<N>(
      p,
      [](const void* ctx, std::array<char*, N>& ptrs, const std::array<int64_t, N>& s,
         int64_t n) { (*static_cast<const F*>(ctx))(ptrs, s, n); },
      &inner, grain);
}

/// Byte strides of a tensor's element strides.
inline DimVector byte_strides(IntArrayRef strides, int64_t itemsize) {
  DimVector s(strides.size());
  for (size_t i = 0; i < strides.size(); ++i) s[i] = strides[i] * itemsize;
  return s;
}

}  // namespace ember::cpu
