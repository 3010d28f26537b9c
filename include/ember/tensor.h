// Tensor: a cheap, reference-counted handle to a strided view over shared storage.
// Copying a Tensor shares the data (like Python's `b = a`); clone() copies it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/error.h"
#include "ember/indexing.h"
#include "ember/int_array.h"
#include "ember/scalar.h"
#include "ember/tensor_impl.h"
#include "ember/tensor_options.h"

namespace ember {

class Tensor {
 public:
  /// An undefined tensor (defined() == false), like a default torch::Tensor.
  Tensor() = default;
  explicit Tensor(intrusive_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return bool(impl_); }
  TensorImpl* impl() const { return impl_.get(); }
  const intrusive_ptr<TensorImpl>& impl_ptr() const { return impl_; }
  /// True when both handles point at the same tensor object (Python's `a is b`).
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }

  // ── layout ───────────────────────────────────────────────────────────
  IntArrayRef sizes() const { return impl_->sizes(); }
  IntArrayRef shape() const { return impl_->sizes(); }
  IntArrayRef strides() const { return impl_->strides(); }
  /// Size of dim d (negative d counts from the end).
  int64_t size(int64_t d) const;
  int64_t stride(int64_t d) const;
  int64_t dim() const { return impl_->dim(); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const { return impl_->numel(); }
  int64_t storage_offset() const { return impl_->storage_offset(); }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  Dtype dtype() const { return impl_->dtype(); }
  Dtype scalar_type() const { return impl_->dtype(); }
  Device device() const { return impl_->device(); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_floating_point() const { return ember::is_floating_point(dtype()); }
  int64_t element_size() const { return itemsize(dtype()); }
  int64_t nbytes() const { return numel() * element_size(); }
  const Storage& storage() const { return impl_->storage(); }
  /// Options describing this tensor (dtype, device); used by *_like.
  TensorOptions options() const { return {.dtype = dtype(), .device = device()}; }

  /// Typed pointer to the first element; throws if T does not match dtype().
  template <class T>
  T* data_ptr() const {
    check_data_ptr(dtype_of<std::remove_const_t<T>>());
    return static_cast<T*>(impl_->data());
  }
  void* data_ptr() const { return impl_->data(); }

  /// The value of a one-element tensor.
  Scalar item() const;
  template <class T>
  T item() const {
    return item().to<T>();
  }

  // ── views (share storage and the version counter) ────────────────────
  Tensor view(IntArrayRef sizes) const;
  Tensor view(Dtype dtype) const;
  Tensor reshape(IntArrayRef sizes) const;
  Tensor view_as(const Tensor& other) const { return view(other.sizes()); }
  Tensor reshape_as(const Tensor& other) const { return reshape(other.sizes()); }
  Tensor as_strided(IntArrayRef sizes, IntArrayRef strides,
                    std::optional<int64_t> storage_offset = std::nullopt) const;
  Tensor transpose(int64_t d0, int64_t d1) const;
  Tensor swapaxes(int64_t d0, int64_t d1) const { return transpose(d0, d1); }
  Tensor permute(IntArrayRef dims) const;
  Tensor movedim(int64_t source, int64_t destination) const;
  /// Transpose of a tensor with at most 2 dims (PyTorch's .t()).
  Tensor t() const;
  /// All dims reversed (Python's .T).
  Tensor T() const;
  /// Last two dims swapped (Python's .mT).
  Tensor mT() const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor squeeze(IntArrayRef dims) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t dim, IntArrayRef sizes) const;
  Tensor expand(IntArrayRef sizes) const;
  Tensor expand_as(const Tensor& other) const { return expand(other.sizes()); }
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> stop,
               int64_t step = 1) const;
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Tensor unfold(int64_t dim, int64_t size, int64_t step) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> split(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  /// A new handle on the same data with no autograd history.
  Tensor detach() const;
  Tensor alias() const;

  // ── copies ───────────────────────────────────────────────────────────
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor repeat(IntArrayRef repeats) const;
  Tensor to(Dtype dtype, bool copy = false) const;
  Tensor to(Device device, bool non_blocking = false, bool copy = false) const;
  Tensor to(Device device, Dtype dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(const Tensor& other) const { return to(other.device(), other.dtype()); }
  Tensor cpu() const { return to(Device(kCPU)); }
  Tensor cuda() const { return to(Device(kCUDA)); }
  /// Elements in row-major order as std::vector<T> (converted to T).
  template <class T>
  std::vector<T> tolist() const;

  // ── indexing ─────────────────────────────────────────────────────────
  /// Python's t[...]: integers and slices give views; None adds an axis; Ellipsis fills.
  Tensor index(std::initializer_list<TensorIndex> indices) const;
  Tensor index(const std::vector<TensorIndex>& indices) const;
  Tensor& index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value);
  Tensor& index_put_(std::initializer_list<TensorIndex> indices, Scalar value);
  Tensor& index_put_(const std::vector<TensorIndex>& indices, const Tensor& value);
  Tensor& index_put_(const std::vector<TensorIndex>& indices, Scalar value);

  // ── in place ─────────────────────────────────────────────────────────
  /// Copies src into this tensor (broadcasting src, converting dtype).
  Tensor& copy_(const Tensor& src, bool non_blocking = false);
  Tensor& fill_(Scalar value);
  Tensor& fill_(const Tensor& value);
  Tensor& zero_();

  // ── autograd ─────────────────────────────────────────────────────────
  bool requires_grad() const;
  Tensor& requires_grad_(bool requires_grad = true);
  /// Bumped by every in-place write to this tensor's storage (shared by all views).
  uint32_t _version() const { return impl_->storage()->version(); }

  /// Whole-tensor equality of shape and values (torch.equal).
  bool equal(const Tensor& other) const;

 private:
  void check_data_ptr(Dtype requested) const;

  intrusive_ptr<TensorImpl> impl_;
};

/// Prints like PyTorch's repr: tensor([[1, 2, 3],\n        [4, 5, 6]]).
std::ostream& operator<<(std::ostream& os, const Tensor& t);
/// The repr as a string.
std::string repr(const Tensor& t);

}  // namespace ember
