// TensorImpl layout bookkeeping: numel and the contiguity flag are derived from sizes/strides.
#include "ember/tensor_impl.h"

#include "core/autograd_meta.h"
#include "core/grad_mode_state.h"

namespace ember {

TensorImpl::TensorImpl(Storage storage, Dtype dtype, IntArrayRef sizes, IntArrayRef strides,
                       int64_t offset)
    : storage_(std::move(storage)),
      sizes_(sizes),
      strides_(strides),
      offset_(offset),
      dtype_(dtype),
      inference_(grad_mode_state::inference) {
  refresh();
}

TensorImpl::~TensorImpl() = default;

void TensorImpl::set_layout(IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  sizes_ = sizes;
  strides_ = strides;
  offset_ = offset;
  refresh();
}

AutogradMeta& TensorImpl::autograd_mut() {
  if (!autograd_) autograd_ = std::make_unique<AutogradMeta>();
  return *autograd_;
}

void TensorImpl::reset_autograd() { autograd_.reset(); }

void TensorImpl::refresh() {
  numel_ = 1;
  for (int64_t s : sizes_) numel_ *= s;
  // Size-1 dims may have any stride; an empty tensor is contiguous.
  contiguous_ = true;
  if (numel_ == 0) return;
  int64_t expected = 1;
  for (int64_t d = int64_t(sizes_.size()) - 1; d >= 0; --d) {
    if (sizes_[d] == 1) continue;
    if (strides_[d] != expected) {
      contiguous_ = false;
      return;
    }
    expected *= sizes_[d];
  }
}

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector strides(sizes.size());
  int64_t s = 1;
  for (int64_t d = int64_t(sizes.size()) - 1; d >= 0; --d) {
    strides[d] = s;
    s *= std::max<int64_t>(sizes[d], 1);
  }
  return strides;
}

}  // namespace ember
