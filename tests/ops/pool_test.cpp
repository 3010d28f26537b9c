// Pooling (max with indices, avg, adaptive), interpolate and pad against PyTorch 1.13
// (golden/conv.json): ceil_mode edge cases, NaN/inf windows, count_include_pad, divisor_override,
// every interpolation mode with sizes and scale factors, every pad mode with negative pads,
// non-contiguous and unbatched inputs, other dtypes, and the backward kernels' gradients. Then
// PyTorch's error messages.
#include <gtest/gtest.h>

#include <ember/ember.h>

#include <string>
#include <vector>

#include "ops/conv_golden.h"

using namespace ember;
using namespace conv_golden;

namespace {

F::MaxPoolFuncOptions max_options(const json& a) {
  return {.stride = int_or_list(a, "stride", {}),
          .padding = int_or_list(a, "padding", 0),
          .dilation = int_or_list(a, "dilation", 1),
          .ceil_mode = a.value("ceil_mode", false)};
}

F::AvgPoolFuncOptions avg_options(const json& a) {
  F::AvgPoolFuncOptions o{.stride = int_or_list(a, "stride", {}),
                          .padding = int_or_list(a, "padding", 0),
                          .ceil_mode = a.value("ceil_mode", false),
                          .count_include_pad = a.value("count_include_pad", true)};
  if (a.contains("divisor_override") && !a["divisor_override"].is_null())
    o.divisor_override = a["divisor_override"].get<int64_t>();
  return o;
}

F::InterpolateFuncOptions interp_options(const json& a) {
  F::InterpolateFuncOptions o;
  o.size = int_or_list(a, "size", {});
  if (a.contains("scale_factor")) {
    const json& s = a["scale_factor"];
    o.scale_factor = s.is_array() ? F::DoubleOrList(s.get<std::vector<double>>())
                                  : F::DoubleOrList(s.get<double>());
  }
  o.mode = a.value("mode", std::string("nearest"));
  if (a.contains("align_corners")) o.align_corners = a["align_corners"].get<bool>();
  if (a.contains("recompute_scale_factor"))
    o.recompute_scale_factor = a["recompute_scale_factor"].get<bool>();
  return o;
}

F::PadFuncOptions pad_options(const json& a) {
  F::PadFuncOptions o{.mode = a.value("mode", std::string("constant"))};
  if (a.contains("value")) o.value = a["value"].get<double>();
  return o;
}

// (output, indices or undefined) of a golden case's op.
std::pair<Tensor, Tensor> run(const std::string& op, const Tensor& x, const json& a) {
  auto k = [&] { return int_or_list(a, "kernel_size", {}); };
  auto os = [&] { return int_or_list(a, "output_size", {}); };
  if (op == "max_pool1d") return {F::max_pool1d(x, k(), max_options(a)), {}};
  if (op == "max_pool2d") return {F::max_pool2d(x, k(), max_options(a)), {}};
  if (op == "max_pool1d_with_indices") {
    auto [v, i] = F::max_pool1d_with_indices(x, k(), max_options(a));
    return {v, i};
  }
  if (op == "max_pool2d_with_indices") {
    auto [v, i] = F::max_pool2d_with_indices(x, k(), max_options(a));
    return {v, i};
  }
  if (op == "avg_pool1d") return {F::avg_pool1d(x, k(), avg_options(a)), {}};
  if (op == "avg_pool2d") return {F::avg_pool2d(x, k(), avg_options(a)), {}};
  if (op == "adaptive_avg_pool1d") return {F::adaptive_avg_pool1d(x, os()), {}};
  if (op == "adaptive_avg_pool2d") return {F::adaptive_avg_pool2d(x, os()), {}};
  if (op == "adaptive_max_pool2d") return {F::adaptive_max_pool2d(x, os()), {}};
  if (op == "adaptive_max_pool1d_with_indices") {
    auto [v, i] = F::adaptive_max_pool1d_with_indices(x, os());
    return {v, i};
  }
  if (op == "adaptive_max_pool2d_with_indices") {
    auto [v, i] = F::adaptive_max_pool2d_with_indices(x, os());
    return {v, i};
  }
  if (op == "interpolate") return {F::interpolate(x, interp_options(a)), {}};
  if (op == "pad") return {F::pad(x, a["pad"].get<std::vector<int64_t>>(), pad_options(a)), {}};
  throw std::runtime_error("no op " + op);
}

// grad_input for a golden case with gradients; `x` is the input, `idx` the forward's indices.
Tensor run_backward(const std::string& op, const Tensor& g, const Tensor& x, const Tensor& idx,
                    const json& a) {
  if (op == "max_pool2d" || op == "max_pool2d_with_indices" ||
      op == "adaptive_max_pool2d_with_indices") {
    Tensor i = idx;
    if (!i.defined()) i = std::get<1>(F::max_pool2d_with_indices(x, int_or_list(a, "kernel_size", {}), max_options(a)));
    return F::max_pool2d_backward(g, x, i);
  }
  if (op == "max_pool1d_with_indices")  // the 2-D op on a height-1 view
    return F::max_pool2d_backward(g.unsqueeze(-2), x.unsqueeze(-2), idx.unsqueeze(-2)).squeeze(-2);
  if (op == "avg_pool2d")
    return F::avg_pool2d_backward(g, x, int_or_list(a, "kernel_size", {}), avg_options(a));
  if (op == "adaptive_avg_pool2d") return F::adaptive_avg_pool2d_backward(g, x);
  if (op == "interpolate") return F::interpolate_backward(g, x.sizes(), interp_options(a));
  if (op == "pad")
    return F::pad_backward(g, x.sizes(), a["pad"].get<std::vector<int64_t>>(), pad_options(a));
  throw std::runtime_error("no backward for " + op);
}

void check_family(const std::vector<std::string>& prefixes, size_t min_cases) {
  const auto all = cases(prefixes);
  ASSERT_GE(all.size(), min_cases);
  int grads = 0;
  for (const json& c : all) {
    const std::string op = c["op"], what = op + "/" + c["name"].get<std::string>();
    SCOPED_TRACE(what);
    const Tensor x = inputs(c)[0];
    const auto [out, idx] = run(op, x, c["args"]);
    expect_close(out, c["out"], what);
    if (c.contains("indices")) expect_close(idx, c["indices"], what + " indices");
    if (c.contains("grad")) {
      expect_close(run_backward(op, golden_tensor(c["grad"]["grad_output"]), x, idx, c["args"]),
                   c["grad"]["input"], what + " grad_input");
      ++grads;
    }
  }
  EXPECT_GT(grads, 3);
}

TEST(Pool, MaxMatchesPyTorch) { check_family({"max_pool"}, 15); }
TEST(Pool, AvgMatchesPyTorch) { check_family({"avg_pool"}, 9); }
TEST(Pool, AdaptiveMatchesPyTorch) { check_family({"adaptive_"}, 12); }
TEST(Pool, InterpolateMatchesPyTorch) { check_family({"interpolate"}, 20); }
TEST(Pool, PadMatchesPyTorch) { check_family({"pad"}, 18); }

// The 2x2 fast path (values only) and the general kernel (with indices) agree everywhere,
// NaN included, on both thread counts and on a shape with many planes.
TEST(Pool, MaxFastPathAgreesWithGeneral) {
  manual_seed(5);
  Tensor x = randn({16, 8, 14, 12});
  x.index_put_({3, 2, 5, 7}, NAN);
  for (int threads : {1, 2}) {
    set_num_threads(threads);
    const Tensor fast = F::max_pool2d(x, 2);
    const auto [slow, idx] = F::max_pool2d_with_indices(x, 2);
    EXPECT_TRUE(fast.isnan().equal(slow.isnan()));
    EXPECT_TRUE(fast.nan_to_num(0.0).equal(slow.nan_to_num(0.0)));
    EXPECT_TRUE(std::isnan(fast.index({3, 2, 2, 3}).item<float>()));
    // Each value is the input at its index.
    const Tensor picked = x.flatten(2).gather(2, idx.flatten(2)).view_as(slow);
    EXPECT_TRUE(picked.nan_to_num(0.0).equal(slow.nan_to_num(0.0)));
  }
  set_num_threads(2);
}

// The 2x2 window with indices (a CNN's training forward; AVX-512 runs bfloat16 a row of outputs at
// a time in registers, with masked loads and stores for rows shorter than 16) against PyTorch's
// rule written out here: start from the window's first value and index, take a later value when
// it is greater or NaN (ties keep the first, the last NaN wins). Rows of every length around the
// vector widths, an odd row or column left out, ties, NaN, -inf and a window of -inf only;
// float32, bfloat16 and float64 (the gather path), one and two threads.
TEST(Pool, MaxWithIndicesFollowsTheRuleOnEveryRowLength) {
  manual_seed(11);
  for (Dtype dt : {kFloat32, kBFloat16, kFloat64})
    for (int64_t W : {2, 3, 14, 15, 16, 17, 28, 31, 32, 33, 34, 64})
      for (int64_t H : {2, 5}) {
        SCOPED_TRACE(std::string(dtype_name(dt)) + " H=" + std::to_string(H) +
                     " W=" + std::to_string(W));
        // Values on a coarse grid, so windows hold ties; then NaN, -inf and a window of -inf.
        Tensor x = (randn({3, 2, H, W}) * 2).round().to(dt);
        x.index_put_({0, 1, 1, W - 1}, NAN);
        x.index_put_({1, 0, 0, 0}, -INFINITY);
        x.index_put_({2, 1, 0, 1}, NAN);
        x.index_put_({2, 1, 1, 0}, NAN);
        x.index({2, 0}).narrow(0, 0, 2).narrow(1, 0, 2).fill_(-INFINITY);
        const Tensor xd = x.to(kFloat64).contiguous();
        const int64_t Ho = H / 2, Wo = W / 2;
        Tensor want_v = empty({3, 2, Ho, Wo}, {.dtype = kFloat64});
        Tensor want_i = empty({3, 2, Ho, Wo}, {.dtype = kInt64});
        const double* in = xd.data_ptr<double>();
        double* wv = want_v.data_ptr<double>();
        int64_t* wi = want_i.data_ptr<int64_t>();
        for (int64_t p = 0; p < 6; ++p)
          for (int64_t oh = 0; oh < Ho; ++oh)
            for (int64_t ow = 0; ow < Wo; ++ow) {
              int64_t at = 2 * oh * W + 2 * ow;
              double best = in[p * H * W + at];
              for (int64_t j : {at + 1, at + W, at + W + 1}) {
                const double v = in[p * H * W + j];
                if (v > best || std::isnan(v)) best = v, at = j;
              }
              wv[(p * Ho + oh) * Wo + ow] = best;
              wi[(p * Ho + oh) * Wo + ow] = at;
            }
        for (int threads : {1, 2}) {
          set_num_threads(threads);
          const auto [got_v, got_i] = F::max_pool2d_with_indices(x, 2);
          EXPECT_EQ(got_v.dtype(), dt);
          EXPECT_TRUE(got_i.equal(want_i));
          const Tensor gv = got_v.to(kFloat64);
          EXPECT_TRUE(gv.isnan().equal(want_v.isnan()));
          EXPECT_TRUE(
              gv.nan_to_num(0.0, 1e300, -1e300).equal(want_v.nan_to_num(0.0, 1e300, -1e300)));
        }
        set_num_threads(2);
      }
}

// max_pool2d's backward in bfloat16 adds each gradient into grad_input as float32 and rounds once
// per add (what PyTorch's kernel does on bfloat16), shortcut where nothing was added yet; the
// written-out reference does every add. Windows that overlap (3x3, stride 1) and that do not
// (2x2), gradients with -0, NaN, a subnormal and values whose sums round.
// max_pool2d_backward in bfloat16 against every add written out (float, then rounded, into +0):
// the general loop's result, which the rows of planes tiled by 2x2 windows must give bit for bit
// (-0 becomes +0, NaN 0x7FC0, a subnormal stays).
Tensor max_backward_written_out(const Tensor& g, const Tensor& idx, IntArrayRef input_sizes) {
  Tensor want = zeros(input_sizes, {.dtype = kBFloat16});
  const int64_t out_plane = g.size(-1) * g.size(-2), in_plane = want.size(-1) * want.size(-2);
  const Tensor gc = g.contiguous(), ic = idx.contiguous();
  for (int64_t p = 0; p < gc.numel() / out_plane; ++p)
    for (int64_t o = 0; o < out_plane; ++o) {
      BFloat16& d =
          want.data_ptr<BFloat16>()[p * in_plane + ic.data_ptr<int64_t>()[p * out_plane + o]];
      d = BFloat16(float(d) + float(gc.data_ptr<BFloat16>()[p * out_plane + o]));
    }
  return want;
}

TEST(Pool, MaxBackwardInBFloat16AddsAndRoundsAsTheFloatPath) {
  manual_seed(3);
  struct Case {
    std::vector<int64_t> x;
    int64_t kernel, stride, padding;
  };
  // 9x9: windows that leave a row and column out. Planes tiled by 2x2 windows: 28x28, 6x40 and
  // 4x66, rows of 14, 20 and 33 windows (a row per vector, whole and partial); 14x14, 16x16 and
  // 2x2, rows of 7, 8 and 1 window (two rows per vector; 7 and 1 rows: a last row alone). 3x3
  // windows with stride 2 and padding 1 on 28x28 and 14x14, outputs of the tiled sizes whose
  // overlapping windows' indices leave the 2x2 tiles; 3x3 with stride 1.
  const std::vector<Case> cases = {
      {{2, 3, 9, 9}, 2, 2, 0},   {{2, 3, 28, 28}, 2, 2, 0}, {{1, 2, 6, 40}, 2, 2, 0},
      {{1, 1, 4, 66}, 2, 2, 0},  {{2, 3, 14, 14}, 2, 2, 0}, {{1, 2, 16, 16}, 2, 2, 0},
      {{1, 3, 2, 2}, 2, 2, 0},   {{1, 2, 28, 28}, 3, 2, 1}, {{1, 2, 14, 14}, 3, 2, 1},
      {{2, 3, 9, 9}, 3, 1, 0}};
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.x) + " kernel " + std::to_string(c.kernel));
    const Tensor x = randn(c.x).to(kBFloat16);
    const auto [out, idx] =
        F::max_pool2d_with_indices(x, c.kernel, {.stride = c.stride, .padding = c.padding});
    Tensor g = (randn(out.sizes()) * 3).to(kBFloat16);
    Tensor flat = g.view({-1});
    flat.index_put_({0}, -0.0);
    flat.index_put_({1}, NAN);
    flat.index_put_({flat.numel() - 1}, 1e-39);
    const Tensor got = F::max_pool2d_backward(g, x, idx);
    EXPECT_TRUE(got.view(kInt16).equal(max_backward_written_out(g, idx, x.sizes()).view(kInt16)));
  }
  // Indices a caller made, on tiled planes (long and short rows): every window's gradient to
  // the plane's first place.
  for (const int64_t W : {40, 12}) {
    const Tensor x = randn({1, 2, 4, W}).to(kBFloat16);
    const Tensor g = randn({1, 2, 2, W / 2}).to(kBFloat16);
    const Tensor idx = zeros({1, 2, 2, W / 2}, {.dtype = kInt64});
    EXPECT_TRUE(F::max_pool2d_backward(g, x, idx)
                    .view(kInt16)
                    .equal(max_backward_written_out(g, idx, x.sizes()).view(kInt16)))
        << "width " << W;
  }
}

