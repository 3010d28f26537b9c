// CPU kernels of the creation fills (src/ops/creation.cpp): zeros, and arange, linspace and
// logspace rounded as PyTorch 1.13's CPU kernels (Note [Range rounding]).
#include <cmath>
#include <cstring>

#include "backend/cpu/kernels.h"
#include "core/convert.h"
#include "core/dispatch.h"

namespace ember::cpu {
namespace {

using backend::arange_acc_t;

// Note [Range rounding]
// arange and linspace reproduce PyTorch 1.13's CPU kernels bit for bit. arange computes
// start + i*step in an accumulate type A (double for float/double, float for the half types,
// int64 for integers, whose bounds and step are truncated first) with one fused multiply-add.
// linspace computes in the element type (double for integers; the half types round after each
// operation, as c10::Half's operators do), counting up from start for the first half and down
// from end for the second, so both endpoints are exact. PyTorch writes contiguous output in runs
// of 2 x 32 bytes through vectors whose lanes are base + k*step, base being the run's first
// element already rounded to the element type, so those elements round differently from the
// scalar tail (float32 arange(0, 2, 0.1)[9] is 0x1.ccccce p-1, arange(0, 1, 0.1)[9] 0x1.cccccc
// p-1); ember reproduces both. Above 32768 elements PyTorch's runs also depend on its thread
// count, which ember does not follow. std::fma(x, y, -0.0) is a product rounded on its own,
// which the compiler may not fuse into a following addition.

template <class T>
constexpr int64_t vector_lanes() {
  return 32 / int64_t(sizeof(T));
}

// Fills p[0, n) with run(i, lanes) for PyTorch's vector runs and at(i) for the scalar tail.
template <class T, class Run, class At>
void fill_range(T* p, int64_t n, const Run& run, const At& at) {
  constexpr int64_t lanes = vector_lanes<T>();
  const int64_t vector_end = n / (2 * lanes) * (2 * lanes);
  int64_t i = 0;
  for (; i < vector_end; i += lanes) run(p + i, i);
  for (; i < n; ++i) p[i] = at(i);
}

template <class T>
void fill_arange(T* p, int64_t n, Scalar start, Scalar step) {
  using A = arange_acc_t<T>;
  const A a = start.to<A>(), st = step.to<A>();
  if constexpr (std::is_integral_v<T>) {
    for (int64_t i = 0; i < n; ++i)  // wraps like PyTorch's int64 arithmetic, without UB
      p[i] = convert<T>(int64_t(uint64_t(a) + uint64_t(st) * uint64_t(i)));
  } else {
    auto at = [&](int64_t i) { return convert<T>(std::fma(st, A(i), a)); };
    fill_range(p, n, [&](T* q, int64_t i) {
      const A base = A(at(i));
      for (int64_t k = 0; k < vector_lanes<T>(); ++k) q[k] = convert<T>(std::fma(A(k), st, base));
    }, at);
  }
}

template <class T>
void fill_linspace(T* p, int64_t steps, Scalar start, Scalar end) {
  const int64_t halfway = steps / 2;
  if constexpr (is_half_v<T>) {
    const T a = start.to<T>(), b = end.to<T>();
    const T step = T(float(T(float(b) - float(a))) / float(T(float(steps - 1))));
    auto times = [&](int64_t k) { return float(T(float(step) * float(T(float(k))))); };
    auto at = [&](int64_t i) {
      return i < halfway ? T(float(a) + times(i)) : T(float(b) - times(steps - i - 1));
    };
    fill_range(p, steps, [&](T* q, int64_t i) {
      const T base = at(i);
      for (int64_t k = 0; k < vector_lanes<T>(); ++k) q[k] = T(float(base) + times(k));
    }, at);
  } else {
    using S = std::conditional_t<std::is_integral_v<T>, double, T>;  // the step's type
    const S a = S(start.to<T>()), b = S(end.to<T>());
    const S step = (b - a) / S(steps - 1);
    auto at = [&](int64_t i) {
      return convert<T>(i < halfway ? std::fma(step, S(i), a)
                                    : std::fma(-step, S(steps - i - 1), b));
    };
    fill_range(p, steps, [&](T* q, int64_t i) {
      const S base = S(at(i));
      for (int64_t k = 0; k < vector_lanes<T>(); ++k)
        q[k] = convert<T>(base + std::fma(S(k), step, S(-0.0)));
    }, at);
  }
}

void zero_kernel(const Tensor& t) {
  if (t.nbytes()) std::memset(t.data_ptr(), 0, size_t(t.nbytes()));
}

void arange_kernel(const Tensor& t, Scalar start, Scalar step) {
  dispatch<DtypeSet::Numeric>(t.dtype(), "arange", [&]<class T>() {
    fill_arange(t.data_ptr<T>(), t.numel(), start, step);
  });
}

void linspace_kernel(const Tensor& t, Scalar start, Scalar end) {
  const int64_t steps = t.numel();
  dispatch<DtypeSet::Numeric>(t.dtype(), "linspace", [&]<class T>() {
    T* p = t.data_ptr<T>();
    if (steps == 1) p[0] = start.to<T>();
    if (steps > 1) fill_linspace(p, steps, start, end);
  });
}

void logspace_kernel(const Tensor& t, const Tensor& exponents, double base) {
  dispatch<DtypeSet::Numeric>(t.dtype(), "logspace", [&]<class T>() {
    const double* e = exponents.data_ptr<double>();
    T* p = t.data_ptr<T>();
    for (int64_t i = 0; i < t.numel(); ++i) p[i] = convert<T>(std::pow(base, e[i]));
  });
}

}  // namespace

void add_creation_kernels(backend::Backend& b) {
  b.creation.zero = &zero_kernel;
  b.creation.arange = &arange_kernel;
  b.creation.linspace = &linspace_kernel;
  b.creation.logspace = &logspace_kernel;
}

}  // namespace ember::cpu
