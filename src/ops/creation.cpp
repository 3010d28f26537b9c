// Factory functions: tensor() from nested lists, empty/zeros/ones/full/eye, ranges, *_like.
#include "ember/creation.h"

#include <cmath>
#include <cstring>

#include "backend/cpu/copy.h"
#include "core/convert.h"
#include "core/dispatch.h"

namespace ember {
namespace {

Device device_or_cpu(const TensorOptions& o) { return o.device.value_or(Device(kCPU)); }

Tensor finish(Tensor t, const TensorOptions& o) {
  if (o.requires_grad) t.requires_grad_(true);
  return t;
}

// Walks a nested list: records the shape at first visit of each depth, checks that every
// sibling has the same length, and notes the widest value category.
struct ListInfo {
  DimVector shape;
  bool any_float = false, any_int = false;
};

void scan(const NestedList& l, size_t depth, ListInfo& info) {
  if (l.is_scalar()) {
    EMBER_CHECK(depth == info.shape.size(), "tensor", "expected sequence of length ",
                info.shape.size() > depth ? info.shape[depth] : 0, " at dim ", depth,
                " (got a number)");
    info.any_float |= l.value().is_floating_point();
    info.any_int |= l.value().is_integral();
    return;
  }
  const int64_t n = int64_t(l.items().size());
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
    *out++ = l.value().to<T>();
    return;
  }
  for (const NestedList& item : l.items()) flatten_into(item, out);
}

}  // namespace

Tensor empty(IntArrayRef sizes, TensorOptions options) {
  for (int64_t s : sizes)
    EMBER_CHECK(s >= 0, "empty", "negative dimension ", s, " in size ", sizes);
  const Dtype dtype = options.dtype.value_or(default_dtype());
  const int64_t n = prod(sizes);
  auto storage = make_intrusive<StorageImpl>(size_t(n * itemsize(dtype)), device_or_cpu(options));
  return finish(Tensor(make_intrusive<TensorImpl>(std::move(storage), dtype, sizes,
                                                  contiguous_strides(sizes), 0)),
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
  if (extent) for (size_t d = 0; d < sizes.size(); ++d) extent += (sizes[d] - 1) * strides[d];
  const Dtype dtype = options.dtype.value_or(default_dtype());
  auto storage =
      make_intrusive<StorageImpl>(size_t(extent * itemsize(dtype)), device_or_cpu(options));
  return finish(Tensor(make_intrusive<TensorImpl>(std::move(storage), dtype, sizes, strides, 0)),
                options);
}

Tensor zeros(IntArrayRef sizes, TensorOptions options) {
  Tensor t = empty(sizes, {.dtype = options.dtype, .device = options.device});
  if (t.is_cpu()) {
    if (t.nbytes()) std::memset(t.data_ptr(), 0, size_t(t.nbytes()));
  } else {
    t.zero_();
  }
  return finish(t, options);
}

Tensor ones(IntArrayRef sizes, TensorOptions options) {
  if (!options.dtype) options.dtype = default_dtype();  // torch.ones is float unless told
  return full(sizes, 1, options);
}

Tensor full(IntArrayRef sizes, Scalar value, TensorOptions options) {
  if (!options.dtype) options.dtype = value.dtype();
  Tensor t = empty(sizes, {.dtype = options.dtype, .device = options.device});
  t.fill_(value);
  return finish(t, options);
}

Tensor eye(int64_t n, std::optional<int64_t> m, TensorOptions options) {
  const int64_t cols = m.value_or(n);
  EMBER_CHECK(n >= 0 && cols >= 0, "eye", "n and m must be non-negative, got n=", n, " m=", cols);
  Tensor t = zeros({n, cols}, {.dtype = options.dtype, .device = options.device});
  t.diagonal().fill_(1);
  return finish(t, options);
}

Tensor eye(int64_t n, TensorOptions options) { return eye(n, std::nullopt, options); }

Tensor arange(Scalar end, TensorOptions options) { return arange(0, end, 1, options); }

Tensor arange(Scalar start, Scalar end, Scalar step, TensorOptions options) {
  const bool integral = !start.is_floating_point() && !end.is_floating_point() &&
                        !step.is_floating_point();
  const Dtype dtype = options.dtype.value_or(integral ? kInt64 : default_dtype());
  const double s = start.to_double(), e = end.to_double(), st = step.to_double();
  EMBER_CHECK(st != 0, "arange", "step must be nonzero");
  EMBER_CHECK(std::isfinite(s) && std::isfinite(e), "arange", "unsupported range: ", s, " -> ",
              e);
  EMBER_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), "arange",
              "upper bound and larger bound inconsistent with step sign");
  const int64_t n = integral ? (end.to_int() - start.to_int() + step.to_int() +
                                (step.to_int() > 0 ? -1 : 1)) / step.to_int()
                             : int64_t(std::ceil((e - s) / st));
  Tensor t = empty({n}, {.dtype = dtype, .device = kCPU});
  dispatch<DtypeSet::Numeric>(dtype, "arange", [&]<class T>() {
    T* p = t.data_ptr<T>();
    if (integral) {
      const int64_t a = start.to_int(), b = step.to_int();
      for (int64_t i = 0; i < n; ++i) p[i] = convert<T>(a + i * b);
    } else {
      for (int64_t i = 0; i < n; ++i) p[i] = convert<T>(s + double(i) * st);
    }
  });
  if (options.device && !options.device->is_cpu()) t = t.to(*options.device);
  return finish(t, options);
}

