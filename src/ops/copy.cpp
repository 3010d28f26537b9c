// Copies and fills: copy_ (broadcasting, converting, across devices), contiguous, clone, to,
// fill_, zero_, equal, tolist.
#include "ops/copy.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <numeric>

#include "backend/backend.h"
#include "backend/cuda/api.h"
#include "backend/cuda/copy_plan.h"
#include "core/convert.h"
#include "core/dispatch.h"
#include "ember/creation.h"
#include "ember/shape.h"
#include "ops/dim_order.h"
#include "ops/memory_overlap.h"
#include "ops/op_prelude.h"

namespace ember {

namespace {

// Backward of clone/contiguous/to: the gradient as is (the engine casts it to the input's
// dtype), moved back to the input's device.
autograd::BackwardFn identity_back(Device device) {
  return [device](const Grads& g, const Saved&) {
    return TensorList{g[0].device() == device ? g[0] : g[0].to(device)};
  };
}

bool same_layout(const Tensor& a, const Tensor& b) {
  return same_elements(a, b) && a.dtype() == b.dtype();
}

}  // namespace

DimVector preserve_format_strides(const Tensor& t) {
  if (is_non_overlapping_and_dense(t)) return DimVector(t.strides());
  // PyTorch's infer_dense_strides: a stable insertion sort of the dims, innermost first, by
  // stride (ties: the smaller size first); a dim of stride 0 compares as "keep the order".
  const int64_t n = t.dim();
  auto should_swap = [&](int64_t a, int64_t b) {
    const int64_t sa = t.strides()[a], sb = t.strides()[b];
    if (sa == 0 || sb == 0) return 0;
    if (sa != sb) return sa < sb ? -1 : 1;
    return t.sizes()[a] > t.sizes()[b] ? 1 : 0;
  };
  const DimVector perm = dims_innermost_first(n, should_swap);
  DimVector strides(static_cast<size_t>(n));
  int64_t next = 1;
  for (int64_t d : perm) {
    strides[d] = next;
    next *= std::max<int64_t>(t.sizes()[d], 1);
  }
  return strides;
}

// Note [Overlapping copies]
// PyTorch classifies how the destination and the source share memory (get_overlap_status):
// when both are non-overlapping and dense, their element ranges either coincide with equal
// strides (a full overlap: copying is harmless), intersect otherwise (a partial overlap, which
// copy_ refuses, as PyTorch does), or are disjoint. For any other pair PyTorch copies in its
// loop order and the result depends on that order; ember copies the source first when the byte
// ranges meet, so every element reads the source as it was before the copy.
namespace {
void copy_with(const Tensor& dst, const Tensor& src, bool non_blocking);
}  // namespace

void copy_into(const Tensor& dst, const Tensor& src) { copy_with(dst, src, false); }

namespace {

// Between the host and a CUDA device, staged and tmp are contiguous and of one dtype: the bytes
// move in one call, without waiting when transfer_is_async says so (non_blocking, and the host
// side pinned: then it is the pinned storage itself, kept from reuse until the copy is done).
void copy_bytes_across(const Tensor& tmp, const Tensor& staged, bool non_blocking) {
  const Tensor& host = tmp.device().is_cpu() ? tmp : staged;
  const bool pinned = host.device().is_cpu() && host.is_pinned();
  void* dst = tmp.impl()->data();
  const void* src = staged.impl()->data();
  const size_t nbytes = size_t(tmp.nbytes());
  if (cuda::transfer_is_async(tmp.device(), staged.device(), non_blocking, pinned)) {
    cuda::copy_bytes_async(dst, tmp.device(), src, staged.device(), nbytes,
                           host.impl()->storage()->data());
  } else {
    cuda::copy_bytes(dst, tmp.device(), src, staged.device(), nbytes);
  }
}

void copy_with(const Tensor& dst, const Tensor& src, bool non_blocking) {
  EMBER_CHECK(dst.defined() && src.defined(), "copy_", "expected defined tensors");
  if (dst.is_same(src)) return;  // before the overlap checks, as in PyTorch
  check_no_internal_overlap(dst, "copy_");
  if (same_layout(dst, src)) return;
  if (partially_overlaps(dst, src)) fail_input_overlaps_output("copy_");
  Tensor source = src.sizes() == dst.sizes() ? src : src.expand(dst.sizes());
  if (!(dst.device() == source.device())) {
    // Across devices: make both sides contiguous and of one dtype, then move bytes.
    Tensor staged = source.to(dst.dtype()).contiguous();
    Tensor tmp = dst.is_contiguous()
                     ? dst
                     : empty(dst.sizes(), {.dtype = dst.dtype(), .device = dst.device()});
    copy_bytes_across(tmp, staged, non_blocking);
    if (!tmp.is_same(dst)) copy_into(dst, tmp);
    return;
  }
  const backend::CopyFn copy = backend::kernel("copy_", dst.device(), &backend::Backend::copy);
  if (may_overlap(dst, source)) source = source.clone();  // see Note [Overlapping copies]
  copy(dst, source);
}

}  // namespace

void check_scalar_fits(Scalar value, Dtype dtype, const char* op) {
  if (dtype == kBool || value.is_bool()) return;
  // The largest finite value of each dtype, in ScalarType order (bool unused).
  static constexpr double kMax[kNumDtypes] = {1,      255,   127,        32767,          2147483647,
                                              0x1p63, 65504, 0x1.fep127, 0x1.fffffep127, DBL_MAX};
  const double hi = kMax[int(dtype)], lo = dtype == kUInt8 ? 0 : -hi - is_integral(dtype);
  bool overflow;
  if (value.is_integral()) {
    const int64_t i = value.to_int();
    // A negative integer may wrap into uint8 (so that a - b works), if its magnitude fits.
    overflow = dtype == kUInt8 ? i > 255 || (i < 0 && -uint64_t(i) > 255)
                               : dtype != kInt64 && (double(i) < lo || double(i) > hi);
  } else {
    const double d = value.to_double();
    overflow = is_floating_point(dtype) ? std::isfinite(d) && (d < lo || d > hi)
                                        : std::isnan(d) || d < lo || d > hi;
  }
  EMBER_CHECK(!overflow, op, "value ", value, " cannot be converted to type ", dtype_name(dtype),
              " without overflow");
}

void fill_into(const Tensor& dst, Scalar value) {
  check_scalar_fits(value, dst.dtype(), "fill_");
  backend::kernel("fill_", dst.device(), &backend::Backend::fill)(dst, value);
}

Tensor& Tensor::copy_(const Tensor& src, bool non_blocking) const {
  Recorder rec(Recorder::InPlace{}, "copy_", *this, {&src});
  copy_with(*this, src, non_blocking);
  impl_->storage()->bump_version();  // even for a copy onto itself, as PyTorch
  if (rec)
    rec.record("CopyBackwards", {*this}, {}, [device = src.device()](const Grads& g, const Saved&) {
      return TensorList{zeros_like(g[0]), g[0].device() == device ? g[0] : g[0].to(device)};
    });
  return mut();
}

// No internal-overlap check: PyTorch fills an expanded tensor (one value for every element).
Tensor& Tensor::fill_(Scalar value) const {
  Recorder rec(Recorder::InPlace{}, "fill_", *this, {});
  fill_into(*this, value);
  impl_->storage()->bump_version();
  if (rec)
    rec.record("FillBackward2", {*this}, {},
               [](const Grads& g, const Saved&) { return TensorList{zeros_like(g[0])}; });
  return mut();
}

Tensor& Tensor::fill_(const Tensor& value) const {
  EMBER_CHECK(value.dim() == 0, "fill_", "fill_ only supports 0-dimension value tensor but got ",
              "tensor with ", value.dim(), " dimensions.");
  Recorder rec(Recorder::InPlace{}, "fill_", *this, {&value});
  fill_into(*this, value.item());
  impl_->storage()->bump_version();
  if (rec)
    rec.record("FillBackward3", {*this}, {}, [](const Grads& g, const Saved&) {
      return TensorList{zeros_like(g[0]), g[0].sum()};
    });
  return mut();
}

Tensor& Tensor::zero_() const {
  Recorder rec(Recorder::InPlace{}, "zero_", *this, {});
  fill_into(*this, 0);
  impl_->storage()->bump_version();
  if (rec)
    rec.record("ZeroBackward0", {*this}, {},
               [](const Grads& g, const Saved&) { return TensorList{zeros_like(g[0])}; });
  return mut();
}

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  Recorder rec("contiguous", {this});
  Tensor out = empty(sizes(), {.dtype = dtype(), .device = device()});
  copy_into(out, *this);
  if (rec) rec.record("CloneBackward0", {out}, {}, identity_back(device()));
  return out;
}

