// Random tensors (rand, randn, randint, randperm, *_like) and the in-place fills uniform_,
// normal_, random_, bernoulli_ and exponential_: their checks. The fills are the backend's random
// family (backend/random_kernels.h); for a given seed the CPU's produce PyTorch 1.13's CPU
// numbers bit for bit (Note [Matching PyTorch's random streams] in backend/cpu/random.cpp).
// rand, randn and randint fill on the device asked for with its own generator (on CUDA the
// Philox streams of Note [Philox streams], backend/cuda/random_launch.h, which refuse a CPU
// generator as PyTorch does); so does randperm (on CUDA PyTorch's sort of random keys, Note
// [CUDA randperm] in backend/cuda/randperm_launch.h).
#include <cmath>
#include <limits>
#include <type_traits>

#include "backend/family_kernel.h"
#include "core/convert.h"
#include "core/dispatch.h"
#include "core/float_limits.h"
#include "core/op_entry.h"
#include "ember/creation.h"

namespace ember {
namespace {

// PyTorch's update_from/update_to: move a bound that is not exact in T inwards to the nearest
// value of T, so casting a result never lands outside [from, to).
template <class T>
int64_t exact_bound(int64_t bound, int64_t step) {
  const double rounded = double(convert<T>(bound + step));
  if (!std::isfinite(rounded) || std::abs(rounded) >= 0x1p63) return bound;  // checked later
  const auto cast = int64_t(rounded);
  if (step > 0 ? cast >= bound : cast < bound) return bound;
  int64_t mag = std::abs(bound + step);
  int n = 0;
  while (mag >>= 1) ++n;
  const int64_t ulp = int64_t(1) << (n - kDigits<T> + 1);
  return step > 0 ? cast + ulp : cast - ulp;
}

// ── checks shared by the fills ─────────────────────────────────────────────

void check_tensor(const char* op, const Tensor& t) {
  EMBER_CHECK(t.defined(), op, "undefined tensor");
}

void check_floating(const char* op, Dtype dtype) {
  EMBER_CHECK(is_floating_point(dtype), op, "expected a floating-point dtype, got ", dtype);
}

void check_sizes(const char* op, IntArrayRef sizes) {
  for (int64_t s : sizes)
    EMBER_CHECK(s >= 0, op, "trying to create tensor with negative dimension ", s, ": ", sizes);
}

using backend::Backend;
using backend::RandomKernels;

// Entry `entry` of t's device's random kernels.
template <class Fn>
Fn random_kernel_of(const char* op, const Tensor& t, Fn RandomKernels::*entry) {
  return backend::kernel(op, t.device(), &Backend::random, entry);
}

// t after a kernel wrote it in place: a new version.
Tensor& written(Tensor& t) {
  t.storage()->bump_version();
  return t;
}

Tensor& uniform_impl(const char* op, Tensor& t, double from, double to, Generator* gen) {
  check_tensor(op, t);
  check_floating(op, t.dtype());
  dispatch<DtypeSet::Floating>(t.dtype(), op, [&]<class T>() {
    const double max = kMaxFinite<T>;
    EMBER_CHECK(from >= -max && from <= max, op, "from is out of bounds for ", t.dtype());
    EMBER_CHECK(to >= -max && to <= max, op, "to is out of bounds for ", t.dtype());
    EMBER_CHECK(from <= to, op, "expects to return a [from, to) range, but found from=", from,
                " > to=", to);
    EMBER_CHECK(to - from <= max, op, "expects to-from <= ", max, " for ", t.dtype(),
                ", but found to=", to, " and from=", from);
  });
  random_kernel_of(op, t, &RandomKernels::uniform)(op, t, from, to, gen);
  return written(t);
}

Tensor& normal_impl(const char* op, Tensor& t, double mean, double std, Generator* gen) {
  check_tensor(op, t);
  check_floating(op, t.dtype());
  EMBER_CHECK(std >= 0.0, op, "normal expects std >= 0.0, but found std ", std);
  random_kernel_of(op, t, &RandomKernels::normal)(op, t, mean, std, gen);
  return written(t);
}

Tensor& random_impl(const char* op, Tensor& t, int64_t from, int64_t to, Generator* gen) {
  check_tensor(op, t);
  EMBER_CHECK(from < to, op, "random_ expects 'from' to be less than 'to', but got from=", from,
              " >= to=", to);
  dispatch(t.dtype(), op, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T> || is_half_v<T>) {
      from = exact_bound<T>(from, 1);
      to = exact_bound<T>(to, -1);
      EMBER_CHECK(from < to, op, "random_ expects 'from' casted to dtype to be less than 'to' ",
                  "casted to dtype, but got from=", from, " >= to=", to);
      const double max = kMaxFinite<T>;
      EMBER_CHECK(double(from) >= -max, op, "from is out of bounds for ", t.dtype());
      EMBER_CHECK(double(to - 1) <= max, op, "to - 1 is out of bounds for ", t.dtype());
    } else {
      const auto lo = int64_t(std::numeric_limits<T>::lowest());
      const auto hi = int64_t(std::numeric_limits<T>::max());
      EMBER_CHECK(from >= lo && from <= hi, op, "from is out of bounds for ", t.dtype());
      EMBER_CHECK(to - 1 >= lo && to - 1 <= hi, op, "to - 1 is out of bounds for ", t.dtype());
    }
  });
  const uint64_t range = uint64_t(to) - uint64_t(from);
  random_kernel_of(op, t, &RandomKernels::random)(op, t, range, from, gen);
  return written(t);
}

