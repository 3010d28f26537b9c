// Factory functions: tensor() from nested lists, empty/zeros/ones/full/eye, ranges, *_like. The
// fills of zeros and the ranges are the backend's creation family (backend/creation_kernels.h);
// tensor() and from_vector stage their host values in a CPU tensor and copy it to the device.
#include "ember/creation.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "backend/buffers.h"
#include "backend/family_kernel.h"
#include "core/convert.h"
#include "core/dispatch.h"
#include "core/op_entry.h"
#include "ops/copy.h"

namespace ember {
namespace {

using backend::Backend;
using backend::CreationKernels;

// Entry `entry` of `device`'s creation kernels.
template <class Fn>
Fn creation_kernel_of(const char* op, Device device, Fn CreationKernels::*entry) {
  return backend::kernel(op, device, &Backend::creation, entry);
}

Device device_or_cpu(const TensorOptions& o) { return o.device.value_or(Device(kCPU)); }

Tensor finish(Tensor t, const TensorOptions& o) {
  if (o.requires_grad) t.requires_grad_(true);
  return t;
}

// Walks a nested list: records the shape at first visit of each depth, checks that every
// sibling has the same length and that numbers sit only at the deepest level, and notes the
// widest value category.
struct ListInfo {
  DimVector shape;
  bool any_float = false, any_int = false, any_bool = false;
  bool leaves_seen = false;  // a number was seen, so the shape has all its dims
};

void scan(const NestedList& l, size_t depth, ListInfo& info) {
  if (l.is_scalar()) {
    EMBER_CHECK(depth == info.shape.size(), "tensor", "expected sequence of length ",
                info.shape.size() > depth ? info.shape[depth] : 0, " at dim ", depth,
                " (got a number)");
    info.leaves_seen = true;
    info.any_float |= l.value().is_floating_point();
    info.any_int |= l.value().is_integral();
    info.any_bool |= l.value().is_bool();
    return;
  }
  const int64_t n = int64_t(l.items().size());
  EMBER_CHECK(!(info.leaves_seen && depth == info.shape.size()), "tensor",
              "expected a number at dim ", depth, " (got a sequence of length ", n, ")");
  if (depth == info.shape.size()) {
    info.shape.push_back(n);
  } else {
    EMBER_CHECK(depth < info.shape.size() && info.shape[depth] == n, "tensor",
                "expected sequence of length ", depth < info.shape.size() ? info.shape[depth] : 0,
                " at dim ", depth, " (got ", n, ")");
  }
  for (const NestedList& item : l.items()) scan(item, depth + 1, info);
  // A list whose items are lists must not mix in numbers deeper than its siblings.
  if (n == 0 && depth + 1 < info.shape.size()) fail("tensor", "ragged nested list at dim ", depth);
}

template <class T>
void flatten_into(const NestedList& l, T*& out) {
  if (l.is_scalar()) {
    // Integers are range-checked as PyTorch does; floats just round (1e6 is inf in float16).
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
      check_scalar_fits(l.value(), dtype_of<T>(), "tensor");
    *out++ = l.value().to<T>();
    return;
  }
  for (const NestedList& item : l.items()) flatten_into(item, out);
}

}  // namespace

Tensor empty(IntArrayRef sizes, TensorOptions options) {
  return finish(
      backend::new_buffer(sizes, options.dtype.value_or(default_dtype()), device_or_cpu(options)),
      options);
}

Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, TensorOptions options) {
  EMBER_CHECK(sizes.size() == strides.size(), "empty_strided", "sizes ", sizes, " and strides ",
              strides, " must have the same length");
  int64_t extent = 1;  // elements needed: 1 + sum((size-1)*stride)
  for (size_t d = 0; d < sizes.size(); ++d) {
    EMBER_CHECK(sizes[d] >= 0 && strides[d] >= 0, "empty_strided",
                "sizes and strides must be non-negative, got sizes ", sizes, " strides ", strides);
    if (sizes[d] == 0) extent = 0;
  }
  const Dtype dtype = options.dtype.value_or(default_dtype());
  bool overflow = false;
  if (extent)
    for (size_t d = 0; d < sizes.size(); ++d) {
      int64_t span;
      overflow |= __builtin_mul_overflow(sizes[d] - 1, strides[d], &span);
      overflow |= __builtin_add_overflow(extent, span, &extent);
    }
  int64_t nbytes;
  overflow |= __builtin_mul_overflow(extent, itemsize(dtype), &nbytes);
  EMBER_CHECK(!overflow, "empty_strided", "Storage size calculation overflowed with sizes=",
              sizes, " and strides=", strides);
  auto storage = make_intrusive<StorageImpl>(size_t(nbytes), device_or_cpu(options));
  return finish(Tensor(make_intrusive<TensorImpl>(std::move(storage), dtype, sizes, strides, 0)),
                options);
}

