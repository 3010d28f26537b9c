// TensorImplMutators: the one door to TensorImpl's mutators (private in the public header), for
// the layers that maintain a tensor's invariants: in-place views and set_ (ops), view tracking
// and autograd metadata (autograd), `t.data = other` (nn, FSDP's flat parameters, Python).
// A user's Tensor::impl() reaches only TensorImpl's reads.
#pragma once

#include "ember/tensor_impl.h"

namespace ember {

class TensorImplMutators {
 public:
  static void set_layout(TensorImpl& t, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
    t.set_layout(sizes, strides, offset);
  }
  /// Re-points t at `from`'s storage, dtype and layout, keeping t's identity and autograd state
  /// (PyTorch's `t.data = from`).
  static void set_data(TensorImpl& t, const TensorImpl& from) {
    t.set_data(from.storage(), from.dtype(), from.sizes(), from.strides(), from.storage_offset());
  }
  static void set_data(TensorImpl& t, Storage storage, Dtype dtype, IntArrayRef sizes,
                       IntArrayRef strides, int64_t offset) {
    t.set_data(std::move(storage), dtype, sizes, strides, offset);
  }
  static void set_view_base(TensorImpl& t, intrusive_ptr<TensorImpl> base) {
    t.set_view_base(std::move(base));
  }
  static void mark_view_history_current(TensorImpl& t) { t.mark_view_history_current(); }
  static void mark_view_made_without_grad(TensorImpl& t) { t.mark_view_made_without_grad(); }
  /// t's autograd metadata, created on first use.
  static AutogradMeta& autograd_mut(TensorImpl& t) { return t.autograd_mut(); }
};

}  // namespace ember