// torch.preserve_format: a transpose keeps its strides (see preserve_format_strides).
Tensor Tensor::clone() const {
  Recorder rec("clone", {this});
  Tensor out = empty_like(*this);
  copy_into(out, *this);
  if (rec) rec.record("CloneBackward0", {out}, {}, identity_back(device()));
  return out;
}

namespace {
void free_pinned_storage(void* data, void* /*context*/) { cuda::free_pinned(data); }

// An uninitialised CPU tensor like t (torch.preserve_format) of `dtype`, in pinned memory.
Tensor empty_pinned_like(const Tensor& t, Dtype dtype) {
  const DimVector strides = preserve_format_strides(t);
  const size_t nbytes = size_t(t.numel()) * itemsize(dtype);
  void* data = cuda::allocate_pinned(nbytes);
  auto storage = make_intrusive<StorageImpl>(data, nbytes, Device(kCPU), &free_pinned_storage,
                                             nullptr);
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), dtype, t.sizes(), strides, 0));
}
}  // namespace

// PyTorch's _pin_memory: a new storage from the pinned host allocator, the same sizes and
// strides (a non-dense view's are made dense), and a differentiable copy into it.
Tensor Tensor::pin_memory() const {
  EMBER_CHECK(device().is_cpu(), "pin_memory", "cannot pin a tensor on ", device(),
              ": only dense CPU tensors can be pinned");
  if (is_pinned()) return *this;
  Recorder rec("pin_memory", {this});
  Tensor out = empty_pinned_like(*this, dtype());
  copy_into(out, *this);
  if (rec) rec.record("PinMemoryBackward0", {out}, {}, identity_back(device()));
  return out;
}