TEST(Pool, OptionSpellings) {
  const Tensor x = arange(32.0).view({1, 2, 4, 4});
  EXPECT_EQ(F::max_pool2d(x, 2, {.stride = 2, .padding = 0}).sizes().vec(),
            (std::vector<int64_t>{1, 2, 2, 2}));
  EXPECT_EQ(F::avg_pool2d(x, 2, {.stride = 2, .padding = 0, .count_include_pad = true})
                .index({0, 0, 0, 0}).item<float>(), 2.5f);
  EXPECT_EQ(F::max_pool2d(x, {2, 1}).sizes().vec(), (std::vector<int64_t>{1, 2, 2, 4}));
  EXPECT_EQ(F::interpolate(x, {.scale_factor = 2, .mode = "bilinear"}).sizes().vec(),
            (std::vector<int64_t>{1, 2, 8, 8}));
  EXPECT_EQ(F::interpolate(x, {.size = {3, 5}}).sizes().vec(), (std::vector<int64_t>{1, 2, 3, 5}));
  EXPECT_EQ(F::pad(x, {1, 1, 0, 1}, {.mode = "reflect"}).sizes().vec(),
            (std::vector<int64_t>{1, 2, 5, 6}));
  EXPECT_EQ(F::pad(x, {1, 1, 2, 2}).sizes().vec(), (std::vector<int64_t>{1, 2, 8, 6}));
  EXPECT_EQ(F::adaptive_avg_pool2d(x, 1).sizes().vec(), (std::vector<int64_t>{1, 2, 1, 1}));
}

