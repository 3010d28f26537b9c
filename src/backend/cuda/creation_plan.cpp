// See creation_plan.h.
#include "backend/cuda/creation_plan.h"

#include "backend/creation_kernels.h"
#include "backend/cuda/copy_plan.h"
#include "backend/cuda/elementwise_plan.h"
#include "core/dispatch.h"

namespace ember::cuda {
namespace {

/// A range launch over t (contiguous, 1-D, a storage type of the kernels but bool) with the CPU
/// kernel's vector runs (backend/cpu/creation.cpp: runs of 32 bytes, in pairs) and a thread per
/// element.
kernels::RangeLaunch plan_range(kernels::RangeLaunch::Kind kind, const Tensor& t, const char* op) {
  EMBER_CHECK(t.dim() == 1 && t.is_contiguous(), op, "expected a contiguous 1-D output, got ",
              t.sizes());
  kernels::RangeLaunch l{};
  l.kind = kind;
  l.type = storage_type(t.dtype(), op);
  EMBER_CHECK(t.dtype() != kBool, op, "not implemented for dtype ", t.dtype());
  l.n = t.numel();
  l.lanes = 32 / t.element_size();
  l.vector_end = l.n / (2 * l.lanes) * (2 * l.lanes);
  l.out = static_cast<char*>(t.data_ptr());
  l.threads = kElementwiseThreads;
  l.blocks = grid_blocks(l.n);
  return l;
}

}  // namespace

kernels::RangeLaunch plan_arange_launch(const Tensor& t, Scalar start, Scalar step) {
  kernels::RangeLaunch l = plan_range(kernels::RangeLaunch::arange, t, "arange");
  dispatch<DtypeSet::Numeric>(t.dtype(), "arange", [&]<class T>() {
    using A = backend::arange_acc_t<T>;
    if constexpr (std::is_integral_v<T>) {
      l.int_start = start.to<A>();
      l.int_step = step.to<A>();
      l.vector_end = 0;  // the CPU computes every integer element alike
    } else {
      l.start = double(start.to<A>());
      l.step = double(step.to<A>());
    }
  });
  return l;
}

kernels::RangeLaunch plan_linspace_launch(const Tensor& t, Scalar start, Scalar end) {
  kernels::RangeLaunch l = plan_range(kernels::RangeLaunch::linspace, t, "linspace");
  const int64_t steps = l.n;
  EMBER_CHECK(steps >= 2, "linspace", "the kernel fills two or more steps, got ", steps);
  // The CPU kernel's endpoints and step (fill_linspace), in the type it computes them in.
  dispatch<DtypeSet::Numeric>(t.dtype(), "linspace", [&]<class T>() {
    if constexpr (is_half_v<T>) {
      const T a = start.to<T>(), b = end.to<T>();
      const T step = T(float(T(float(b) - float(a))) / float(T(float(steps - 1))));
      l.start = float(a), l.end = float(b), l.step = float(step);
    } else {
      using S = std::conditional_t<std::is_integral_v<T>, double, T>;
      const S a = S(start.to<T>()), b = S(end.to<T>());
      l.start = double(a), l.end = double(b), l.step = double((b - a) / S(steps - 1));
    }
  });
  return l;
}

kernels::RangeLaunch plan_logspace_launch(const Tensor& t, const Tensor& exponents, double base) {
  kernels::RangeLaunch l = plan_range(kernels::RangeLaunch::logspace, t, "logspace");
  EMBER_CHECK(
      exponents.dtype() == kFloat64 && exponents.is_contiguous() && exponents.numel() == t.numel(),
      "logspace", "expected contiguous float64 exponents of ", t.numel(), " elements, got ",
      exponents.dtype(), " ", exponents.sizes());
  l.exponents = exponents.data_ptr<double>();
  l.base = base;
  return l;
}

}  // namespace ember::cuda