Tensor linspace(Scalar start, Scalar end, int64_t steps, TensorOptions options) {
  EMBER_CHECK(steps >= 0, "linspace", "number of steps must be non-negative, got ", steps);
  const Dtype dtype = options.dtype.value_or(default_dtype());
  Tensor t = empty({steps}, {.dtype = dtype, .device = kCPU});
  dispatch<DtypeSet::Numeric>(dtype, "linspace", [&]<class T>() {
    // PyTorch's symmetric formula: the first half counts up from start, the second half down
    // from end, so both endpoints are exact.
    using C = std::conditional_t<std::is_floating_point_v<compute_t<T>>, compute_t<T>, double>;
    T* p = t.data_ptr<T>();
    if (steps == 1) p[0] = convert<T>(start.to_double());
    if (steps <= 1) return;
    const C a = C(start.to_double()), b = C(end.to_double());
    const C step = (b - a) / C(steps - 1);
    const int64_t halfway = steps / 2;
    for (int64_t i = 0; i < steps; ++i)
      p[i] = convert<T>(i < halfway ? a + step * C(i) : b - step * C(steps - i - 1));
  });
  if (options.device && !options.device->is_cpu()) t = t.to(*options.device);
  return finish(t, options);
}

Tensor logspace(Scalar start, Scalar end, int64_t steps, double base, TensorOptions options) {
  Tensor exponents = linspace(start, end, steps, {.dtype = kFloat64});
  const Dtype dtype = options.dtype.value_or(default_dtype());
  Tensor t = empty({steps}, {.dtype = dtype, .device = kCPU});
  dispatch<DtypeSet::Numeric>(dtype, "logspace", [&]<class T>() {
    const double* e = exponents.data_ptr<double>();
    T* p = t.data_ptr<T>();
    for (int64_t i = 0; i < steps; ++i) p[i] = convert<T>(std::pow(base, e[i]));
  });
  return finish(t, options);
}

Tensor tensor(const NestedList& data, TensorOptions options) {
  ListInfo info;
  scan(data, 0, info);
  const Dtype inferred = info.any_float ? default_dtype() : info.any_int ? kInt64 : kBool;
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

Tensor empty_like(const Tensor& t, TensorOptions o) { return empty(t.sizes(), like(t, o)); }
Tensor zeros_like(const Tensor& t, TensorOptions o) { return zeros(t.sizes(), like(t, o)); }
Tensor ones_like(const Tensor& t, TensorOptions o) { return ones(t.sizes(), like(t, o)); }
Tensor full_like(const Tensor& t, Scalar value, TensorOptions o) {
  return full(t.sizes(), value, like(t, o));
}

}  // namespace ember
