// The CUDA cumsum and cumprod kernels (src/backend/cuda/scan_body.cuh) run by their CPU emulation
// over launches planned as the device's are (scan_plan.cpp), against the CPU backend, without a
// GPU: along each dim of a 3-d tensor (lines `inner` apart), in every dtype the kernel takes, a
// grid smaller than the lines. The kernel accumulates as the CPU's does (double for the floating
// types, rounded once per output), so the results are its bits.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <string>

#include "backend/cuda/emulation.h"
#include "backend/cuda/scan_plan.h"
#include "test_support.h"

namespace ember::cuda {
namespace {

/// (4, 30, 5) values: near 1 for the floating types (products stay in range), -1, 1 or (every
/// 7th) 2 for the integers.
Tensor input(Dtype dtype) {
  const Tensor i = arange(4 * 30 * 5, {.dtype = kInt64});
  const Tensor t = is_floating_point(dtype)
                       ? (i.to(kFloat64) * 0.37).sin() * 0.3 + 1
                       : where(i % 7 == 3, full({}, 2, {.dtype = kInt64}), (i % 2) * 2 - 1);
  return t.reshape({4, 30, 5}).to(dtype);
}

Tensor scanned(const Tensor& x, int64_t dim, bool prod, uint32_t blocks = 0) {
  const Tensor y = empty_like(x);
  kernels::ScanLaunch l = plan_scan_launch(prod ? "cumprod" : "cumsum", y, x, dim, prod);
  if (blocks) l.blocks = blocks;
  kernels::emulate_scan(l);
  return y;
}

TEST(CudaScanPlan, CumsumAndCumprodAreTheCpusBits) {
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64}) {
    const Tensor x = input(dtype);
    for (const int64_t dim : {0, 1, 2}) {
      const std::string what = std::string(dtype_name(dtype)) + " dim " + std::to_string(dim);
      EXPECT_TRUE(scanned(x, dim, false).equal(x.cumsum(dim, dtype))) << what;
      EXPECT_TRUE(scanned(x, dim, true).equal(x.cumprod(dim, dtype))) << what;
    }
  }
}

// 120 lines of 5 in one block's grid-stride loop.
TEST(CudaScanPlan, AGridSmallerThanTheLinesCoversThem) {
  const Tensor x = input(kFloat32);
  EXPECT_TRUE(scanned(x, 2, false, 1).equal(x.cumsum(2)));
}

TEST(CudaScanPlan, DtypesWithoutAKernelAreRefused) {
  const Tensor b = zeros({4}, {.dtype = kBool}), i8 = zeros({4}, {.dtype = kInt8});
  EXPECT_ERROR(plan_scan_launch("cumsum", empty_like(b), b, 0, false), "no bool kernel yet");
  EXPECT_ERROR(plan_scan_launch("cumsum", empty_like(i8), i8, 0, false), "no int8 kernel yet");
}

}  // namespace
}  // namespace ember::cuda
