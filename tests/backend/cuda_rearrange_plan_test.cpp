// The CUDA resizing and rearranging kernels (src/backend/cuda/resize_body.cuh,
// rearrange_body.cuh) run by their CPU emulation over launches planned as the device's are
// (resize_plan.cpp, rearrange_plan.cpp), against the CPU backend's kernels (the same table
// entries for kCPU), without a GPU:
//   - interpolate forward and backward: nearest (with its x1 and x2 shortcuts), nearest-exact,
//     linear and bilinear with and without align_corners, sizes from scale factors, 1-D and
//     2-D, up and down; bit for bit in float32, float64, float16 and bfloat16 (the backward
//     gathers the CPU's terms in its order, Note [Resize backward as a gather]);
//   - pad forward (every element size: float, half, int64, int16, bool ...) and backward
//     (the floating dtypes) for reflect, replicate and circular, 1-, 2- and 3-D, pads wider than
//     the input (replicate) and negative pads that crop; bit for bit;
//   - flip over strided views and every element size; tril/triu for diagonals inside, at and
//     beyond the matrix; trace over strided matrices (integers exactly, floats within the
//     rounding of another summation order); searchsorted (left/right, a sorter, batched rows,
//     NaN boundaries and values) bit for bit; one_hot and repeat_interleave through their
//     Work (statistics read back, then the write), with the CPU's errors for bad values; unique
//     through its Work (sort, group marks, their scan, the count read back, the writes), with
//     duplicates, -0.0 beside 0.0 and NaNs; unique along a dim (rows sorted lexicographically
//     by one block's network) likewise, in every dtype it takes.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/cuda/emulation.h"
#include "backend/cuda/rearrange_plan.h"
#include "backend/cuda/resize_plan.h"
#include "test_support.h"

