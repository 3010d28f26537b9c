// Convolutions (conv1d/2d, conv_transpose1d/2d) and their backward kernels against PyTorch 1.13
// (golden/conv.json): every option, groups and depthwise, "same" with even kernels, unbatched,
// non-contiguous, float64/bfloat16/float16, gradients. Then every kernel path (direct, im2col +
// GEMM with row blocks, pointwise; images split over threads or not) against a naive float64
// convolution at sizes too big for golden files, and PyTorch's error messages.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <string>
#include <vector>

#include "ops/conv_golden.h"

using namespace ember;
using namespace conv_golden;

namespace {

F::ConvPadding conv_padding(const json& args) {
  if (!args.contains("padding")) return 0;
  const json& v = args["padding"];
  if (v.is_string()) return F::ConvPadding(v.get<std::string>());
  if (v.is_array()) return F::ConvPadding(v.get<std::vector<int64_t>>());
  return F::ConvPadding(v.get<int64_t>());
}

F::ConvFuncOptions conv_options(const json& a, const std::vector<Tensor>& xs) {
  return {.bias = xs.size() > 2 ? xs[2] : Tensor(),
          .stride = int_or_list(a, "stride", 1),
          .padding = conv_padding(a),
          .dilation = int_or_list(a, "dilation", 1),
          .groups = a.value("groups", int64_t(1))};
}

F::ConvTransposeFuncOptions transpose_options(const json& a, const std::vector<Tensor>& xs) {
  return {.bias = xs.size() > 2 ? xs[2] : Tensor(),
          .stride = int_or_list(a, "stride", 1),
          .padding = int_or_list(a, "padding", 0),
          .output_padding = int_or_list(a, "output_padding", 0),
          .groups = a.value("groups", int64_t(1)),
          .dilation = int_or_list(a, "dilation", 1)};
}

Tensor run_forward(const std::string& op, const std::vector<Tensor>& xs, const json& a) {
  if (op == "conv1d") return F::conv1d(xs[0], xs[1], conv_options(a, xs));
  if (op == "conv2d") return F::conv2d(xs[0], xs[1], conv_options(a, xs));
  if (op == "conv_transpose1d") return F::conv_transpose1d(xs[0], xs[1], transpose_options(a, xs));
  if (op == "conv_transpose2d") return F::conv_transpose2d(xs[0], xs[1], transpose_options(a, xs));
  throw std::runtime_error("no forward for " + op);
}

std::tuple<Tensor, Tensor, Tensor> run_backward(const std::string& op, const Tensor& grad,
                                                const std::vector<Tensor>& xs, const json& a) {
  if (op == "conv1d") return F::conv1d_backward(grad, xs[0], xs[1], conv_options(a, xs));
  if (op == "conv2d") return F::conv2d_backward(grad, xs[0], xs[1], conv_options(a, xs));
  if (op == "conv_transpose2d")
    return F::conv_transpose2d_backward(grad, xs[0], xs[1], transpose_options(a, xs));
  throw std::runtime_error("no backward for " + op);
}

TEST(Conv, MatchesPyTorch) {
  const auto all = cases({"conv"});
  ASSERT_GT(all.size(), 30u);
  for (const json& c : all) {
    const std::string what = c["op"].get<std::string>() + "/" + c["name"].get<std::string>();
    SCOPED_TRACE(what);
    const auto xs = inputs(c);
    expect_close(run_forward(c["op"], xs, c["args"]), c["out"], what);
  }
}

TEST(Conv, BackwardMatchesPyTorch) {
  int checked = 0;
  for (const json& c : cases({"conv"})) {
    if (!c.contains("grad") || c["op"] == "conv_transpose1d") continue;
    const std::string what = c["op"].get<std::string>() + "/" + c["name"].get<std::string>();
    SCOPED_TRACE(what);
    const auto xs = inputs(c);
    const auto [gi, gw, gb] =
        run_backward(c["op"], golden_tensor(c["grad"]["grad_output"]), xs, c["args"]);
    expect_close(gi, c["grad"]["input"], what + " grad_input");
    expect_close(gw, c["grad"]["weight"], what + " grad_weight");
    if (c["grad"].contains("bias"))
      expect_close(gb, c["grad"]["bias"], what + " grad_bias");
    else
      EXPECT_FALSE(gb.defined());
    ++checked;
  }
  EXPECT_GT(checked, 20);
}

// ── a naive float64 convolution, for sizes that golden files cannot hold ──────
struct Geo {
  int64_t s[2], p[2], d[2], g;
};

// out (N, O, Ho, Wo) from x (N, C, H, W), w (O, C/g, kh, kw), b (O) or undefined.
Tensor naive_conv2d(const Tensor& x, const Tensor& w, const Tensor& b, const Geo& q) {
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  const int64_t O = w.size(0), kh = w.size(2), kw = w.size(3), Cg = C / q.g, Og = O / q.g;
  const int64_t Ho = (H + 2 * q.p[0] - q.d[0] * (kh - 1) - 1) / q.s[0] + 1;
  const int64_t Wo = (W + 2 * q.p[1] - q.d[1] * (kw - 1) - 1) / q.s[1] + 1;
  const auto xv = x.to(kFloat64).contiguous().tolist<double>();
  const auto wv = w.to(kFloat64).contiguous().tolist<double>();
  std::vector<double> bv = b.defined() ? b.to(kFloat64).tolist<double>() : std::vector<double>(O);
  std::vector<double> out(size_t(N * O * Ho * Wo));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t y = 0; y < Ho; ++y)
        for (int64_t xo = 0; xo < Wo; ++xo) {
          double s = bv[o];
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j) {
                const int64_t iy = y * q.s[0] - q.p[0] + i * q.d[0];
                const int64_t ix = xo * q.s[1] - q.p[1] + j * q.d[1];
                if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                s += wv[((o * Cg + c) * kh + i) * kw + j] *
                     xv[((n * C + o / Og * Cg + c) * H + iy) * W + ix];
              }
          out[((n * O + o) * Ho + y) * Wo + xo] = s;
        }
  return from_vector(out, std::vector<int64_t>{N, O, Ho, Wo});
}

