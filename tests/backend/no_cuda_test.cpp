// A CPU-only build (src/backend/no_cuda, EMBER_CUDA=OFF): CUDA is reported absent, and every
// request for a CUDA device is one clear error that names the CMake option which builds CUDA in
// (the option's existence is checked by the no_cuda_names_an_existing_option test).
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <string>

#include "test_support.h"

namespace ember {
namespace {

TEST(NoCuda, CudaInACpuOnlyBuild) {
  ASSERT_FALSE(cuda::is_available());
  EXPECT_EQ(cuda::device_count(), 0);
  EXPECT_ERROR(zeros({2}, {.device = kCUDA}), "ember was built without CUDA");
  EXPECT_ERROR(zeros({2}, {.device = Device("cuda:1")}), "ember was built without CUDA");
  EXPECT_ERROR(tensor({1, 2}, {.device = kCUDA}), "ember was built without CUDA");
  EXPECT_ERROR(arange(3, {.device = kCUDA}), "ember was built without CUDA");
  Tensor t = arange(3);
  EXPECT_ERROR(t.to(kCUDA), "ember was built without CUDA");
  EXPECT_ERROR(t.cuda(), "ember was built without CUDA");
  EXPECT_ERROR(t.to(Device("cuda:0"), kFloat32), "ember was built without CUDA");
  EXPECT_ERROR(cuda::synchronize(), "ember was built without CUDA");
  EXPECT_TRUE(t.cpu().is_same(t));
}

TEST(NoCuda, TheMessageSaysHowToBuildCudaIn) {
  EXPECT_ERROR(zeros({2}, {.device = kCUDA}), "[cuda] ember was built without CUDA support; "
                                              "rebuild with -DEMBER_CUDA=ON");
  EXPECT_ERROR(cuda::synchronize(), "[cuda.synchronize] ember was built without CUDA support; "
                                    "rebuild with -DEMBER_CUDA=ON");
}

}  // namespace
}  // namespace ember
