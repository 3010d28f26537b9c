// A CUDA build (src/backend/cuda, -DEMBER_CUDA=ON): device queries, memory and copies through the
// CUDA runtime. On a machine without a driver or a GPU there are no devices, as in PyTorch, and
// each request for one is an ember::Error with cudart's reason; with a GPU, bytes make the round
// trip host -> device -> device -> host. Each test that needs a GPU skips with "no CUDA device"
// on a machine without one (CTest reports it as skipped).
#include "backend/backend.h"

#include <ember/ember.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_support.h"

namespace ember {
namespace {

TEST(Cuda, TheCudaBackendIsInstalledWithMemoryAndItsKernels) {
  const backend::Backend* b = backend::backend_for(kCUDA);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(std::string(b->name), "cuda");
  EXPECT_NE(b->allocate, nullptr);
  EXPECT_NE(b->free, nullptr);
  EXPECT_NE(b->elementwise[size_t(backend::ElementwiseKernel::add)], nullptr);
  EXPECT_NE(b->elementwise[size_t(backend::ElementwiseKernel::exp)], nullptr);
  EXPECT_EQ(b->elementwise[size_t(backend::ElementwiseKernel::floor)], nullptr);  // not yet
  // The copy family (converting, strided copies; fills; zeros), reductions, softmax and gemm.
  EXPECT_NE(b->copy, nullptr);
  EXPECT_NE(b->fill, nullptr);
  EXPECT_NE(b->creation.zero, nullptr);
  EXPECT_NE(b->reduce.sum, nullptr);
  EXPECT_NE(b->reduce.amax, nullptr);
  EXPECT_EQ(b->reduce.prod, nullptr);  // not yet
  EXPECT_NE(b->softmax.log_softmax, nullptr);
  EXPECT_NE(b->linalg.gemm, nullptr);
}

TEST(Cuda, WithoutADeviceEachRequestIsAClearError) {
  if (cuda::device_count() > 0) GTEST_SKIP() << "this machine has a CUDA device";
  EXPECT_FALSE(cuda::is_available());
  EXPECT_ERROR(zeros({2}, {.device = kCUDA}), "[cuda.allocate] cannot use cuda: no CUDA device");
  EXPECT_ERROR(empty({2}, {.device = Device("cuda:1")}),
               "[cuda.allocate] cannot use cuda:1: no CUDA device is available (CUDA error: ");
  EXPECT_ERROR(arange(3).cuda(), "no CUDA device is available");
  EXPECT_ERROR(cuda::synchronize(), "[cuda.synchronize] cannot use cuda: no CUDA device");
  EXPECT_ERROR(cuda::current_device(), "[cuda.current_device] cannot use cuda: no CUDA device");
  EXPECT_ERROR(cuda::set_device(0), "[cuda.set_device] cannot use cuda:0: no CUDA device");
  EXPECT_ERROR(cuda::get_device_name(), "[cuda.get_device_name] cannot use cuda: no CUDA device");
  EXPECT_ERROR(cuda::Stream(), "[cuda.Stream] cannot use cuda: no CUDA device");
  EXPECT_ERROR(cuda::current_stream(), "[cuda.current_stream] cannot use cuda: no CUDA device");
  cuda::Event event;
  EXPECT_ERROR(event.record(), "cannot use cuda: no CUDA device");
  EXPECT_TRUE(event.query());  // never recorded: nothing to wait for
  EXPECT_ERROR(cuda::memory_allocated(), "[cuda.memory_allocated] cannot use cuda: no CUDA device");
  EXPECT_ERROR(cuda::memory_summary(), "[cuda.memory_summary] cannot use cuda: no CUDA device");
  EXPECT_NO_THROW(cuda::empty_cache());  // no device, nothing cached
  // an empty tensor needs no memory, so none is asked for
  EXPECT_NO_THROW(empty({0}, {.device = Device("cuda:0")}));
}

TEST(Cuda, DeviceQueries) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  EXPECT_TRUE(cuda::is_available());
  const int count = cuda::device_count();
  const int current = cuda::current_device();
  EXPECT_GE(current, 0);
  EXPECT_LT(current, count);
  EXPECT_FALSE(cuda::get_device_name().empty());
  EXPECT_EQ(cuda::get_device_name(), cuda::get_device_name(current));
  cuda::set_device(count - 1);
  EXPECT_EQ(cuda::current_device(), count - 1);
  cuda::set_device(current);
  EXPECT_ERROR(cuda::set_device(count), "[cuda.set_device] invalid device cuda:");
  EXPECT_ERROR(cuda::get_device_name(count), "invalid device");
  EXPECT_NO_THROW(cuda::synchronize());
  EXPECT_NO_THROW(cuda::synchronize(Device(kCUDA, count - 1)));
}

TEST(Cuda, BytesMakeTheRoundTrip) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Tensor host = arange(6, {.dtype = kFloat32}).reshape({2, 3});
  const Tensor on_gpu = host.to(Device("cuda:0"));
  EXPECT_EQ(on_gpu.device(), Device("cuda:0"));
  EXPECT_EQ(on_gpu.sizes(), host.sizes());
  Tensor second = empty({2, 3}, {.device = Device("cuda:0")});
  second.copy_(on_gpu);  // device to device: contiguous, one dtype
  cuda::synchronize();
  const Tensor back = second.cpu();
  EXPECT_EQ(back.tolist<float>(), host.tolist<float>());
  EXPECT_ERROR(on_gpu.floor(), "[floor] no kernel for cuda:0: the cuda backend does not implement");
  EXPECT_ERROR(empty({1}, {.device = Device(kCUDA, cuda::device_count())}), "invalid device");
}

}  // namespace
}  // namespace ember