void expect_near_ref(const Tensor& got, const Tensor& ref, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(got.sizes().vec(), ref.sizes().vec());
  const double scale = std::max(1.0, ref.abs().max().item<double>());
  const double err = (got.to(kFloat64) - ref).abs().max().item<double>();
  EXPECT_LE(err, 2e-5 * scale) << what;
}

struct PathCase {
  const char* name;
  std::vector<int64_t> x, w;
  Geo q;
};

// Shapes chosen to reach each kernel path (see Note [Convolution algorithms]).
const std::vector<PathCase> kPaths = {
    // Stride 1 with a short reduction goes to the flat kernels, stride 2 to the direct one.
    {"flat_cin1", {8, 1, 28, 28}, {32, 1, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}},
    {"flat_cin1_one_image", {1, 1, 30, 45}, {13, 1, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}},
    {"direct_cin1_one_image", {1, 1, 30, 45}, {13, 1, 3, 3}, {{2, 2}, {1, 1}, {1, 1}, 1}},
    {"direct_cin1_stride2_5x5", {3, 1, 33, 40}, {6, 1, 5, 5}, {{2, 2}, {2, 2}, {1, 1}, 1}},
    {"direct_stride3_dilated", {2, 1, 31, 50}, {5, 1, 3, 3}, {{2, 3}, {1, 2}, {2, 2}, 1}},
    {"flat_depthwise", {4, 16, 20, 21}, {16, 1, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 16}},
    {"direct_depthwise", {4, 16, 20, 21}, {16, 1, 3, 3}, {{2, 1}, {1, 1}, {1, 1}, 16}},
    {"direct_depthwise_one_image", {1, 6, 17, 35}, {12, 1, 3, 3}, {{2, 2}, {1, 1}, {1, 1}, 6}},
    {"flat_few_outputs", {2, 9, 12, 12}, {2, 9, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}},
    {"direct_few_outputs_strided", {2, 9, 12, 12}, {2, 9, 3, 3}, {{2, 2}, {1, 1}, {1, 1}, 1}},
    {"gemm_split_images", {8, 32, 14, 14}, {64, 32, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}},
    {"gemm_odd_batch", {3, 8, 15, 13}, {12, 8, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}},
    {"gemm_row_blocks", {1, 64, 40, 41}, {8, 64, 3, 3}, {{1, 1}, {1, 1}, {1, 1}, 1}},
    {"gemm_row_blocks_strided", {2, 48, 45, 47}, {16, 48, 3, 5}, {{2, 3}, {1, 2}, {1, 1}, 1}},
    {"gemm_groups", {5, 12, 11, 11}, {24, 4, 3, 3}, {{1, 2}, {2, 1}, {1, 2}, 3}},
    // Stride 1, K > 16: the flat kernels (Note [Flat direct convolution], [Flat weight
    // gradient]) with output channels and taps that fill no whole tile, dilation, groups.
    {"flat_odd_sizes", {4, 19, 9, 11}, {13, 19, 3, 3}, {{1, 1}, {1, 1}, {1, 2}, 1}},
    {"flat_groups", {4, 36, 8, 9}, {10, 18, 3, 3}, {{1, 1}, {1, 0}, {1, 1}, 2}},
    // Output as wide as the input: rows wrap (Note [Wrapped rows]), one copy per column offset.
    {"flat_wrapped_dilated", {3, 20, 10, 7}, {9, 20, 3, 3}, {{1, 1}, {1, 2}, {1, 2}, 1}},
    {"flat_wrapped_groups", {2, 34, 6, 5}, {8, 17, 3, 5}, {{1, 1}, {1, 2}, {1, 1}, 2}},
    {"pointwise", {4, 24, 9, 10}, {20, 24, 1, 1}, {{1, 1}, {0, 0}, {1, 1}, 1}},
    {"pointwise_groups_one_image", {1, 24, 9, 10}, {8, 12, 1, 1}, {{1, 1}, {0, 0}, {1, 1}, 2}},
};