namespace ember::cuda {
namespace {

using backend::PadMode;
using backend::PadParams;
using backend::ResizeMode;
using backend::ResizeParams;

const backend::ResizeKernels& cpu_resize() { return backend::backend_for(kCPU)->resize; }
const backend::RearrangeKernels& cpu_rearrange() { return backend::backend_for(kCPU)->rearrange; }

const Dtype kFloating[] = {kFloat32, kFloat64, kFloat16, kBFloat16};

/// sin(i * scale) * 3 over `sizes` in `dtype`.
Tensor wave(IntArrayRef sizes, double scale, Dtype dtype) {
  int64_t n = 1;
  for (const int64_t s : sizes) n *= s;
  return ((arange(n, {.dtype = kFloat64}) * scale).sin() * 3).to(dtype).reshape(sizes);
}

// ── interpolate ─────────────────────────────────────────────────────────────────────────────

struct Resize {
  ResizeMode mode;
  bool align_corners;
  int dims;
  int64_t in[2], out[2];
  std::optional<double> scale[2];
};

std::string describe(const Resize& c, Dtype dtype) {
  const char* modes[] = {"nearest", "nearest-exact", "linear"};
  return std::string(dtype_name(dtype)) + " " + modes[int(c.mode)] +
         (c.align_corners ? " align_corners " : " ") + std::to_string(c.in[0]) + "x" +
         std::to_string(c.in[1]) + " -> " + std::to_string(c.out[0]) + "x" +
         std::to_string(c.out[1]) + (c.scale[0] ? " (scales)" : "");
}

std::vector<Resize> resize_cases() {
  std::vector<Resize> cases;
  for (const ResizeMode mode : {ResizeMode::Nearest, ResizeMode::NearestExact, ResizeMode::Linear})
    for (const bool ac : {false, true}) {
      if (ac && mode != ResizeMode::Linear) continue;        // align_corners is linear's only
      cases.push_back({mode, ac, 2, {7, 9}, {13, 4}, {}});   // up and down
      cases.push_back({mode, ac, 2, {7, 9}, {14, 18}, {}});  // x2: nearest's shortcut
      cases.push_back({mode, ac, 2, {7, 9}, {7, 9}, {}});    // x1: a copy
      cases.push_back({mode, ac, 2, {7, 9}, {1, 3}, {}});    // one output row
      cases.push_back({mode, ac, 2, {7, 9}, {13, 4}, {1.9, 0.5}});  // the user's scales
      cases.push_back({mode, ac, 1, {1, 9}, {1, 20}, {}});          // 1-D
      cases.push_back({mode, ac, 1, {1, 10}, {1, 3}, {std::nullopt, 0.37}});
    }
  return cases;
}

ResizeParams params(const Resize& c) {
  ResizeParams r;
  r.mode = c.mode;
  r.align_corners = c.align_corners;
  r.dims = c.dims;
  for (int k = 0; k < 2; ++k) {
    r.in[k] = c.in[k];
    r.out[k] = c.out[k];
    r.scale[k] = c.scale[k];
  }
  return r;
}

TEST(CudaRearrangePlan, InterpolateAndItsBackwardMatchTheCpuBitForBit) {
  const int64_t P = 3;
  for (const Dtype dtype : kFloating)
    for (const Resize& c : resize_cases()) {
      const ResizeParams r = params(c);
      const std::string what = describe(c, dtype);
      const Tensor input = wave({P, c.in[0], c.in[1]}, 0.61, dtype);
      const Tensor want = empty({P, c.out[0], c.out[1]}, {.dtype = dtype}), got = empty_like(want);
      cpu_resize().interpolate(want, input, r);
      kernels::emulate_resize(plan_resize_launch(got, input, r, false));
      EXPECT_TRUE(got.equal(want)) << what;

      const Tensor grad = wave({P, c.out[0], c.out[1]}, 0.83, dtype);
      const Tensor gi_want = empty_like(input), gi = full(input.sizes(), 7.0, {.dtype = dtype});
      cpu_resize().interpolate_backward(gi_want, grad, r);
      kernels::emulate_resize(plan_resize_launch(gi, grad, r, true));
      EXPECT_TRUE(gi.equal(gi_want)) << what << " backward";
    }
}

TEST(CudaRearrangePlan, InterpolateRefusesWhatItCannotRun) {
  ResizeParams r;
  r.in[0] = 4, r.in[1] = 4, r.out[0] = 8, r.out[1] = 8;
  const Tensor ints = zeros({2, 4, 4}, {.dtype = kInt64}),
               out = zeros({2, 8, 8}, {.dtype = kInt64});
  EXPECT_ERROR(plan_resize_launch(out, ints, r, false), "has no int64 kernel");
  EXPECT_ERROR(plan_resize_launch(zeros({2, 8, 7}), zeros({2, 4, 4}), r, false),
               "expected contiguous planes");
}

// ── pad ─────────────────────────────────────────────────────────────────────────────────────

struct Pad {
  PadMode mode;
  int64_t in[3], left[3], right[3];
};

std::vector<Pad> pad_cases() {
  return {
      {PadMode::Reflect, {1, 1, 9}, {0, 0, 3}, {0, 0, 2}},
      {PadMode::Reflect, {1, 6, 5}, {0, 5, 1}, {0, 2, 4}},     // the largest reflect pads
      {PadMode::Reflect, {3, 4, 5}, {2, 1, -2}, {1, -1, 3}},   // 3-D, crops
      {PadMode::Replicate, {1, 1, 6}, {0, 0, 11}, {0, 0, 4}},  // pads wider than the input
      {PadMode::Replicate, {1, 5, 6}, {0, 2, -1}, {0, -2, 7}},
      {PadMode::Replicate, {4, 3, 2}, {3, 0, 1}, {2, 5, 0}},
      {PadMode::Circular, {1, 1, 7}, {0, 0, 7}, {0, 0, 3}},  // a whole wrap
      {PadMode::Circular, {1, 4, 5}, {0, -1, 2}, {0, 3, -2}},
      {PadMode::Circular, {3, 4, 5}, {1, 4, 5}, {2, 0, 5}},
  };
}

PadParams params(const Pad& c, int64_t planes) {
  PadParams p;
  p.mode = c.mode;
  p.planes = planes;
  for (int k = 0; k < 3; ++k) {
    p.in[k] = c.in[k];
    p.left[k] = c.left[k];
    p.right[k] = c.right[k];
    p.out[k] = c.in[k] + c.left[k] + c.right[k];
  }
  return p;
}

std::string describe(const Pad& c, Dtype dtype) {
  const char* modes[] = {"reflect", "replicate", "circular"};
  std::string s = std::string(dtype_name(dtype)) + " " + modes[int(c.mode)];
  for (int k = 0; k < 3; ++k)
    s += " " + std::to_string(c.in[k]) + "(" + std::to_string(c.left[k]) + "," +
         std::to_string(c.right[k]) + ")";
  return s;
}

TEST(CudaRearrangePlan, PadMatchesTheCpuForEveryElementSize) {
  const int64_t P = 2;
  for (const Dtype dtype :
       {kFloat32, kFloat64, kFloat16, kBFloat16, kInt64, kInt32, kInt16, kUInt8, kBool})
    for (const Pad& c : pad_cases()) {
      const PadParams p = params(c, P);
      // The input in its own shape (the front end's), (P, D, H, W) here.
      const Tensor input =
          (arange(P * c.in[0] * c.in[1] * c.in[2], {.dtype = kInt64}) * 37 % 101 - 50)
              .to(dtype)
              .reshape({P, c.in[0], c.in[1], c.in[2]});
      const Tensor want = empty({P, p.out[0], p.out[1], p.out[2]}, {.dtype = dtype}),
                   got = empty_like(want);
      cpu_resize().pad(want, input, p);
      kernels::emulate_pad(plan_pad_launch(got, input, p, false));
      EXPECT_TRUE(got.equal(want)) << describe(c, dtype);
    }
}

TEST(CudaRearrangePlan, PadBackwardMatchesTheCpuBitForBit) {
  const int64_t P = 3;
  for (const Dtype dtype : kFloating)
    for (const Pad& c : pad_cases()) {
      const PadParams p = params(c, P);
      // Flat shapes: the kernel reads p's planes whatever the tensors' shapes.
      const Tensor grad = wave({P * p.out[0], p.out[1] * p.out[2]}, 0.77, dtype);
      const Tensor want = empty({P * c.in[0] * c.in[1], c.in[2]}, {.dtype = dtype}),
                   got = full(want.sizes(), 5.0, {.dtype = dtype});
      cpu_resize().pad_backward(want, grad, p);
      kernels::emulate_pad(plan_pad_launch(got, grad, p, true));
      EXPECT_TRUE(got.equal(want)) << describe(c, dtype) << " backward";
    }
}

TEST(CudaRearrangePlan, PadRefusesWhatItCannotRun) {
  const PadParams p = params({PadMode::Reflect, {1, 1, 4}, {0, 0, 1}, {0, 0, 1}}, 2);
  EXPECT_ERROR(plan_pad_launch(zeros({2, 7}), zeros({2, 4}), p, false), "holding 2 planes");
  EXPECT_ERROR(
      plan_pad_launch(zeros({2, 4}, {.dtype = kInt32}), zeros({2, 6}, {.dtype = kInt32}), p, true),
      "has no int32 kernel");
}

// ── flip, tril/triu, trace ──────────────────────────────────────────────────────────────────

TEST(CudaRearrangePlan, FlipMatchesTheCpuOnStridedViews) {
  const std::vector<std::vector<int64_t>> dim_sets = {{}, {0}, {2}, {0, 1}, {0, 1, 2}};
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kInt64, kInt16, kUInt8, kBool}) {
    const Tensor base =
        (arange(6 * 11 * 5, {.dtype = kInt64}) * 13 % 29).to(dtype).reshape({6, 11, 5});
    const Tensor views[] = {base, base.transpose(0, 2), base.narrow(1, 2, 7).narrow(2, 1, 3),
                            base.select(1, 4).unsqueeze(1).expand({6, 4, 5})};
    for (const Tensor& self : views)
      for (const auto& dims : dim_sets) {
        const Tensor want = empty(self.sizes(), {.dtype = dtype}), got = empty_like(want);
        cpu_rearrange().flip(want, self, dims);
        kernels::emulate_flip(plan_flip_launch(got, self, dims));
        EXPECT_TRUE(got.equal(want)) << dtype_name(dtype) << " " << self.sizes() << " strides "
                                     << self.strides() << " dims " << IntArrayRef(dims);
      }
  }
}

