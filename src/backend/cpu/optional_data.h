// The elements of a kernel's optional tensor argument (a bias, an affine weight, an optimizer's
// momentum buffer): null when the tensor is undefined, which the kernels test for.
#pragma once

#include "backend/cpu/level.h"
#include "ember/tensor.h"

namespace EMBER_CPU_NS {

/// t's elements as T (checked against t's dtype), or null for an undefined tensor.
template <class T>
T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data_ptr<T>() : nullptr;
}

}  // namespace EMBER_CPU_NS