TEST(Conv, EveryKernelPathMatchesNaive) {
  manual_seed(7);
  for (const PathCase& pc : kPaths) {
    for (int threads : {1, 2}) {
      set_num_threads(threads);
      const std::string what = std::string(pc.name) + " threads=" + std::to_string(threads);
      const Tensor x = randn(pc.x), w = randn(pc.w), b = randn({pc.w[0]});
      const Geo& q = pc.q;
      const F::ConvFuncOptions o{.bias = b,
                                 .stride = {q.s[0], q.s[1]},
                                 .padding = {q.p[0], q.p[1]},
                                 .dilation = {q.d[0], q.d[1]},
                                 .groups = q.g};
      expect_near_ref(F::conv2d(x, w, o), naive_conv2d(x, w, b, q), what);
      // float64 runs the same paths with 8-wide vectors.
      const Tensor xd = x.to(kFloat64), wd = w.to(kFloat64), bd = b.to(kFloat64);
      expect_near_ref(F::conv2d(xd, wd, {.bias = bd, .stride = o.stride, .padding = o.padding,
                                         .dilation = o.dilation, .groups = q.g}),
                      naive_conv2d(x, w, b, q), what + " float64");
    }
  }
  set_num_threads(2);
}

// The adjoint identity <conv(x), g> == <x, conv_backward_input(g)> and <w, grad_w> likewise
// checks grad_input and grad_weight on every path without a reference implementation.
TEST(Conv, BackwardIsTheAdjointOnEveryPath) {
  manual_seed(11);
  for (const PathCase& pc : kPaths) {
    for (int threads : {1, 2}) {
      set_num_threads(threads);
      const std::string what = std::string(pc.name) + " threads=" + std::to_string(threads);
      SCOPED_TRACE(what);
      const Tensor x = randn(pc.x, {.dtype = kFloat64}), w = randn(pc.w, {.dtype = kFloat64});
      const Geo& q = pc.q;
      const F::ConvFuncOptions o{.stride = {q.s[0], q.s[1]},
                                 .padding = {q.p[0], q.p[1]},
                                 .dilation = {q.d[0], q.d[1]},
                                 .groups = q.g};
      const Tensor y = F::conv2d(x, w, o);
      const Tensor g = randn(y.sizes().vec(), {.dtype = kFloat64});
      const auto [gx, gw, gb] = F::conv2d_backward(g, x, w, o);
      EXPECT_FALSE(gb.defined());
      const double lhs = (y * g).sum().item<double>();
      EXPECT_NEAR((x * gx).sum().item<double>(), lhs, 1e-9 * std::max(1.0, std::abs(lhs)));
      EXPECT_NEAR((w * gw).sum().item<double>(), lhs, 1e-9 * std::max(1.0, std::abs(lhs)));
    }
  }
  set_num_threads(2);
}

