// A CPU-only build (src/backend/cuda/no_cuda.cpp, EMBER_CUDA=OFF): CUDA is reported absent, and
// every request for a CUDA device is one clear error that names the CMake option which builds
// CUDA in (the option's existence is checked by the no_cuda_names_an_existing_option test).
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

// PyTorch's CPU-only build: pin_memory() is refused (aten::_pin_memory has no kernel without
// CUDA) and nothing is pinned.
TEST(NoCuda, PinMemoryIsRefusedAndNothingIsPinned) {
  const Tensor t = arange(6.0).reshape({2, 3});
  EXPECT_FALSE(t.is_pinned());
  EXPECT_FALSE(t.t().is_pinned());
  EXPECT_ERROR(t.pin_memory(), "[pin_memory] ember was built without CUDA");
  EXPECT_ERROR(empty({0}).pin_memory(), "[pin_memory] ember was built without CUDA");
}

// torch.cuda's functions exist in a CPU-only build: they report no device, have no cache to
// empty, and everything that needs a device names the missing build option.
TEST(NoCuda, TheDeviceApiReportsNoDevice) {
  EXPECT_ERROR(cuda::current_device(), "[cuda.current_device] ember was built without CUDA");
  EXPECT_ERROR(cuda::set_device(0), "[cuda.set_device] ember was built without CUDA");
  EXPECT_ERROR(cuda::get_device_name(), "[cuda.get_device_name] ember was built without CUDA");
  EXPECT_ERROR(cuda::synchronize(Device("cuda:1")), "[cuda.synchronize] ember was built without");
  EXPECT_ERROR(cuda::Stream(), "[cuda.Stream] ember was built without CUDA");
  EXPECT_ERROR(cuda::Stream::default_stream(), "[cuda.default_stream] ember was built without");
  EXPECT_ERROR(cuda::current_stream(), "[cuda.current_stream] ember was built without CUDA");
  cuda::Event event(/*enable_timing=*/true);  // holds nothing until recorded
  EXPECT_FALSE(event.is_created());
  EXPECT_ERROR(event.record(), "[cuda.Event.record] ember was built without CUDA");
  EXPECT_ERROR(event.synchronize(), "[cuda.Event.synchronize] ember was built without CUDA");
  EXPECT_ERROR(event.elapsed_time(event), "[cuda.Event.elapsed_time] ember was built without");
  cuda::Event moved(std::move(event));
  EXPECT_FALSE(moved.is_created());
  EXPECT_ERROR(cuda::memory_allocated(), "[cuda.memory_allocated] ember was built without CUDA");
  EXPECT_ERROR(cuda::max_memory_allocated(), "[cuda.max_memory_allocated] ember was built");
  EXPECT_ERROR(cuda::memory_reserved(), "[cuda.memory_reserved] ember was built without CUDA");
  EXPECT_ERROR(cuda::max_memory_reserved(), "[cuda.max_memory_reserved] ember was built");
  EXPECT_ERROR(cuda::reset_peak_memory_stats(), "[cuda.reset_peak_memory_stats] ember was built");
  EXPECT_ERROR(cuda::memory_stats(Device("cuda:0")), "[cuda.memory_stats] ember was built");
  EXPECT_ERROR(cuda::memory_summary(), "[cuda.memory_summary] ember was built without CUDA");
  EXPECT_NO_THROW(cuda::empty_cache());  // nothing is cached without a device
}

TEST(NoCuda, TheMessageSaysHowToBuildCudaIn) {
  EXPECT_ERROR(zeros({2}, {.device = kCUDA}), "[cuda] ember was built without CUDA support; "
                                              "rebuild with -DEMBER_CUDA=ON");
  EXPECT_ERROR(cuda::synchronize(), "[cuda.synchronize] ember was built without CUDA support; "
                                    "rebuild with -DEMBER_CUDA=ON");
}

}  // namespace
}  // namespace ember
