// Streams and events on a real device (src/backend/cuda/stream.cpp): the current stream and its
// guard, the stream pool, per-stream allocator pools, record_stream, event ordering and timing.
// Skips with
// "no CUDA device" on a machine without one.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <vector>

#include "test_support.h"

namespace ember {
namespace {

constexpr int64_t MiB = int64_t(1) << 20;

TEST(CudaStream, TheCurrentStreamIsTheDefaultOneUntilAGuard) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const cuda::Stream fallback = cuda::Stream::default_stream();
  EXPECT_EQ(fallback.handle(), nullptr);
  EXPECT_TRUE(cuda::current_stream() == fallback);
  const cuda::Stream s;
  EXPECT_FALSE(s == fallback);
  EXPECT_EQ(s.device(), Device(kCUDA, cuda::current_device()));
  {
    cuda::StreamGuard guard(s);
    EXPECT_TRUE(cuda::current_stream() == s);
    {
      const cuda::Stream inner;
      cuda::StreamGuard nested(inner);
      EXPECT_TRUE(cuda::current_stream() == inner);
    }
    EXPECT_TRUE(cuda::current_stream() == s);
  }
  EXPECT_TRUE(cuda::current_stream() == fallback);
}

TEST(CudaStream, NewStreamsComeFromAPoolOf32) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  std::vector<cuda::Stream> streams;
  for (int i = 0; i < 33; ++i) streams.emplace_back();
  for (int i = 1; i < 32; ++i) EXPECT_FALSE(streams[size_t(i)] == streams[0]) << i;
  EXPECT_TRUE(streams[32] == streams[0]);  // round-robin, as PyTorch's pool
}

TEST(CudaStream, FreedBlocksAreReusedOnlyOnTheirStream) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Device gpu("cuda:0");
  cuda::set_device(0);
  cuda::empty_cache();
  const cuda::Stream side(gpu);
  { cuda::StreamGuard guard(side); empty({3 * MiB / 4}, {.dtype = kFloat32, .device = gpu}); }
  const int64_t reserved = cuda::memory_reserved(gpu);
  // The side stream's cached segment is not handed to the default stream...
  { const Tensor t = empty({3 * MiB / 4}, {.dtype = kFloat32, .device = gpu}); }
  EXPECT_EQ(cuda::memory_reserved(gpu), reserved + 20 * MiB);
  // ...but is to its own stream again.
  {
    cuda::StreamGuard guard(side);
    const Tensor t = empty({3 * MiB / 4}, {.dtype = kFloat32, .device = gpu});
    EXPECT_EQ(cuda::memory_reserved(gpu), reserved + 20 * MiB);
  }
  cuda::empty_cache();
}

TEST(CudaStream, EventsOrderAndTimeTheWorkOfAStream) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const cuda::Stream s;
  cuda::Event start(/*enable_timing=*/true), end(/*enable_timing=*/true);
  EXPECT_FALSE(start.is_created());
  EXPECT_TRUE(start.query());  // never recorded: nothing to wait for
  start.record(s);
  EXPECT_TRUE(start.is_created());
  Tensor on_gpu;
  {
    cuda::StreamGuard guard(s);
    on_gpu = ones({16 * MiB}, {.dtype = kFloat32}).to(Device(kCUDA));  // 64 MiB on s
  }
  end.record(s);
  end.synchronize();
  EXPECT_TRUE(end.query());
  EXPECT_TRUE(s.query());
  EXPECT_GE(start.elapsed_time(end), 0.0f);
  // Another stream waits for s's work through an event, or through wait_stream.
  const cuda::Stream other;
  other.wait_event(end);
  other.wait_stream(s);
  other.synchronize();
  EXPECT_TRUE(other.query());
  cuda::Event untimed_a, untimed_b;
  untimed_a.record();
  untimed_b.record();
  EXPECT_ERROR(untimed_a.elapsed_time(untimed_b), "[cuda.Event.elapsed_time] both events must be "
                                                  "created with enable_timing = true");
  cuda::Event never(/*enable_timing=*/true);
  EXPECT_ERROR(start.elapsed_time(never), "both events must be recorded");
  cuda::Event moved(std::move(start));
  EXPECT_TRUE(moved.is_created());
  EXPECT_FALSE(start.is_created());  // NOLINT(bugprone-use-after-move): moved-from is empty
}

// Tensor::record_stream: a block allocated on the default stream and used by a side stream is
// not handed out again while the side stream's work queued before the free still runs (about
// 30 ms of copies here), and is once that work is done.
TEST(CudaStream, RecordStreamKeepsAFreedBlockUntilTheOtherStreamIsDone) {
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device on this machine";
  const Device gpu("cuda:0");
  cuda::set_device(0);
  cuda::synchronize();
  cuda::empty_cache();
  const cuda::Stream side(gpu);
  const void* block = nullptr;
  const Tensor src = full({64 * MiB}, 1.0f, {.device = gpu});  // 256 MiB, alive throughout
  {
    const Tensor t = empty({64 * MiB}, {.dtype = kFloat32, .device = gpu});
    block = t.data_ptr();
    cuda::synchronize();
    {
      const cuda::StreamGuard guard(side);
      for (int i = 0; i < 64; ++i) t.copy_(src);  // queued on the side stream, reading t's block
    }
    t.record_stream(side);
  }
  // Kept alive, so that the pending block is the only free one of its size afterwards.
  const Tensor again = empty({64 * MiB}, {.dtype = kFloat32, .device = gpu});
  EXPECT_NE(again.data_ptr(), block) << "reused while the side stream still used the block";
  side.synchronize();
  const Tensor later = empty({64 * MiB}, {.dtype = kFloat32, .device = gpu});
  EXPECT_EQ(later.data_ptr(), block);
  EXPECT_ERROR(arange(3).record_stream(side), "[record_stream] expected a CUDA tensor");
  cuda::synchronize();
}

}  // namespace
}  // namespace ember
