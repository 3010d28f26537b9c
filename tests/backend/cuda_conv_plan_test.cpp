// The CUDA creation kernels (src/backend/cuda/creation_body.cuh), run by their CPU emulation
// over launches planned as the device's are, against the CPU backend's kernels, without a GPU:
// arange, linspace and logspace in every dtype the CUDA backend stores but bool, bit for bit
// with the CPU's (its vector runs and scalar tails, int64 wrap-around, linspace counting from
// both ends).
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/cuda/creation_plan.h"
#include "backend/cuda/emulation.h"
#include "cuda/op_support.h"
#include "test_support.h"

namespace ember::cuda {
namespace {

using backend::Conv2dParams;

const Dtype kFloating[] = {kFloat32, kFloat64, kFloat16, kBFloat16};
const Dtype kRangeDtypes[] = {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64};

/// a and b hold the same bits (equal() would take -0.0 for 0.0).
bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.sizes() != b.sizes()) return false;
  const Dtype bits = a.element_size() == 2 ? kInt16 : a.element_size() == 4 ? kInt32 : kInt64;
  return a.contiguous().view(bits).equal(b.contiguous().view(bits));
}

const backend::CreationKernels& cpu_creation() { return backend::backend_for(kCPU)->creation; }

// ── creation ──────────────────────────────────────────────────────────────────────────────────

TEST(CudaCreationPlan, ArangeMatchesTheCpuBitForBit) {
  struct Range {
    Scalar start, step;
    int64_t n;
  };
  const int64_t big = std::numeric_limits<int64_t>::max() - 5;
  const Range ranges[] = {
      {0.0, 0.1, 20},  // float32's vector runs round differently from its tail
      {0.0, 0.1, 10},  // a tail only
      {-3.7, 0.37, 1000},
      {5.0, -0.3, 77},
      {0.5, 1.3, 40},  // truncated to 0 and 1 for the integers
      {int64_t(3), int64_t(7), 100},
      {int64_t(-5), int64_t(-3), 33},
      {big, int64_t(3), 10},  // int64 wraps around; the floating types round the huge start
  };
  for (const Dtype dtype : kRangeDtypes)
    for (const Range& r : ranges) {
      const Tensor want = empty({r.n}, {.dtype = dtype}), got = empty({r.n}, {.dtype = dtype});
      cpu_creation().arange(want, r.start, r.step);
      kernels::emulate_range(plan_arange_launch(got, r.start, r.step));
      EXPECT_TRUE(same_bits(got, want))
          << dtype_name(dtype) << " arange from " << r.start.to_double() << " by "
          << r.step.to_double() << " x" << r.n;
    }
}

TEST(CudaCreationPlan, LinspaceMatchesTheCpuBitForBit) {
  const std::pair<double, double> bounds[] = {
      {0, 1}, {-2.5, 7.3}, {10, -3}, {1e-3, 1000}, {-7, 1000}};
  for (const Dtype dtype : kRangeDtypes)
    for (const auto& [start, end] : bounds)
      for (const int64_t steps : {2, 3, 17, 31, 32, 33, 64, 65, 100, 1001}) {
        const Tensor want = empty({steps}, {.dtype = dtype}), got = empty_like(want);
        cpu_creation().linspace(want, start, end);
        kernels::emulate_range(plan_linspace_launch(got, start, end));
        EXPECT_TRUE(same_bits(got, want))
            << dtype_name(dtype) << " linspace " << start << " .. " << end << " x" << steps;
      }
}

TEST(CudaCreationPlan, LogspaceMatchesTheCpuBitForBit) {
  for (const Dtype dtype : kRangeDtypes)
    for (const double base : {10.0, 2.0, 0.5})
      for (const int64_t steps : {5, 64, 101}) {
        const Tensor exponents = empty({steps}, {.dtype = kFloat64});
        cpu_creation().linspace(exponents, -3.0, 4.5);
        const Tensor want = empty({steps}, {.dtype = dtype}), got = empty_like(want);
        cpu_creation().logspace(want, exponents, base);
        kernels::emulate_range(plan_logspace_launch(got, exponents, base));
        EXPECT_TRUE(same_bits(got, want))
            << dtype_name(dtype) << " logspace base " << base << " x" << steps;
      }
}

TEST(CudaCreationPlan, DtypesWithoutAKernelAreRefused) {
  EXPECT_ERROR(plan_arange_launch(empty({4}, {.dtype = kUInt8}), 0, 1), "the cuda backend has no");
  EXPECT_ERROR(plan_arange_launch(empty({4}, {.dtype = kBool}), 0, 1), "not implemented for dtype");
  EXPECT_ERROR(plan_linspace_launch(empty({1}), 0, 1), "two or more steps");
  EXPECT_ERROR(plan_logspace_launch(empty({4}), empty({4}), 10), "float64 exponents");
}

}  // namespace
}  // namespace ember::cuda