// A factory's tensor before its fill: on the device asked for (the CPU when none).
Tensor empty_on(IntArrayRef sizes, Dtype dtype, const RandomOptions& o) {
  return empty(sizes, {.dtype = dtype, .device = o.device});
}

// A factory's last option, after the fill (empty_on made the tensor on its device).
Tensor finish(Tensor t, const RandomOptions& o) {
  if (o.requires_grad) t.requires_grad_(true);
  return t;
}

RandomOptions like_options(const char* op, const Tensor& t, RandomOptions o) {
  check_tensor(op, t);
  if (!o.dtype) o.dtype = t.dtype();
  if (!o.device) o.device = t.device();
  return o;
}

}  // namespace

// ── public API ─────────────────────────────────────────────────────────────

Tensor& uniform_(Tensor& t, double from, double to, Generator* gen) {
  OpScope scope("uniform_", t, {});
  return uniform_impl("uniform_", t, from, to, gen);
}

Tensor& normal_(Tensor& t, double mean, double std, Generator* gen) {
  OpScope scope("normal_", t, {});
  return normal_impl("normal_", t, mean, std, gen);
}

Tensor& random_(Tensor& t, int64_t from, int64_t to, Generator* gen) {
  OpScope scope("random_", t, {});
  return random_impl("random_", t, from, to, gen);
}

Tensor& exponential_(Tensor& t, double lambd, Generator* gen) {
  const char* op = "exponential_";
  check_tensor(op, t);
  check_floating(op, t.dtype());
  EMBER_CHECK(lambd >= 0.0, op, "exponential_ expects lambda >= 0.0, but found lambda=", lambd);
  random_kernel_of(op, t, &RandomKernels::exponential)(op, t, lambd, gen);
  return written(t);
}

Tensor& bernoulli_(Tensor& t, double p, Generator* gen) {
  OpScope scope("bernoulli_", t, {});
  check_tensor("bernoulli_", t);
  EMBER_CHECK(p >= 0.0 && p <= 1.0, "bernoulli_", "expects p to be in [0, 1], but got p=", p);
  random_kernel_of("bernoulli_", t, &RandomKernels::bernoulli)("bernoulli_", t, p, gen);
  return written(t);
}

Tensor rand(IntArrayRef sizes, RandomOptions options) {
  OpScope scope("rand");
  check_sizes("rand", sizes);
  const Dtype dtype = options.dtype.value_or(default_dtype());
  check_floating("rand", dtype);
  Tensor t = empty_on(sizes, dtype, options);
  uniform_impl("rand", t, 0.0, 1.0, options.generator);
  return finish(t, options);
}

Tensor randn(IntArrayRef sizes, RandomOptions options) {
  OpScope scope("randn");
  check_sizes("randn", sizes);
  const Dtype dtype = options.dtype.value_or(default_dtype());
  check_floating("randn", dtype);
  Tensor t = empty_on(sizes, dtype, options);
  normal_impl("randn", t, 0.0, 1.0, options.generator);
  return finish(t, options);
}

Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, RandomOptions options) {
  OpScope scope("randint");
  check_sizes("randint", sizes);
  Tensor t = empty_on(sizes, options.dtype.value_or(kInt64), options);
  random_impl("randint", t, low, high, options.generator);
  return finish(t, options);
}

Tensor randint(int64_t high, IntArrayRef sizes, RandomOptions options) {
  return randint(0, high, sizes, options);
}

Tensor randperm(int64_t n, RandomOptions options) {
  OpScope scope("randperm");
  EMBER_CHECK(n >= 0, "randperm", "n must be non-negative, got ", n);
  const Dtype dtype = options.dtype.value_or(kInt64);
  Tensor t = empty_on({n}, dtype, options);
  const auto kernel = random_kernel_of("randperm", t, &RandomKernels::randperm);
  dispatch<DtypeSet::Numeric>(dtype, "randperm", [&]<class T>() {
    // Every value 0..n-1 must be exact in T.
    if constexpr (std::is_floating_point_v<T> || is_half_v<T>) {
      EMBER_CHECK(n <= (int64_t(1) << kDigits<T>)+1, "randperm", "n cannot be greater than ",
                  (int64_t(1) << kDigits<T>)+1, " for ", dtype);
    } else {
      EMBER_CHECK(n - 1 <= int64_t(std::numeric_limits<T>::max()), "randperm", "n=", n,
                  " is too large for dtype ", dtype);
    }
  });
  kernel(t, options.generator);
  return finish(t, options);
}

Tensor rand_like(const Tensor& t, RandomOptions options) {
  OpScope scope("rand_like", {&t});
  return rand(t.sizes(), like_options("rand_like", t, options));
}

Tensor randn_like(const Tensor& t, RandomOptions options) {
  OpScope scope("randn_like", {&t});
  return randn(t.sizes(), like_options("randn_like", t, options));
}

Tensor randint_like(const Tensor& t, int64_t low, int64_t high, RandomOptions options) {
  OpScope scope("randint_like", {&t});
  return randint(low, high, t.sizes(), like_options("randint_like", t, options));
}

}  // namespace ember
