// PyTorch's result_type: the dtype an op computes in, given tensors and Python-style scalars.
// Dimensioned tensors outrank 0-d tensors, which outrank scalars, but only within a category
// (bool < integer < floating): tensor(int32) + 2.5 -> float32, tensor(int8) + 1000 -> int8,
// tensor(float16) + tensor(2.0, float64) (0-d) -> float16.
#pragma once

#include <vector>

#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember {

/// One operand of result_type: a tensor or a scalar.
class Operand {
 public:
  Operand(const Tensor& t) : tensor_(&t) {}   // NOLINT
  Operand(Scalar s) : scalar_(s) {}           // NOLINT
  template <class T>
    requires std::is_arithmetic_v<T>
  Operand(T v) : scalar_(v) {}                // NOLINT
  const Tensor* tensor() const { return tensor_; }
  Scalar scalar() const { return scalar_; }

 private:
  const Tensor* tensor_ = nullptr;
  Scalar scalar_;
};

Dtype result_type(const std::vector<Operand>& operands);
Dtype result_type(const Tensor& a, const Tensor& b);
Dtype result_type(const Tensor& a, Scalar b);
Dtype result_type(Scalar a, const Tensor& b);

}  // namespace ember