// float32 gradients on every path (other vector widths and tiles than float64's) against the
// float64 ones checked above.
TEST(Conv, Float32BackwardMatchesFloat64OnEveryPath) {
  manual_seed(5);
  for (const PathCase& pc : kPaths) {
    for (int threads : {1, 2}) {
      set_num_threads(threads);
      const std::string what = std::string(pc.name) + " threads=" + std::to_string(threads);
      const Tensor x = randn(pc.x), w = randn(pc.w);
      const Geo& q = pc.q;
      const F::ConvFuncOptions o{.stride = {q.s[0], q.s[1]},
                                 .padding = {q.p[0], q.p[1]},
                                 .dilation = {q.d[0], q.d[1]},
                                 .groups = q.g};
      const Tensor g = randn(F::conv2d(x, w, o).sizes().vec());
      const auto [gx, gw, gb] = F::conv2d_backward(g, x, w, o);
      const auto [gx64, gw64, gb64] =
          F::conv2d_backward(g.to(kFloat64), x.to(kFloat64), w.to(kFloat64), o);
      expect_near_ref(gx, gx64, what + " grad_input");
      expect_near_ref(gw, gw64, what + " grad_weight");
    }
  }
  set_num_threads(2);
}

TEST(Conv, TransposeIsTheInputGradient) {
  manual_seed(3);
  const Tensor x = randn({3, 6, 9, 8}), w = randn({4, 3, 3, 2});
  const F::ConvFuncOptions o{.stride = {2, 1}, .padding = {1, 0}, .dilation = {1, 2}, .groups = 2};
  const Tensor g = randn(F::conv2d(x, w, o).sizes().vec());
  const Tensor gx = std::get<0>(F::conv2d_backward(g, x, w, o));
  // (9 + 2 - 2 - 1) / 2 + 1 = 5 rows out; back through the transpose: (5 - 1) * 2 - 2 + 2 + 1 = 9.
  const Tensor t = F::conv_transpose2d(
      g, w, {.stride = {2, 1}, .padding = {1, 0}, .output_padding = {0, 0}, .groups = 2,
             .dilation = {1, 2}});
  ASSERT_EQ(t.sizes().vec(), x.sizes().vec());
  EXPECT_LE((t - gx).abs().max().item<double>(), 1e-5);
  // output_padding adds the row that stride 2 cannot tell apart.
  const Tensor t1 = F::conv_transpose2d(
      g, w, {.stride = {2, 1}, .padding = {1, 0}, .output_padding = {1, 0}, .groups = 2,
             .dilation = {1, 2}});
  EXPECT_EQ(t1.size(2), 10);
  EXPECT_LE((t1.narrow(2, 0, 9) - gx).abs().max().item<double>(), 1e-5);
}