TEST(Pool, Errors) {
  const Tensor x = randn({2, 3, 8, 8});
  expect_error([&] { F::max_pool2d(x, 3, {.padding = 2}); },
               "pad should be at most half of kernel size, but got pad=2 and kernel_size=3");
  expect_error([&] { F::max_pool2d(x, 9); },
               "Given input size: (3x8x8). Calculated output size: (3x0x0). Output size is too "
               "small");
  expect_error([&] { F::max_pool2d(x, 0); }, "kernel size should be greater than zero");
  expect_error([&] { F::max_pool2d(x, 2, {.stride = 0}); }, "stride should not be zero");
  expect_error([&] { F::max_pool2d(x, 2, {.dilation = 0}); },
               "dilation should be greater than zero");
  expect_error([] { F::max_pool2d(randn({8}), 2); },
               "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input");
  expect_error([&] { F::max_pool2d(x, {2, 2, 2}); },
               "max_pool2d: kernel_size must either be a single int, or a tuple of two ints");
  expect_error([&] { F::max_pool1d(x, 2); },
               "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size "
               "for input, but got:[2, 3, 8, 8]");
  expect_error([&] { F::avg_pool2d(x, 3, {.padding = 2}); },
               "pad should be at most half of kernel size, but got pad=2 and kernel_size=3");
  expect_error([&] { F::avg_pool2d(x, 2, {.divisor_override = 0}); }, "divisor must be not zero");
  expect_error([] { F::adaptive_avg_pool2d(randn({8}), 2); },
               "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [8]");
  expect_error([&] { F::adaptive_max_pool2d(x, {1, 2, 3}); }, "output_size must be 2");
  expect_error([&] { F::interpolate(x, {.size = {4, 4}, .scale_factor = 2}); },
               "only one of size or scale_factor should be defined");
  expect_error([&] { F::interpolate(x, {}); }, "either size or scale_factor should be defined");
  expect_error([&] { F::interpolate(x, {.size = 4, .align_corners = true}); },
               "align_corners option can only be set with the interpolating modes: linear | "
               "bilinear | bicubic | trilinear");
  expect_error([&] { F::interpolate(x, {.size = {4, 4, 4}}); },
               "Input and output must have the same number of spatial dimensions, but got input "
               "with spatial dimensions of [8, 8] and output size of [4, 4, 4]");
  expect_error([&] { F::interpolate(x, {.size = 4, .mode = "linear"}); },
               "Got 4D input, but linear mode needs 3D input");
  expect_error([&] { F::interpolate(x, {.size = 4, .mode = "foo"}); },
               "Input Error: Only 3D, 4D and 5D input Tensors supported (got 4D) for the modes: "
               "nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got foo)");
  expect_error([] { F::interpolate(randn({1, 2, 3}), {.size = 4, .mode = "bilinear"}); },
               "Got 3D input, but bilinear mode needs 4D input");
  expect_error([&] { F::interpolate(x, {.scale_factor = 0.01}); },
               "Input and output sizes should be greater than 0, but got input (H: 8, W: 8) "
               "output (H: 0, W: 0)");
  expect_error([&] { F::interpolate(x, {.size = 4, .recompute_scale_factor = true}); },
               "recompute_scale_factor is not meaningful with an explicit size.");
  expect_error([&] { F::pad(x, {1, 2, 3}); }, "Padding length must be divisible by 2");
  expect_error([&] { F::pad(x, {1, 1, 1, 1, 1, 1, 1, 1, 1, 1}); }, "Padding length too large");
  expect_error([&] { F::pad(x, {8, 1}, {.mode = "reflect"}); },
               "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
  expect_error([&] { F::pad(x, {1, 1}, {.mode = "foo"}); }, "Unrecognised padding mode foo");
  expect_error([] { F::pad(randn({1, 3, 4}), {4, 1}, {.mode = "reflect"}); },
               "Argument #4: Padding size should be less than the corresponding input dimension, "
               "but got: padding (4, 1) at dimension 2 of input [1, 3, 4]");
  expect_error([&] { F::pad(x, {1, 1}, {.mode = "reflect", .value = 2.0}); },
               "Padding mode \"reflect\" doesn't take in value argument");
  expect_error([&] { F::pad(x, {-5, -4}); }, "resulted in a negative output size");
  expect_error([] { F::pad(randn({1, 2, 3}), {4, 0}, {.mode = "circular"}); },
               "Padding value causes wrapping around more than once.");
  expect_error([] { F::max_pool2d_backward(randn({1, 1, 2, 2}), randn({1, 1, 4, 4}),
                                           full({1, 1, 2, 2}, 99, {.dtype = kInt64})); },
               "found an index outside the input plane");
}

}  // namespace