TEST(CudaRearrangePlan, FlipOfAScalarIsACopy) {
  const Tensor self = full({}, 3.5), got = empty({});
  kernels::emulate_flip(plan_flip_launch(got, self, {}));
  EXPECT_EQ(got.item<float>(), 3.5f);
  EXPECT_ERROR(plan_flip_launch(empty({2, 3}), zeros({2, 3}), {2}), "expected wrapped dims");
}

TEST(CudaRearrangePlan, TrilAndTriuMatchTheCpu) {
  for (const Dtype dtype : {kFloat32, kFloat16, kInt64, kBool, kUInt8})
    for (const std::vector<int64_t>& shape :
         {std::vector<int64_t>{4, 3}, {2, 5, 7}, {3, 1, 9, 2}, {1, 1}})
      for (const int64_t k : {-9, -2, -1, 0, 1, 3, 9})
        for (const bool lower : {true, false}) {
          int64_t n = 1;
          for (const int64_t d : shape) n *= d;
          const Tensor self = (arange(n, {.dtype = kInt64}) % 7 + 1).to(dtype).reshape(shape);
          const Tensor want = empty(self.sizes(), {.dtype = dtype}), got = empty_like(want);
          cpu_rearrange().triangle(want, self, k, lower);
          kernels::emulate_triangle(plan_triangle_launch(got, self, k, lower));
          EXPECT_TRUE(got.equal(want)) << dtype_name(dtype) << " " << IntArrayRef(shape) << " k "
                                       << k << (lower ? " tril" : " triu");
        }
}