// A convolution whose input needs no gradient (a network's first layer, fed data) computes no
// grad_input, as PyTorch's output_mask skips it: its backward allocates nothing the size of the
// input, and grad_weight is the same as when grad_input is computed.
TEST(Conv, BackwardSkipsGradientsNotNeeded) {
  manual_seed(4);
  const Tensor x = randn({16, 64, 16, 16});  // 1 MiB, 8x the output
  const Tensor w = randn({8, 64, 1, 1}).requires_grad_();
  auto backward_peak = [&](const Tensor& input) {
    const Tensor loss = F::conv2d(input, w).sum();
    const size_t before = cpu::allocator_stats().allocated_bytes;
    cpu::reset_peak_allocated_bytes();
    loss.backward();
    return cpu::allocator_stats().peak_allocated_bytes - before;
  };
  const size_t input_bytes = size_t(x.numel()) * 4;
  EXPECT_LT(backward_peak(x), input_bytes / 2);
  const Tensor gw = w.grad().clone();
  w.grad().zero_();
  const Tensor xg = x.detach().requires_grad_();
  EXPECT_GE(backward_peak(xg), input_bytes);
  EXPECT_TRUE(xg.grad().defined());
  EXPECT_TRUE(w.grad().equal(gw));
  // A frozen weight: grad_input only, also through the differentiable (create_graph) form.
  const Tensor wf = w.detach();
  const Tensor y = F::conv2d(xg, wf);
  const Tensor gi = autograd::grad({y.sum()}, {xg}, {.create_graph = true})[0];
  const Tensor want = std::get<0>(F::conv2d_backward(ones(y.sizes().vec()), x, wf, {}));
  EXPECT_LE((gi - want).abs().max().item<double>(), 1e-4);
}

TEST(Conv, OptionSpellings) {
  const Tensor x = ones({1, 2, 5, 5}), w = ones({3, 2, 3, 3}), b = zeros({3});
  EXPECT_EQ(F::conv2d(x, w, {.bias = b, .stride = 1, .padding = 1, .dilation = 1, .groups = 1})
                .sizes().vec(), (std::vector<int64_t>{1, 3, 5, 5}));
  EXPECT_EQ(F::conv2d(x, w, {.padding = "same"}).sizes().vec(), (std::vector<int64_t>{1, 3, 5, 5}));
  EXPECT_EQ(F::conv2d(x, w, {.padding = "valid"}).sizes().vec(),
            (std::vector<int64_t>{1, 3, 3, 3}));
  EXPECT_EQ(F::conv2d(x, w, {.stride = {2, 1}, .padding = {0, 1}}).sizes().vec(),
            (std::vector<int64_t>{1, 3, 2, 5}));
  EXPECT_EQ(F::conv2d(x, w, {.padding = 0}).sizes().vec(), (std::vector<int64_t>{1, 3, 3, 3}));
  EXPECT_EQ(F::conv2d(x, w).sizes().vec(), (std::vector<int64_t>{1, 3, 3, 3}));
  // Every output of an all-ones 3x3x2 window is 18 inside, fewer at the padded border.
  EXPECT_EQ(F::conv2d(x, w, {.padding = 1}).index({0, 0, 2, 2}).item<float>(), 18.0f);
  EXPECT_EQ(F::conv2d(x, w, {.padding = 1}).index({0, 0, 0, 0}).item<float>(), 8.0f);
}

