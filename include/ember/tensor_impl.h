// TensorImpl: the descriptor a Tensor handle points at — a strided view over a Storage.
//
//   element[i0, i1, ...] = storage[offset + i0*strides[0] + i1*strides[1] + ...]  (in elements)
//   contiguous  <=>  strides[d] == sizes[d+1] * strides[d+1] for every d with sizes[d] != 1,
//                    and strides[last] == 1 (size-1 dims may have any stride)
//
// For backends and op implementations; users work with ember::Tensor. Its reads are public; its
// mutators are private, reached inside ember through TensorImplMutators.
#pragma once

#include <cstdint>
#include <memory>

#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/int_array.h"
#include "ember/intrusive_ptr.h"
#include "ember/storage.h"

namespace ember {

struct AutogradMeta;  // src/autograd: requires_grad, grad, grad_fn, hooks

class TensorImpl : public RefCounted {
 public:
  TensorImpl(Storage storage, Dtype dtype, IntArrayRef sizes, IntArrayRef strides, int64_t offset);
  ~TensorImpl() override;

  const Storage& storage() const { return storage_; }
  Dtype dtype() const { return dtype_; }
  Device device() const { return storage_->device(); }
  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t dim() const { return int64_t(sizes_.size()); }
  int64_t storage_offset() const { return offset_; }
  int64_t numel() const { return numel_; }
  bool is_contiguous() const { return contiguous_; }
  /// Address of element [0, 0, ...] (storage offset included).
  void* data() const {
    return static_cast<char*>(storage_->data()) + offset_ * itemsize(dtype_);
  }

  /// Views (Note [In-place on views] in src/autograd/function.cpp): the tensor whose data this
  /// floating-point view was taken from, followed to the root (null for non-views), so that an
  /// in-place op through the view can rewrite the base's gradient history.
  const intrusive_ptr<TensorImpl>& view_base() const { return view_base_; }
  /// A view made in grad mode records its storage's version whenever its history is set; a
  /// later in-place write to the base (or another view of it) changes the version, and the
  /// history is regenerated on next use (Note [In-place on views]).
  bool view_history_stale() const {
    return view_tracking_ != ViewTracking::kNone && storage_->version() != view_history_version_;
  }
  /// A view made under no_grad (or a view of one) records the version too, but has no
  /// history: once its base is written in place, using it in grad mode is an error, as in
  /// PyTorch (which history it should have is ambiguous). Ops make their outputs with grad mode
  /// off while they record, so a view that is then given a history (set_history marks it
  /// current) was made in grad mode after all.
  bool view_made_without_grad() const { return view_tracking_ == ViewTracking::kNoGradMode; }
  /// Created under InferenceMode: such a tensor may never be saved for backward or written in
  /// place outside InferenceMode (PyTorch's inference tensors).
  bool is_inference() const { return inference_; }

  AutogradMeta* autograd() const { return autograd_.get(); }

 private:
  // The mutators: backends, ops and autograd reach them through TensorImplMutators
  // (src/core/tensor_impl_mutators.h), so that what Tensor::impl() hands a user cannot re-point
  // a tensor under its views, its autograd history or its version counter.
  friend class TensorImplMutators;

  /// Re-points this descriptor at a new layout over the same storage (used by in-place views
  /// such as squeeze_/unsqueeze_/t_ and by set_).
  void set_layout(IntArrayRef sizes, IntArrayRef strides, int64_t offset);
  /// Re-points this descriptor at another storage of another dtype, keeping its identity and
  /// autograd state (PyTorch's `t.data = other`): nn::Module::to converts parameters this way, so
  /// every handle on them sees the converted values.
  void set_data(Storage storage, Dtype dtype, IntArrayRef sizes, IntArrayRef strides,
                int64_t offset) {
    storage_ = std::move(storage);
    dtype_ = dtype;
    set_layout(sizes, strides, offset);
  }

  void set_view_base(intrusive_ptr<TensorImpl> base) { view_base_ = std::move(base); }
  void mark_view_history_current() {
    view_tracking_ = ViewTracking::kGradMode;
    view_history_version_ = storage_->version();
  }
  void mark_view_made_without_grad() {
    view_tracking_ = ViewTracking::kNoGradMode;
    view_history_version_ = storage_->version();
  }
  AutogradMeta& autograd_mut();  // creates it on first use
  void reset_autograd();

  void refresh();  // recomputes numel_ and contiguous_ from sizes_/strides_

  Storage storage_;
  DimVector sizes_;
  DimVector strides_;
  int64_t offset_;
  int64_t numel_ = 1;
  Dtype dtype_;
  bool contiguous_ = true;
  bool inference_ = false;
  // How this view follows in-place writes to its base (see the view_* accessors above).
  enum class ViewTracking : uint8_t { kNone, kGradMode, kNoGradMode };
  ViewTracking view_tracking_ = ViewTracking::kNone;
  uint32_t view_history_version_ = 0;
  intrusive_ptr<TensorImpl> view_base_;
  std::unique_ptr<AutogradMeta> autograd_;
};

/// Contiguous (row-major) strides for sizes.
DimVector contiguous_strides(IntArrayRef sizes);

}  // namespace ember
