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

/// Checks, promotes, broadcasts, allocates, runs kernel `kernel` of the operands' device (the op's
/// one indirect call) and returns the result. `target`, when given, is the tensor written: self
/// for `add_`, or a result the op allocated itself (pow(Scalar, Tensor)'s row-major one).
Tensor elementwise(const char* op, backend::ElementwiseKernel kernel, Promote mode,
                   std::initializer_list<Operand> operands, const backend::ElementwiseArgs& args = {},
                   const Tensor* target = nullptr);

}  // namespace ember