TEST(Conv, Errors) {
  const Tensor x = randn({2, 3, 8, 8});
  expect_error([] { F::conv2d(randn({128, 1, 28, 28}), randn({32, 3, 3, 3})); },
               "Given groups=1, weight of size [32, 3, 3, 3], expected input[128, 1, 28, 28] to "
               "have 3 channels, but got 1 channels instead");
  expect_error([&] { F::conv2d(x, randn({4, 3, 3, 3}), {.groups = 2}); },
               "Given groups=2, weight of size [4, 3, 3, 3], expected input[2, 3, 8, 8] to have 6 "
               "channels, but got 3 channels instead");
  expect_error([] { F::conv2d(randn({3, 8}), randn({4, 3, 3, 3})); },
               "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
               "[3, 8]");
  expect_error([&] { F::conv1d(x, randn({4, 3, 3})); },
               "Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: "
               "[2, 3, 8, 8]");
  expect_error([&] { F::conv2d(x, randn({4, 3, 3})); }, "-dimensional weight");
  expect_error([&] { F::conv2d(x, randn({4, 3, 3, 3}), {.groups = 0}); },
               "non-positive groups is not supported");
  expect_error([&] { F::conv2d(x, randn({4, 3, 3, 3}), {.stride = 0}); },
               "non-positive stride is not supported");
  expect_error([&] { F::conv2d(x, randn({4, 3, 3, 3}), {.padding = -1}); },
               "negative padding is not supported");
  expect_error([&] { F::conv2d(x, randn({4, 3, 3, 3}), {.dilation = 0}); },
               "non-positive dilation is not supported");
  expect_error([&] { F::conv2d(x, randn({4, 3, 9, 9})); },
               "Calculated padded input size per channel: (8 x 8). Kernel size: (9 x 9). Kernel "
               "size can't be greater than actual input size");
  expect_error([&] { F::conv2d(x, randn({4, 3, 3, 3}), {.bias = randn({5})}); },
               "Given weight of size [4, 3, 3, 3], expected bias to be 1-dimensional with 4 "
               "elements, but got bias of size [5] instead");
  expect_error([&] { F::conv2d(x, randn({4, 3, 3, 3}), {.stride = 2, .padding = "same"}); },
               "padding='same' is not supported for strided convolutions");
  expect_error([&] { F::conv2d(x, randn({4, 3, 3, 3}), {.padding = "foo"}); },
               "Invalid padding string: 'foo'");
  expect_error([&] { F::conv2d(x, randn({4, 3, 3, 3}), {.stride = {1, 2, 3}}); },
               "expected stride to be a single integer value or a list of 2 values to match the "
               "convolution dimensions, but got stride=[1, 2, 3]");
  expect_error([&] { F::conv2d(x, randn({4, 3, 3, 3}, {.dtype = kFloat64})); },
               "Input type (torch.float32) and weight type (torch.float64) should be the same");
  expect_error([&] { F::conv2d(x.to(kInt64), randn({4, 3, 3, 3}).to(kInt64)); },
               "not implemented for dtype torch.int64");
  expect_error([&] { F::conv2d(x, randn({5, 1, 3, 3}), {.groups = 3}); },
               "Given groups=3, expected weight to be divisible by 3 at dimension 0, but got "
               "weight of size [[5, 1, 3, 3]] instead");
  expect_error([&] { F::conv_transpose2d(x, randn({3, 2, 3, 3}), {.output_padding = 2}); },
               "output padding must be smaller than either stride or dilation, but got "
               "output_padding_height: 2 output_padding_width: 2 stride_height: 1 stride_width: 1 "
               "dilation_height: 1 dilation_width: 1");
  expect_error([&] { F::conv_transpose2d(x, randn({4, 2, 3, 3})); },
               "Given transposed=1, weight of size [4, 2, 3, 3], expected input[2, 3, 8, 8] to "
               "have 4 channels, but got 3 channels instead");
  expect_error([&] { F::conv_transpose2d(x, randn({3, 2, 3, 3}), {.groups = 2}); },
               "expected weight to be divisible by 2 at dimension 0");
  expect_error([&] { F::conv_transpose2d(x, randn({3, 2, 3, 3}), {.padding = 5}); },
               "Given input size per channel: (8 x 8). Calculated output size per channel: (0 x "
               "0). Output size is too small");
  expect_error([&] { F::conv2d_backward(randn({2, 4, 7, 8}), x, randn({4, 3, 3, 3})); },
               "expected grad_output");
  expect_error([] { F::conv_transpose1d(randn({2, 3, 8}), randn({3, 2, 3}), {.output_padding = 1}); },
               "output_padding_width: 1 stride_width: 1 dilation_width: 1");
}

}  // namespace
