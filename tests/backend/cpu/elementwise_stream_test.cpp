// The elementwise loop's streaming stores (Note [Streaming stores] in backend/cpu/elementwise.h):
// an output at least stream_store_min_bytes() long is written past the cache from its first
// vector-aligned element, with the misaligned head and the tail as zero-padded vectors. Each
// element must come out exactly as on the normal path: outputs over the threshold, starting on
// every misalignment, with lengths that leave every tail, in place and not, on 1 and 2 threads,
// are compared bit for bit with the same op on short slices (below the threshold, not streamed).
#include <gtest/gtest.h>

#include <cstring>

#include "backend/cpu/elementwise.h"
#include "ember/ember.h"

namespace ember::test {
namespace {

// Elements of a float output just over the streaming threshold.
int64_t over_threshold() { return cpu::detail::stream_store_min_bytes() / 4 + 1000; }

// Whether `big` (streamed) equals `op` applied to short windows of `input` (not streamed),
// bit for bit, at windows spread over the whole length including both ends.
template <class Op>
void expect_same_as_windows(const Tensor& big, const Tensor& input, const Op& op) {
  const int64_t n = big.numel(), w = 4099;
  for (int64_t start : {int64_t(0), int64_t(1), n / 3, n / 2 - 7, n / 2 + 3, n - w}) {
    const Tensor expected = op(input.narrow(0, start, w).clone());
    ASSERT_LT(expected.nbytes(), cpu::detail::stream_store_min_bytes());
    const Tensor got = big.narrow(0, start, w).contiguous();
    ASSERT_EQ(std::memcmp(got.data_ptr(), expected.data_ptr(), size_t(w) * 4), 0)
        << "window at " << start << " of " << n;
  }
}

TEST(ElementwiseStream, UnaryAndBinaryOutputsOverTheThresholdMatchTheNormalPath) {
  const int before = get_num_threads();
  for (const int threads : {1, 2}) {
    set_num_threads(threads);
    for (const int64_t tail : {0, 5}) {
      const int64_t n = over_threshold() + tail;
      const Tensor x = randn({n}) * 3, y = randn({n});
      expect_same_as_windows(sigmoid(x), x, [](const Tensor& t) { return sigmoid(t); });
      expect_same_as_windows(gelu(x), x, [](const Tensor& t) { return gelu(t); });
      const Tensor sum = x + y;
      const float* px = x.data_ptr<float>();
      const float* py = y.data_ptr<float>();
      const float* ps = sum.data_ptr<float>();
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(ps[i], px[i] + py[i]) << i << " of " << n;
    }
  }
  set_num_threads(before);
}

// In place on an output that starts 1..7 floats past a vector boundary: the head is computed
// before anything is stored, so an element is never read after its own result was written.
TEST(ElementwiseStream, InPlaceOnMisalignedViewsOverTheThreshold) {
  const int64_t n = over_threshold() + 3;
  const Tensor x = randn({n}), y = randn({n});
  for (int64_t offset = 0; offset < 8; ++offset) {
    Tensor buffer = zeros({n + 8});
    Tensor out = buffer.narrow(0, offset, n);
    out.copy_(x);
    out.add_(y);
    const float* px = x.data_ptr<float>();
    const float* py = y.data_ptr<float>();
    const float* po = static_cast<const float*>(out.data_ptr());
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(po[i], px[i] + py[i]) << i << " offset " << offset;
    // Nothing outside the view was written.
    const float* pb = buffer.data_ptr<float>();
    for (int64_t i = 0; i < offset; ++i) ASSERT_EQ(pb[i], 0.0f);
    for (int64_t i = offset + n; i < n + 8; ++i) ASSERT_EQ(pb[i], 0.0f);

    out.copy_(x);
    out.sigmoid_();
    expect_same_as_windows(out, x, [](const Tensor& t) { return sigmoid(t); });
  }
}

}  // namespace
}  // namespace ember::test