TEST(CudaRearrangePlan, TraceMatchesTheCpu) {
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64})
    for (const int64_t n : {1, 7, 300, 1000}) {
      const Tensor base = (wave({n + 3, n}, 0.37, kFloat64) * 9).to(dtype);
      const bool integral = is_integral(dtype, true);
      const Dtype out_dtype = integral ? kInt64 : dtype;
      // As is, transposed (n x n+3: n diagonal elements) and a column-sliced view.
      for (const Tensor& self : {base, base.t(), base.narrow(0, 2, n - 1 > 0 ? n - 1 : 1)}) {
        const Tensor want = empty({}, {.dtype = out_dtype}), got = empty_like(want);
        cpu_rearrange().trace(want, self);
        kernels::emulate_trace(plan_trace_launch(got, self));
        const std::string what = std::string(dtype_name(dtype)) + " n " + std::to_string(n) +
                                 " strides " + std::to_string(self.stride(0)) + "," +
                                 std::to_string(self.stride(1));
        if (integral) {
          EXPECT_TRUE(got.equal(want)) << what;
        } else {
          // One block's tree against the CPU's running sum, in the same accumulator (double for
          // float32 and float64, float for the half types).
          const double tol = dtype == kFloat64 ? 1e-12 : dtype == kFloat32 ? 1e-6 : 1e-2;
          EXPECT_TRUE(allclose(got.to(kFloat64), want.to(kFloat64), tol, tol)) << what;
        }
      }
    }
  EXPECT_ERROR(plan_trace_launch(empty({}, {.dtype = kInt64}), zeros({3, 3}, {.dtype = kInt8})),
               "has no int8 kernel");
}

// ── searchsorted, one_hot, repeat_interleave ────────────────────────────────────────────────

TEST(CudaRearrangePlan, SearchsortedMatchesTheCpuBitForBit) {
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64}) {
    const bool floating = is_floating_point(dtype);
    // Duplicates, and a NaN boundary last (where a sorted float tensor keeps NaN).
    Tensor bd = tensor({-3.0, -1.0, -1.0, 0.0, 2.0, 2.0, 2.0, 5.0, floating ? NAN : 9.0}).to(dtype);
    Tensor vals = tensor({-4.0, -1.0, 0.0, 1.5, 2.0, 5.0, 7.0, 9.0, floating ? NAN : -1.0, 2.0})
                      .to(dtype)
                      .reshape({2, 5});
    // Batched rows: boundaries (2, 9), each row sorted, values (2, 5).
    const Tensor rows = stack({bd, bd.flip({0}).neg()}).to(dtype);
    const Tensor rows_sorted = std::get<0>(rows.sort(-1));
    // A sorter: boundaries shuffled, sorter their sorting permutation.
    const Tensor perm = tensor({4, 0, 8, 2, 6, 1, 7, 3, 5}, kInt64);
    const Tensor shuffled = bd.index_select(0, perm);
    const Tensor sorter = std::get<1>(shuffled.sort(0));
    struct Case {
      const char* name;
      Tensor boundaries, sorter;
    };
    const Case cases[] = {{"1-D", bd, {}}, {"rows", rows_sorted, {}}, {"sorter", shuffled, sorter}};
    for (const Case& c : cases)
      for (const bool right : {false, true}) {
        const Tensor want = empty(vals.sizes(), {.dtype = kInt64}), got = empty_like(want);
        cpu_rearrange().searchsorted(want, c.boundaries, vals, c.sorter, right);
        kernels::emulate_searchsorted(
            plan_searchsorted_launch(got, c.boundaries, vals, c.sorter, right));
        EXPECT_TRUE(got.equal(want))
            << dtype_name(dtype) << " " << c.name << (right ? " right" : " left");
      }
  }
}

