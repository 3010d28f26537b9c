// Copies and fills: copy_ (broadcasting, converting, across devices), contiguous, clone, to,
// fill_, zero_, equal, tolist.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "backend/cpu/copy.h"
#include "backend/cuda_api.h"
#include "core/convert.h"
#include "core/dispatch.h"
#include "ember/creation.h"
#include "ember/shape.h"

namespace ember {
namespace {

// [first byte, last byte + 1) that a tensor's elements can touch.
std::pair<uintptr_t, uintptr_t> byte_extent(const Tensor& t) {
  const auto base = reinterpret_cast<uintptr_t>(t.data_ptr());
  int64_t lo = 0, hi = 0;
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t span = (t.sizes()[d] - 1) * t.strides()[d];
    (span < 0 ? lo : hi) += span;
  }
  return {base + lo * t.element_size(), base + (hi + 1) * t.element_size()};
}

bool may_overlap(const Tensor& a, const Tensor& b) {
  if (a.numel() == 0 || b.numel() == 0 || a.storage().get() != b.storage().get()) return false;
  const auto [a0, a1] = byte_extent(a);
  const auto [b0, b1] = byte_extent(b);
  return a0 < b1 && b0 < a1;
}

bool same_layout(const Tensor& a, const Tensor& b) {
  return a.data_ptr() == b.data_ptr() && a.sizes() == b.sizes() && a.strides() == b.strides() &&
         a.dtype() == b.dtype();
}

void check_writable(const Tensor& t, const char* op) {
  for (int64_t d = 0; d < t.dim(); ++d)
    EMBER_CHECK(t.strides()[d] != 0 || t.sizes()[d] <= 1, op,
                "unsupported operation: more than one element of the written-to tensor refers to "
                "a single memory location. Please clone() the tensor before performing the "
                "operation.");
}

// True when the elements occupy exactly numel consecutive slots in some dim order.
bool is_non_overlapping_and_dense(const Tensor& t) {
  if (t.is_contiguous()) return true;
  DimVector order;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.sizes()[d] != 1) order.push_back(d);
  std::sort(order.begin(), order.end(),
            [&](int64_t a, int64_t b) { return t.strides()[a] < t.strides()[b]; });
  int64_t expected = 1;
  for (int64_t d : order) {
    if (t.strides()[d] != expected) return false;
    expected *= t.sizes()[d];
  }
  return true;
}

}  // namespace

Tensor& Tensor::copy_(const Tensor& src, bool /*non_blocking*/) {
  EMBER_CHECK(defined() && src.defined(), "copy_", "expected defined tensors");
  check_writable(*this, "copy_");
  if (same_layout(*this, src)) return *this;
  Tensor source = src.sizes() == sizes() ? src : src.expand(sizes());
  if (!is_cpu() || !source.is_cpu()) {
    // Across devices: make both sides contiguous and of one dtype, then move bytes.
    Tensor staged = source.to(dtype()).contiguous();
    Tensor dst = is_contiguous() ? *this : empty(sizes(), {.dtype = dtype(), .device = device()});
    cuda::copy_bytes(dst.data_ptr(), device(), staged.data_ptr(), staged.device(),
                     size_t(nbytes()));
    if (!dst.is_same(*this)) copy_(dst);
    impl_->storage()->bump_version();
    return *this;
  }
  if (may_overlap(*this, source)) source = source.clone();
  cpu::copy_kernel(*this, source);
  impl_->storage()->bump_version();
  return *this;
}

Tensor& Tensor::fill_(Scalar value) {
  check_writable(*this, "fill_");
  cpu::fill_kernel(*this, value);
  impl_->storage()->bump_version();
  return *this;
}

Tensor& Tensor::fill_(const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "fill_", "fill_ only supports 0-dimension value tensor but got ",
              "tensor with ", value.dim(), " dimensions.");
  return fill_(value.item());
}

Tensor& Tensor::zero_() { return fill_(0); }

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  Tensor out = empty(sizes(), {.dtype = dtype(), .device = device()});
  out.copy_(*this);
  return out;
}

Tensor Tensor::clone() const {
  // torch.preserve_format: a dense, non-overlapping layout (e.g. a transpose) keeps its strides.
  Tensor out = is_non_overlapping_and_dense(*this)
                   ? empty_strided(sizes(), strides(), {.dtype = dtype(), .device = device()})
                   : empty(sizes(), {.dtype = dtype(), .device = device()});
  out.copy_(*this);
  return out;
}

Tensor Tensor::to(Dtype dtype, bool copy) const { return to(device(), dtype, false, copy); }

Tensor Tensor::to(Device device, bool non_blocking, bool copy) const {
  return to(device, dtype(), non_blocking, copy);
}

Tensor Tensor::to(Device device, Dtype dtype, bool /*non_blocking*/, bool copy) const {
  if (device.is_cuda() && !device.has_index() && this->device().is_cuda())
    device = this->device();
  if (!copy && dtype == this->dtype() && device == this->device()) return *this;
  const bool keep_strides = device == this->device() && is_non_overlapping_and_dense(*this);
  Tensor out = keep_strides ? empty_strided(sizes(), strides(), {.dtype = dtype, .device = device})
                            : empty(sizes(), {.dtype = dtype, .device = device});
  out.copy_(*this);
  return out;
}

bool Tensor::equal(const Tensor& other) const {
  if (sizes() != other.sizes()) return false;
  const Dtype common = promote_types(dtype(), other.dtype());
  const Tensor a = to(common).contiguous().cpu(), b = other.to(common).contiguous().cpu();
  return dispatch(common, "equal", [&]<class T>() {
    const T* x = a.data_ptr<T>();
    const T* y = b.data_ptr<T>();
    for (int64_t i = 0; i < a.numel(); ++i)
      if (!(convert<double>(x[i]) == convert<double>(y[i]))) return false;
    return true;
  });
}

template <class T>
std::vector<T> Tensor::tolist() const {
  const Tensor c = cpu().contiguous();
  std::vector<T> out(size_t(c.numel()));
  dispatch(c.dtype(), "tolist", [&]<class S>() {
    const S* p = static_cast<const S*>(c.data_ptr());
    for (size_t i = 0; i < out.size(); ++i) out[i] = convert<T>(p[i]);
  });
  return out;
}

template std::vector<float> Tensor::tolist<float>() const;
template std::vector<double> Tensor::tolist<double>() const;
template std::vector<int64_t> Tensor::tolist<int64_t>() const;
template std::vector<int32_t> Tensor::tolist<int32_t>() const;
template std::vector<uint8_t> Tensor::tolist<uint8_t>() const;
template std::vector<int8_t> Tensor::tolist<int8_t>() const;
template std::vector<int16_t> Tensor::tolist<int16_t>() const;
template std::vector<Half> Tensor::tolist<Half>() const;
template std::vector<BFloat16> Tensor::tolist<BFloat16>() const;

}  // namespace ember
