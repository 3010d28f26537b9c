// The front end shared by every elementwise op (PyTorch's TensorIterator, kept small):
// type promotion, broadcasting, output allocation or in-place/out= checks, then the CPU kernel.
//
//   Tensor add(a, b, alpha):
//     return elementwise<Promote::Default, DtypeSet::Numeric>("add", {a, b},
//         [&]<class T>() { T s = alpha.to<T>(); return [s](auto x, auto y) { return x + s * y; }; });
//
// `make` is called with the compute type T (float for half types) and returns the functor the
// kernel runs (Note [Inner loops] in backend/cpu/vec.h).
#pragma once

#include <array>
#include <initializer_list>
#include <vector>

#include "backend/cpu/elementwise.h"
#include "core/dispatch.h"
#include "ember/promotion.h"
#include "ember/tensor.h"

namespace ember {

enum class Promote {
  Default,     // compute and return result_type(inputs)
  IntToFloat,  // like Default, but integer/bool results become the default float (sqrt, div)
  ToBool,      // compute in result_type(inputs), return bool (comparisons, isnan)
  Bool,        // compute in bool, return bool (logical_and, ...)
};

struct ElementwisePlan {
  Tensor out;                 // what the kernel writes (dtype = compute, or bool for ToBool/Bool)
  std::vector<Tensor> in;     // inputs in the compute dtype, expanded to out's shape
  Dtype compute;
  Tensor result;              // what the op returns (the in-place/out tensor when given)
};

/// Checks, promotes, broadcasts and allocates. `target`, when given, is the tensor written in
/// place (self for `add_`, or an out= tensor when `is_out`).
ElementwisePlan plan_elementwise(const char* op, const std::vector<Operand>& operands,
                                 Promote mode, const Tensor* target, bool is_out = false);
/// Copies the kernel's output into the result when they differ, and bumps versions.
void finish_elementwise(ElementwisePlan& plan, const Tensor* target);

template <Promote P, DtypeSet S, size_t N, class Make>
Tensor elementwise(const char* op, const Operand (&operands)[N], const Make& make,
                   const Tensor* target = nullptr, bool is_out = false) {
  ElementwisePlan plan =
      plan_elementwise(op, std::vector<Operand>(operands, operands + N), P, target, is_out);
  dispatch<S>(plan.compute, op, [&]<class T>() {
    const auto f = make.template operator()<compute_t<T>>();
    using Out = std::conditional_t<P == Promote::ToBool || P == Promote::Bool, bool, T>;
    [&]<size_t... K>(std::index_sequence<K...>) {
      cpu::map_kernel<Out, T, int(N)>(plan.out, std::array<const Tensor*, N>{&plan.in[K]...}, f);
    }(std::make_index_sequence<N>{});
  });
  finish_elementwise(plan, target);
  return plan.result;
}

}  // namespace ember
