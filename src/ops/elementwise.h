// The front end shared by every elementwise op (PyTorch's TensorIterator, kept small):
// type promotion, broadcasting, output allocation or in-place/out= checks, then the kernel that
// the operands' device maps the op's kernel identity to (src/backend/backend.h).
//
//   Tensor add(a, b, alpha):
//     return elementwise("add", ElementwiseKernel::add, Promote::Default, {a, b},
//                        {.scalar = {alpha}});
//
// The kernels themselves live in each backend (the CPU's in src/backend/cpu/<family>.cpp); the
// dtypes an op supports are its kernels' (`[op] not implemented for dtype ...`).
#pragma once

#include <array>
#include <initializer_list>
#include <span>
#include <vector>

#include "backend/backend.h"
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
  backend::ElementwiseFn kernel;  // the op's kernel on the operands' device
  Tensor out;                 // what the kernel writes (dtype = compute, or bool for ToBool/Bool)
  std::vector<Tensor> in;     // inputs in the compute dtype, expanded to out's shape
  Dtype compute;
  Tensor result;              // what the op returns (the in-place/out tensor when given)
};

/// Checks, promotes, broadcasts, picks the kernel and allocates. `target`, when given, is the
/// tensor written in place (self for `add_`, or an out= tensor when `is_out`).
ElementwisePlan plan_elementwise(const char* op, backend::ElementwiseKernel kernel,
                                 std::span<const Operand> operands, Promote mode,
                                 const Tensor* target, bool is_out = false);
/// Copies the kernel's output into the result when they differ, and bumps versions.
void finish_elementwise(ElementwisePlan& plan, const Tensor* target);

/// Runs kernel `kernel` of the operands' device on the plan (the op's one indirect call) and
/// returns the result.
Tensor elementwise(const char* op, backend::ElementwiseKernel kernel, Promote mode,
                   std::initializer_list<Operand> operands, const backend::ElementwiseArgs& args = {},
                   const Tensor* target = nullptr, bool is_out = false);

}  // namespace ember
