// Winograd F(2x2, 3x3) convolution (src/backend/cpu/conv_winograd.cpp): float32 forward and
// grad_input on shapes that take it — odd output sizes (tiles overhang the edge), padding 0, 1,
// 2 and uneven, channel counts that fill no whole vector, one image and three, several chunks of
// tile rows — against float64, which runs the direct kernels (themselves checked against a
// naive convolution in tests/ops/conv_test.cpp); and the same bits with 1 and 2 threads.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <cstring>
#include <string>
#include <vector>

#include "backend/cpu/conv_winograd.h"

using namespace ember;
namespace F = ember::nn::functional;

namespace {

struct Case {
  const char* name;
  std::vector<int64_t> x;  // (N, C, H, W); weight (O, C, 3, 3)
  int64_t O, ph, pw;
};

const std::vector<Case> kCases = {
    {"odd_sizes_pad1", {3, 19, 13, 11}, 21, 1, 1},
    {"one_image_pad0", {1, 17, 15, 11}, 18, 0, 0},
    {"pad2", {3, 24, 7, 13}, 17, 2, 2},
    {"uneven_padding", {3, 20, 9, 12}, 16, 2, 0},
    {"several_chunks", {1, 16, 37, 29}, 24, 1, 1},  // 19 tile rows of 15: 4 chunks
    {"reference_cnn_layer", {2, 32, 14, 14}, 64, 1, 1},
};

int64_t out_size(int64_t in, int64_t pad) { return in + 2 * pad - 2; }

// The forward's shape and the forward convolution grad_input runs (conv.cpp's
// adjoint_as_forward: channels swapped, padding 2 - p).
cpu::WinogradShape forward_shape(const Case& c) {
  const int64_t Ho = out_size(c.x[2], c.ph), Wo = out_size(c.x[3], c.pw);
  return {c.x[0], c.x[1], c.x[2], c.x[3], c.O, Ho, Wo, c.ph, c.pw};
}
cpu::WinogradShape adjoint_shape(const Case& c) {
  const cpu::WinogradShape f = forward_shape(c);
  return {f.N, f.O, f.Ho, f.Wo, f.C, f.H, f.W, 2 - c.ph, 2 - c.pw};
}

// max |got - ref| / max |ref|: Winograd's error grows with the magnitude of a whole tile's
// inputs, not with each output's, so it is bounded relative to the largest output.
double relative_error(const Tensor& got, const Tensor& ref) {
  return (got.to(kFloat64) - ref).abs().max().item<double>() / ref.abs().max().item<double>();
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() &&
         std::memcmp(a.data_ptr(), b.data_ptr(), size_t(a.numel()) * sizeof(float)) == 0;
}

// A case's input, weight, bias and output gradient (randn), in `dtype`.
struct Inputs {
  Tensor x, w, b, g;
  Inputs to(Dtype dtype) const { return {x.to(dtype), w.to(dtype), b.to(dtype), g.to(dtype)}; }
};

Inputs random_inputs(const Case& c) {
  const cpu::WinogradShape s = forward_shape(c);
  return {randn(c.x), randn({c.O, c.x[1], 3, 3}), randn({c.O}), randn({s.N, s.O, s.Ho, s.Wo})};
}

struct Results {
  Tensor y, gx;
};

Results run(const Case& c, const Inputs& in) {
  const F::ConvFuncOptions o{.bias = in.b, .padding = {c.ph, c.pw}};
  auto [gx, gw, gb] = F::conv2d_backward(in.g, in.x, in.w, o);
  return {F::conv2d(in.x, in.w, o), gx};
}

}  // namespace

// The thresholds in winograd_wins: the cases above must take the Winograd path both ways; the
// reference CNN's first layer (1 -> 32) and its grad_input (32 -> 1) stay on the flat kernels,
// and so do images of fewer than 16 tiles. The batch size never decides (bfloat16 chunks of
// images depend on the thread count).
TEST(ConvWinograd, CasesTakeTheWinogradPath) {
  for (const Case& c : kCases) {
    EXPECT_TRUE(cpu::winograd_wins(forward_shape(c))) << c.name;
    EXPECT_TRUE(cpu::winograd_wins(adjoint_shape(c))) << c.name << " grad_input";
  }
  for (int64_t n : {1, 2, 64}) {
    EXPECT_FALSE(cpu::winograd_wins({n, 1, 28, 28, 32, 28, 28, 1, 1}));
    EXPECT_FALSE(cpu::winograd_wins({n, 32, 28, 28, 1, 28, 28, 1, 1}));
    EXPECT_TRUE(cpu::winograd_wins({n, 32, 14, 14, 64, 14, 14, 1, 1}));
    EXPECT_TRUE(cpu::winograd_wins({n, 64, 7, 7, 64, 7, 7, 1, 1}));
    EXPECT_FALSE(cpu::winograd_wins({n, 64, 5, 5, 64, 5, 5, 1, 1}));
  }
}

// F(2x2, 3x3) adds a few rounding steps per tile over a direct sum of 9 C products: on these
// sizes (C <= 32, randn data) its error was 1.6e-7 to 3.3e-7 of the largest output (float32's
// epsilon is 1.2e-7); 2e-6 leaves room for other vector widths and seeds, while a wrong
// transform coefficient or a misplaced tile (errors of order 1) fails.
TEST(ConvWinograd, MatchesTheDirectPathInFloat64) {
  manual_seed(21);
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const Inputs in = random_inputs(c);
    const Results r = run(c, in), ref = run(c, in.to(kFloat64));
    EXPECT_LE(relative_error(r.y, ref.y), 2e-6) << "forward";
    EXPECT_LE(relative_error(r.gx, ref.gx), 2e-6) << "grad_input";
  }
}

// Chunks of tile rows depend on the shape only: threads take different chunks, never different
// sums. With 2 threads a batch of 3 splits images and one image splits its chunks.
TEST(ConvWinograd, SameBitsWithOneAndTwoThreads) {
  manual_seed(22);
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const Inputs in = random_inputs(c);
    set_num_threads(1);
    const Results one = run(c, in);
    set_num_threads(2);
    const Results two = run(c, in);
    EXPECT_TRUE(same_bits(one.y, two.y)) << "forward";
    EXPECT_TRUE(same_bits(one.gx, two.gx)) << "grad_input";
  }
}