/// one_hot through its Work, as the host side runs it.
Tensor emulated_one_hot(const Tensor& self, int64_t num_classes) {
  OneHotWork w = plan_one_hot(self);
  kernels::emulate_int_stats(w.stats_launch);
  Tensor out = one_hot_result(w, self, read_int_stats(w.stats), num_classes);
  if (out.numel() > 0) kernels::emulate_one_hot(w.write);
  return out;
}

TEST(CudaRearrangePlan, OneHotMatchesTheCpu) {
  // 700 labels: the statistics block's threads each fold several.
  const Tensor many = (arange(700, {.dtype = kInt64}) * 7919 % 13).reshape({10, 70});
  for (const Tensor& self : {tensor({3, 0, 2, 2}, kInt64), many, tensor({0}, kInt64)})
    for (const int64_t classes : {int64_t(-1), int64_t(13), int64_t(20)}) {
      const Tensor want = cpu_rearrange().one_hot(self, classes);
      EXPECT_TRUE(emulated_one_hot(self, classes).equal(want))
          << self.sizes() << " classes " << classes;
    }
  EXPECT_ERROR(emulated_one_hot(tensor({1, -1}, kInt64), -1), "Class values must be non-negative.");
  EXPECT_ERROR(emulated_one_hot(tensor({1, 5}, kInt64), 5),
               "Class values must be smaller than num_classes.");
}

/// repeat_interleave through its Work, as the host side runs it.
Tensor emulated_repeat_interleave(const Tensor& repeats) {
  RepeatWork w = plan_repeat_interleave(repeats);
  kernels::emulate_int_stats(w.stats_launch);
  kernels::emulate_scan(w.scan);
  Tensor out = repeat_interleave_result(w, repeats, read_int_stats(w.stats));
  if (out.numel() > 0) kernels::emulate_repeat(w.write);
  return out;
}

TEST(CudaRearrangePlan, RepeatInterleaveMatchesTheCpu) {
  const Tensor many = arange(1000, {.dtype = kInt64}) * 7919 % 5;  // zeros among them
  for (const Tensor& repeats :
       {tensor({2, 0, 3, 1, 0, 5}, kInt64), tensor({0, 0}, kInt64), tensor({4}, kInt64), many}) {
    const Tensor want = cpu_rearrange().repeat_interleave(repeats);
    EXPECT_TRUE(emulated_repeat_interleave(repeats).equal(want)) << repeats.sizes();
  }
  EXPECT_ERROR(emulated_repeat_interleave(tensor({2, -1, 3}, kInt64)),
               "repeats can not be negative");
}

/// After unique's sort, as the host side's count_groups: the marks, their scan, the count.
int64_t emulated_groups(const UniqueWork& w) {
  kernels::emulate_unique(w.mark);
  kernels::emulate_scan(w.scan);
  return w.ids.select(0, w.mark.n - 1).item<int64_t>();
}

/// unique through its Work, as the host side runs it.
backend::UniqueElements emulated_unique(const Tensor& self, bool inverse, bool counts) {
  UniqueWork w = plan_unique(self);
  kernels::emulate_sort(w.sort);
  backend::UniqueElements r = unique_result(w, self, emulated_groups(w), inverse, counts);
  kernels::emulate_unique(w.write);
  if (counts) kernels::emulate_unique(w.count);
  return r;
}

