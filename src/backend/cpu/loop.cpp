// The shared strided loop's planning and walk (backend/cpu/loop.h), compiled once per operand
// count (Note [One loop per arity] in loop.h).
#include "backend/cpu/loop.h"

#include <algorithm>
#include <cstdlib>

#include "ember/tensor.h"

namespace ember::cpu {

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
template <int N>
LoopPlan<N> plan_tensors(IntArrayRef shape, const std::array<const Tensor*, N>& ops) {
  std::array<char*, N> base;
  std::array<DimVector, N> strides;
  std::array<IntArrayRef, N> refs;
  for (int k = 0; k < N; ++k) {
    base[k] = static_cast<char*>(ops[k]->data_ptr());
    strides[k] = byte_strides(ops[k]->strides(), ops[k]->element_size());
    refs[k] = strides[k];
  }
  return plan_loop<N>(shape, base, refs);
}

namespace {

template <int N>
void run_range(const LoopPlan<N>& p, int64_t begin, int64_t end, RowFn<N> row,
               const void* ctx) {
  const int64_t nd = int64_t(p.shape.size());
  std::array<char*, N> ptrs = p.base;
  std::array<int64_t, N> inner_strides{};
  if (nd == 0) {
    if (begin < end) row(ctx, ptrs, inner_strides, 1);
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
    row(ctx, ptrs, inner_strides, n);
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

}  // namespace

template <int N>
void run_rows(const LoopPlan<N>& p, RowFn<N> row, const void* ctx, int64_t grain) {
  if (p.numel == 0) return;
  parallel_for(0, p.numel, grain, [&](int64_t b, int64_t e) { run_range<N>(p, b, e, row, ctx); });
}

// The operand counts of the kernels: fill (1), copy and unary ops (2), binary ops and gather (3),
// ternary ops (4).
#define EMBER_LOOP_INSTANTIATE(N)                                                            \
  template LoopPlan<N> plan_loop<N>(IntArrayRef, const std::array<char*, N>&,                \
                                    const std::array<IntArrayRef, N>&);                      \
  template LoopPlan<N> plan_tensors<N>(IntArrayRef, const std::array<const Tensor*, N>&);    \
  template void run_rows<N>(const LoopPlan<N>&, RowFn<N>, const void*, int64_t);
EMBER_LOOP_INSTANTIATE(1)
EMBER_LOOP_INSTANTIATE(2)
EMBER_LOOP_INSTANTIATE(3)
EMBER_LOOP_INSTANTIATE(4)
#undef EMBER_LOOP_INSTANTIATE

}  // namespace ember::cpu
