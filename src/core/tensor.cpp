// Tensor handle methods that only read the descriptor: sizes by dim, item, data_ptr checks,
// autograd flags.
#include "ember/tensor.h"
#include "ember/autograd.h"

#include "autograd/autograd_meta.h"
#include "core/convert.h"
#include "core/dispatch.h"
#include "ember/shape.h"

namespace ember {

// wrap_dim lets a 0-d tensor take dim 0 or -1 (as reductions do), but it has no size to read.
int64_t Tensor::size(int64_t d) const {
  EMBER_CHECK(dim() > 0, "size", "dimension specified as ", d, " but tensor has no dimensions");
  return sizes()[wrap_dim(d, dim(), "size")];
}

int64_t Tensor::stride(int64_t d) const {
  EMBER_CHECK(dim() > 0, "stride", "dimension specified as ", d, " but tensor has no dimensions");
  return strides()[wrap_dim(d, dim(), "stride")];
}

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

bool Tensor::requires_grad() const {
  autograd::refresh_view_history(*this);
  const AutogradMeta* meta = impl_->autograd();
  return meta && (meta->requires_grad || meta->grad_fn);
}

bool Tensor::is_inference() const { return impl_->is_inference(); }

Tensor& Tensor::requires_grad_(bool requires_grad) {
  EMBER_CHECK(!(requires_grad && is_inference() && !is_inference_mode_enabled()), "requires_grad_",
              "Setting requires_grad=True on inference tensor outside InferenceMode is not "
              "allowed.");
  EMBER_CHECK(!requires_grad || is_floating_point(), "requires_grad_",
              "only Tensors of floating point dtype can require gradients, got ", dtype());
  EMBER_CHECK(requires_grad || is_leaf(), "requires_grad_",
              "you can only change requires_grad flags of leaf variables. If you want to use a "
              "computed variable in a subgraph that doesn't require differentiation use "
              "var_no_grad = var.detach().");
  if (requires_grad || impl_->autograd()) impl_->autograd_mut().requires_grad = requires_grad;
  return *this;
}

const Tensor& Tensor::set_requires_grad(bool requires_grad) const {
  if (is_leaf()) const_cast<Tensor&>(*this).requires_grad_(requires_grad);
  return *this;
}

TensorIndex::TensorIndex(const Tensor& t) : kind_(Kind::Tensor), tensor_(t.impl_ptr()) {}

Tensor TensorIndex::tensor() const { return Tensor(tensor_); }

}  // namespace ember