TEST(CudaRearrangePlan, UniqueMatchesTheCpu) {
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64}) {
    const bool floating = is_floating_point(dtype);
    // Repeats in no order, -0.0 before 0.0 (one group, the first one's value); floats add
    // NaNs (each its own group, last).
    Tensor small = tensor({3.0, -1.0, -0.0, 3.0, 7.0, 0.0, -1.0, 3.0});
    if (floating) small = cat({small, tensor({NAN, 2.0, NAN})});
    const Tensor many = (arange(700, {.dtype = kInt64}) * 7919 % 97 - 40).reshape({7, 100});
    for (const Tensor& base : {small, many, tensor({5.0})}) {
      const Tensor self = base.to(dtype);
      for (const bool inverse : {false, true})
        for (const bool counts : {false, true}) {
          const backend::UniqueElements want = cpu_rearrange().unique(self, inverse, counts);
          const backend::UniqueElements got = emulated_unique(self, inverse, counts);
          const std::string what = std::string(dtype_name(dtype)) + " " +
                                   std::to_string(self.numel()) + (inverse ? " inverse" : "") +
                                   (counts ? " counts" : "");
          EXPECT_TRUE(allclose(got.values, want.values, 0, 0, /*equal_nan=*/true)) << what;
          // -0.0 and 0.0 compare equal: check the group's value kept the first one's sign.
          for (int64_t g = 0; floating && g < want.values.numel(); ++g)
            EXPECT_EQ(std::signbit(got.values.select(0, g).item<double>()),
                      std::signbit(want.values.select(0, g).item<double>()))
                << what << " group " << g;
          EXPECT_EQ(got.inverse.defined(), inverse) << what;
          EXPECT_EQ(got.counts.defined(), counts) << what;
          if (inverse) {
            EXPECT_TRUE(got.inverse.equal(want.inverse)) << what;
          }
          if (counts) {
            EXPECT_TRUE(got.counts.equal(want.counts)) << what;
          }
        }
    }
  }
  EXPECT_ERROR(plan_unique(tensor({1, 0}, kBool)), "has no bool kernel");
}

/// unique along a dim through its Work, as the host side runs it.
backend::UniqueRows emulated_unique_rows(const Tensor& x) {
  UniqueWork w = plan_unique_rows(x);
  kernels::emulate_unique(w.sort_rows);
  backend::UniqueRows r = unique_rows_result(w, x, emulated_groups(w));
  kernels::emulate_unique(w.write);
  kernels::emulate_unique(w.count);
  return r;
}

// Rows compared lexicographically (the first column decides first), duplicates anywhere, the
// first row of each group kept: (n, row) matrices and (n, a, b) slices, 300 rows for a network
// of many stages.
TEST(CudaRearrangePlan, UniqueRowsMatchTheCpu) {
  const Tensor small = tensor(
      {{1, 2, 3}, {0, 5, 5}, {1, 2, 3}, {1, 2, 2}, {0, 5, 5}, {1, 2, 3}, {-1, 9, 9}, {1, 3, 0}},
      kInt64);
  const Tensor many = (arange(300 * 4, {.dtype = kInt64}) * 7919 % 3).reshape({300, 2, 2});
  const Tensor column = (arange(40, {.dtype = kInt64}) * 13 % 7).reshape({40, 1});
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool})
    for (const Tensor& base : {small, many, column, tensor({{4, 4}}, kInt64)}) {
      const Tensor x = base.to(dtype);
      const backend::UniqueRows want = cpu_rearrange().unique_rows(x);
      const backend::UniqueRows got = emulated_unique_rows(x);
      const std::string what = std::string(dtype_name(dtype)) + " " + std::to_string(x.size(0)) +
                               " rows of " + std::to_string(x.numel() / x.size(0));
      EXPECT_TRUE(got.first.equal(want.first)) << what;
      EXPECT_TRUE(got.inverse.equal(want.inverse)) << what;
      EXPECT_TRUE(got.counts.equal(want.counts)) << what;
    }
  EXPECT_ERROR(plan_unique_rows(zeros({3, 2}, {.dtype = kUInt8})), "has no uint8 kernel");
}

}  // namespace
}  // namespace ember::cuda