Tensor zeros(IntArrayRef sizes, TensorOptions options) {
  OpScope scope("zeros");
  Tensor t = empty(sizes, {.dtype = options.dtype, .device = options.device});
  creation_kernel_of("zeros", t.device(), &CreationKernels::zero)(t);
  return finish(t, options);
}

Tensor ones(IntArrayRef sizes, TensorOptions options) {
  OpScope scope("ones");
  if (!options.dtype) options.dtype = default_dtype();  // torch.ones is float unless told
  return full(sizes, 1, options);
}

Tensor full(IntArrayRef sizes, Scalar value, TensorOptions options) {
  OpScope scope("full");
  if (!options.dtype) options.dtype = value.dtype();
  Tensor t = empty(sizes, {.dtype = options.dtype, .device = options.device});
  fill_into(t, value);  // a new tensor: version 0
  return finish(t, options);
}

Tensor eye(int64_t n, std::optional<int64_t> m, TensorOptions options) {
  const int64_t cols = m.value_or(n);
  EMBER_CHECK(n >= 0 && cols >= 0, "eye", "n and m must be non-negative, got n=", n, " m=", cols);
  Tensor t = zeros({n, cols}, {.dtype = options.dtype, .device = options.device});
  fill_into(t.diagonal(), 1);
  return finish(t, options);
}

Tensor eye(int64_t n, TensorOptions options) { return eye(n, std::nullopt, options); }

Tensor arange(Scalar end, TensorOptions options) { return arange(0, end, 1, options); }

Tensor arange(Scalar start, Scalar end, Scalar step, TensorOptions options) {
  OpScope scope("arange");
  using backend::arange_acc_t;  // the bounds are checked as the kernel computes them
  const bool integral = !start.is_floating_point() && !end.is_floating_point() &&
                        !step.is_floating_point();
  const Dtype dtype = options.dtype.value_or(integral ? kInt64 : default_dtype());
  int64_t n = 0;
  dispatch<DtypeSet::Numeric>(dtype, "arange", [&]<class T>() {
    // The checks see the bounds and step in the accumulate type: an int64 arange truncates them.
    using A = arange_acc_t<T>;
    const A s = start.to<A>(), e = end.to<A>(), st = step.to<A>();
    EMBER_CHECK(st > 0 || st < 0, "arange", "step must be nonzero");
    EMBER_CHECK(std::isfinite(double(s)) && std::isfinite(double(e)), "arange",
                "unsupported range: ", s, " -> ", e);
    EMBER_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), "arange",
                "upper bound and larger bound inconsistent with step sign");
    // The length in double, except that int64 uses its own (truncated) bounds and step.
    const double size = std::is_same_v<T, int64_t>
                            ? std::ceil(double(e - s) / double(st))
                            : std::ceil((end.to_double() - start.to_double()) / step.to_double());
    EMBER_CHECK(size >= 0 && size <= double(std::numeric_limits<int64_t>::max()), "arange",
                "invalid size, possible overflow?");
    n = int64_t(size);
  });
  Tensor t = empty({n}, {.dtype = dtype, .device = options.device});
  creation_kernel_of("arange", t.device(), &CreationKernels::arange)(t, start, step);
  return finish(t, options);
}

Tensor linspace(Scalar start, Scalar end, int64_t steps, TensorOptions options) {
  OpScope scope("linspace");
  EMBER_CHECK(steps >= 0, "linspace", "number of steps must be non-negative, got ", steps);
  const Dtype dtype = options.dtype.value_or(default_dtype());
  Tensor t = empty({steps}, {.dtype = dtype, .device = options.device});
  const auto kernel = creation_kernel_of("linspace", t.device(), &CreationKernels::linspace);
  if (steps > 0) {  // PyTorch converts the bounds to the dtype with checked_convert
    check_scalar_fits(start, dtype, "linspace");
    check_scalar_fits(end, dtype, "linspace");
  }
  kernel(t, start, end);
  return finish(t, options);
}

