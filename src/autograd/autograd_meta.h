// The autograd slot of a TensorImpl: allocated only for tensors that take part in autograd.
#pragma once

#include "ember/tensor.h"

namespace ember {

struct AutogradMeta {
  bool requires_grad = false;
  Tensor grad;  // accumulated gradient of a leaf
};

}  // namespace ember
