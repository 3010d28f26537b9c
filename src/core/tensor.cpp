// Tensor handle methods that only read the descriptor: item, data_ptr checks, the inference
// flag. (The autograd flags are autograd/tensor_autograd.cpp's, size(dim) is view.cpp's.)
#include "ember/tensor.h"

#include "core/convert.h"
#include "core/dispatch.h"

namespace ember {

void Tensor::undefined_error(const char* op) {
  fail(op, "called on an undefined tensor");
}

void Tensor::check_data_ptr(Dtype requested) const {
  EMBER_CHECK(defined(), "data_ptr", "called on an undefined tensor");
  EMBER_CHECK(requested == dtype(), "data_ptr", "expected a pointer type matching the tensor's ",
              "dtype ", dtype(), " but got ", requested);
  // data_ptr<T>() is host access; a backend reaches device memory through TensorImpl::data().
  if (!is_cpu()) [[unlikely]]
    host_access_error();
}

void Tensor::host_access_error() const {
  fail("data_ptr", "host access to the elements of a tensor on ", device(),
       " (copy it with .cpu() first)");
}

Scalar Tensor::item() const {
  EMBER_CHECK(defined(), "item", "called on an undefined tensor");
  EMBER_CHECK(numel() == 1, "item", "a Tensor with ", numel(),
              " elements cannot be converted to Scalar");
  EMBER_CHECK(is_cpu(), "item", "expected a CPU tensor, got one on ", device(),
              " (copy it with .cpu() first)");
  return dispatch(dtype(), "item", [&]<class T>() -> Scalar {
    const T v = *static_cast<const T*>(impl_->data());
    if constexpr (is_half_v<T>) return Scalar(float(v));
    else return Scalar(v);
  });
}

bool Tensor::is_inference() const { return impl_->is_inference(); }

TensorIndex::TensorIndex(const Tensor& t) : kind_(Kind::Tensor), tensor_(t.impl_ptr()) {}

Tensor TensorIndex::tensor() const { return Tensor(tensor_); }

}  // namespace ember