Tensor logspace(Scalar start, Scalar end, int64_t steps, double base, TensorOptions options) {
  Tensor exponents = linspace(start, end, steps, {.dtype = kFloat64, .device = options.device});
  const Dtype dtype = options.dtype.value_or(default_dtype());
  Tensor t = empty({steps}, {.dtype = dtype, .device = options.device});
  const auto kernel = creation_kernel_of("logspace", t.device(), &CreationKernels::logspace);
  kernel(t, exponents, base);
  return finish(t, options);
}

Tensor tensor(const NestedList& data, TensorOptions options) {
  ListInfo info;
  scan(data, 0, info);
  // torch.tensor([]) is float: bool only when every number is a bool.
  const Dtype inferred = info.any_float ? default_dtype()
                         : info.any_int ? kInt64
                         : info.any_bool ? kBool
                                         : default_dtype();
  const Dtype dtype = options.dtype.value_or(inferred);
  Tensor t = empty(info.shape, {.dtype = dtype, .device = kCPU});
  dispatch(dtype, "tensor", [&]<class T>() {
    T* out = t.data_ptr<T>();
    flatten_into(data, out);
  });
  if (options.device && !options.device->is_cpu()) t = t.to(*options.device);
  return finish(t, options);
}

Tensor tensor(const NestedList& data, Dtype dtype) { return tensor(data, {.dtype = dtype}); }

template <class T>
Tensor from_vector(const std::vector<T>& values, std::optional<std::vector<int64_t>> sizes,
                   TensorOptions options) {
  const std::vector<int64_t> shape = sizes.value_or(std::vector<int64_t>{int64_t(values.size())});
  EMBER_CHECK(prod(shape) == int64_t(values.size()), "from_vector", "shape ", IntArrayRef(shape),
              " is invalid for ", values.size(), " values");
  Tensor t = empty(shape, {.dtype = dtype_of<T>(), .device = kCPU});
  if (!values.empty()) std::memcpy(t.data_ptr(), values.data(), values.size() * sizeof(T));
  if (options.dtype && *options.dtype != t.dtype()) t = t.to(*options.dtype);
  if (options.device && !options.device->is_cpu()) t = t.to(*options.device);
  return finish(t, options);
}

#define EMBER_FROM_VECTOR(T)                                                            \
  template Tensor from_vector<T>(const std::vector<T>&, std::optional<std::vector<int64_t>>, \
                                 TensorOptions);
EMBER_FROM_VECTOR(float)
EMBER_FROM_VECTOR(double)
EMBER_FROM_VECTOR(int64_t)
EMBER_FROM_VECTOR(int32_t)
EMBER_FROM_VECTOR(int16_t)
EMBER_FROM_VECTOR(int8_t)
EMBER_FROM_VECTOR(uint8_t)
EMBER_FROM_VECTOR(Half)
EMBER_FROM_VECTOR(BFloat16)
#undef EMBER_FROM_VECTOR

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, Dtype dtype,
                 DeleterFn deleter, void* context) {
  EMBER_CHECK(sizes.size() == strides.size(), "from_blob", "sizes ", sizes, " and strides ",
              strides, " must have the same length");
  int64_t extent = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) extent = 0;
  }
  if (extent)
    for (size_t d = 0; d < sizes.size(); ++d) extent += (sizes[d] - 1) * strides[d];
  auto storage = make_intrusive<StorageImpl>(data, size_t(extent * itemsize(dtype)), Device(kCPU),
                                             deleter, context);
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), dtype, sizes, strides, 0));
}

namespace {
TensorOptions like(const Tensor& t, TensorOptions o) {
  if (!o.dtype) o.dtype = t.dtype();
  if (!o.device) o.device = t.device();
  return o;
}
}  // namespace

// torch.preserve_format: the new tensor is laid out like t (a transpose stays transposed).
Tensor empty_like(const Tensor& t, TensorOptions o) {
  OpScope scope("empty_like", {&t});
  return empty_strided(t.sizes(), preserve_format_strides(t), like(t, o));
}
Tensor zeros_like(const Tensor& t, TensorOptions o) {
  OpScope scope("zeros_like", {&t});
  return full_like(t, 0, o);
}
Tensor ones_like(const Tensor& t, TensorOptions o) {
  OpScope scope("ones_like", {&t});
  return full_like(t, 1, o);
}
Tensor full_like(const Tensor& t, Scalar value, TensorOptions o) {
  OpScope scope("full_like", {&t});
  Tensor out = empty_like(t, o);
  fill_into(out, value);
  return out;
}

}  // namespace ember