bool Tensor::is_pinned() const {
  return device().is_cpu() && cuda::is_pinned(impl()->storage()->data());
}

void Tensor::record_stream(const cuda::Stream& stream) const {
  EMBER_CHECK(device().is_cuda(), "record_stream", "expected a CUDA tensor, got one on ",
              device());
  cuda::record_stream(impl()->storage()->data(), device(), stream);
}

Tensor Tensor::to(Dtype dtype, bool copy) const { return to(device(), dtype, false, copy); }

Tensor Tensor::to(Device device, bool non_blocking, bool copy) const {
  return to(device, dtype(), non_blocking, copy);
}

// As PyTorch's _to_copy, a non_blocking copy from a CUDA device to the CPU lands in pinned
// memory, so that it runs asynchronously (the caller synchronises before reading it).
Tensor Tensor::to(Device device, Dtype dtype, bool non_blocking, bool copy) const {
  if (device.is_cuda() && !device.has_index() && this->device().is_cuda()) device = this->device();
  if (!copy && dtype == this->dtype() && device == this->device()) return *this;
  Recorder rec("to", {this});
  const bool pin_out = non_blocking && this->device().is_cuda() && device.is_cpu();
  Tensor out = pin_out ? empty_pinned_like(*this, dtype)
                       : empty_like(*this, {.dtype = dtype, .device = device});
  copy_with(out, *this, non_blocking);
  if (rec) rec.record("ToCopyBackward0", {out}, {}, identity_back(this->device()));
  return out;
}

// Compared on this tensor's device (the other one is brought there, as before the seam both
// went to the CPU).
bool Tensor::equal(const Tensor& other) const {
  if (sizes() != other.sizes()) return false;
  const Dtype common = promote_types(dtype(), other.dtype());
  const Tensor a = to(common).contiguous(), b = other.to(device(), common).contiguous();
  return backend::kernel("equal", a.device(), &backend::Backend::equal)(a, b);
}

// The copy kernel converts (on the tensor's device, then to the CPU), so the host only copies
// bytes out.
template <class T>
std::vector<T> Tensor::tolist() const {
  const Tensor c = detach().to(dtype_of<T>()).cpu().contiguous();
  const T* p = c.data_ptr<T>();
  return std::vector<T>(p, p + c.numel());
}

template std::vector<bool> Tensor::tolist<bool>() const;
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
