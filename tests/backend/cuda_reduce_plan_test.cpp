// The host half of the CUDA reductions and softmax (src/backend/cuda/reduce_plan.cpp,
// softmax_plan.cpp), over CPU tensors so that it runs in every build: the kept and reduced
// index spaces (merged dims, byte strides), the splitting of few outputs over many blocks, the
// (outer, dim, inner) view of softmax, and the errors. A planned reduction is also run by the
// kernels' CPU emulation (backend/cuda/emulation.h: chunks per split, then the combine) and
// compared with the CPU's reductions: sum, mean, amax, amin, and nansum, prod, the p-norms,
// aminmax, var/std and max/min with indices against the CPU backend's own entries; the integer
// reductions (sum, prod, amax, amin of int32, int64 and bool).
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "backend/cuda/arg_reduce_plan.h"
#include "backend/cuda/emulation.h"
#include "backend/cuda/reduce_plan.h"
#include "backend/cuda/softmax_plan.h"
#include "backend/family_kernel.h"
#include "test_support.h"

namespace ember::cuda {
namespace {

using kernels::ReduceOp;

kernels::ReduceLaunch plan(ReduceOp op, const Tensor& out, const Tensor& in,
                           std::vector<int64_t> dims, double arg = 0) {
  return plan_reduce_launch(op, {"sum", out, in, dims, arg});
}

// reduce.cu's two kernels run by their CPU emulation over the plan, into the planned output.
Tensor walk(kernels::ReduceLaunch l, const Tensor& out) {
  std::vector<char> partial(size_t(reduce_partial_bytes(l)));
  l.partial = partial.data();
  kernels::emulate_reduce(l);
  return out;
}

TEST(CudaReducePlan, KeptAndReducedDimsMergeWhereTheInputIsContiguous) {
  const Tensor in = ones({2, 3, 4, 5});
  const Tensor out = empty({2});
  const kernels::ReduceLaunch l = plan(ReduceOp::sum, out, in, {1, 2, 3});
  EXPECT_EQ(l.type, kernels::Type::float32);
  EXPECT_EQ(l.outputs, 2);
  EXPECT_EQ(l.reduced, 60);
  EXPECT_EQ(l.kept_ndim, 1);
  EXPECT_EQ(l.kept_strides[0], 240);  // bytes
  ASSERT_EQ(l.reduced_ndim, 1);       // (3, 4, 5) merged into one run of 60
  EXPECT_EQ(l.reduced_shape[0], 60);
  EXPECT_EQ(l.reduced_strides[0], 4);
  EXPECT_EQ(l.splits, 1u);
  EXPECT_EQ(l.blocks, 2u);
  EXPECT_EQ(l.threads, 64u);  // 60 values a block: two warps
  // Kept dims 0 and 2 around a reduced one stay apart in the input: two kept dims.
  const kernels::ReduceLaunch m = plan(ReduceOp::amax, empty({2, 4}), in, {1, 3});
  EXPECT_EQ(m.kept_ndim, 2);
  EXPECT_EQ(m.reduced_ndim, 2);
  EXPECT_EQ(m.reduced_strides[0], 80);
  EXPECT_EQ(m.reduced_strides[1], 4);
}

TEST(CudaReducePlan, FewOutputsOverManyElementsSplitAcrossBlocks) {
  const Tensor in = empty({int64_t(1) << 24});
  const kernels::ReduceLaunch l = plan(ReduceOp::sum, empty({}), in, {0});
  EXPECT_EQ(l.outputs, 1);
  EXPECT_EQ(l.splits, uint32_t(kReduceTargetBlocks));
  EXPECT_EQ(l.chunk * l.splits, int64_t(1) << 24);
  EXPECT_EQ(reduce_partial_bytes(l), kReduceTargetBlocks * 4);  // float accumulators
  EXPECT_EQ(l.threads, kReduceThreads);
  const kernels::ReduceLaunch small = plan(ReduceOp::sum, empty({}), empty({100}), {0});
  EXPECT_EQ(small.splits, 1u);
  EXPECT_EQ(reduce_partial_bytes(small), 0);
  const Tensor h = empty({4, 100000}, {.dtype = kFloat16});
  const kernels::ReduceLaunch half = plan(ReduceOp::mean, empty({4}, {.dtype = kFloat16}), h, {1});
  EXPECT_EQ(half.type, kernels::Type::float16);
  EXPECT_EQ(half.splits, uint32_t((100000 + kReduceMinChunk - 1) / kReduceMinChunk));
  EXPECT_EQ(reduce_partial_bytes(half), 4 * int64_t(half.splits) * 4);  // float32, not half
}

// Transposed, sliced and broadcast inputs, over all or some dims, split or not: the walked plan
// gives the CPU's sum, mean, amax and amin.
TEST(CudaReducePlan, WalkingThePlanGivesTheCpusReductions) {
  const Tensor values = (arange(40 * 30 * 6, {.dtype = kFloat64}).reshape({40, 30, 6}) * 0.37)
                            .sin();
  const std::pair<const char*, Tensor> inputs[] = {
      {"contiguous", values},
      {"transposed", values.transpose(0, 2)},
      {"sliced", values.narrow(1, 3, 20).narrow(2, 1, 4)},
      {"broadcast", values.select(1, 2).unsqueeze(1).expand({40, 7, 6})},
  };
  const std::vector<std::vector<int64_t>> dim_sets = {{0, 1, 2}, {1}, {0, 2}, {2}};
  for (const auto& [name, in] : inputs)
    for (const auto& dims : dim_sets) {
      int64_t count = 1;
      for (int64_t d : dims) count *= in.size(d);
      const Tensor want[] = {in.sum(dims), in.mean(dims), in.amax(dims), in.amin(dims)};
      const ReduceOp ops[] = {ReduceOp::sum, ReduceOp::mean, ReduceOp::amax, ReduceOp::amin};
      for (int k = 0; k < 4; ++k) {
        const Tensor out = empty(want[k].sizes(), {.dtype = kFloat64});
        const kernels::ReduceLaunch l = plan(ops[k], out, in, dims, double(count));
        const Tensor got = walk(l, out);
        EXPECT_TRUE(allclose(got, want[k], 1e-12, 1e-12))
            << name << " input, op " << k << ", " << dims.size() << " dims";
      }
    }
  // A large sum that splits: the chunks cover every element once.
  const Tensor big = ones({3 * kReduceMinChunk + 5}, {.dtype = kFloat64});
  const Tensor total = empty({}, {.dtype = kFloat64});
  const kernels::ReduceLaunch l = plan(ReduceOp::sum, total, big, {0});
  EXPECT_EQ(l.splits, 4u);
  EXPECT_EQ(walk(l, total).item<double>(), double(big.numel()));
}

/// The CPU backend's `entry` over the same call: the reference the emulated kernels must meet.
Tensor cpu_reduce(backend::ReduceFn backend::ReduceKernels::*entry, const Tensor& in,
                  std::vector<int64_t> dims, double arg = 0) {
  const Tensor out = empty(in.sum(dims).sizes(), {.dtype = in.dtype()});
  backend::kernel("cpu", Device(kCPU), &backend::Backend::reduce,
                  entry)({"cpu", out, in, dims, arg});
  return out;
}

// nansum, prod and the norms in every floating dtype over strided, sliced and broadcast inputs
// and a split one. Exact where no rounding happens: nansum of small integers with NaNs, the
// +-inf norms (an |x| picked), a NaN's way through max|x|. Else within the rounding of n
// accumulations of the accumulator type, the load's own rounding (pow, square) and the store's.
TEST(CudaReducePlan, NansumProdAndNormsMatchTheCpuBackend) {
  using backend::ReduceKernels;
  const Tensor base =
      (arange(40 * 30 * 6, {.dtype = kFloat64}).reshape({40, 30, 6}) * 0.37).sin() * 3;
  const std::vector<std::vector<int64_t>> dim_sets = {{0, 1, 2}, {1}, {0, 2}};
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    const double eps_acc = dtype == kFloat64 ? 0x1p-52 : 0x1p-23;
    const double eps_out = dtype == kFloat16 ? 0x1p-10 : dtype == kBFloat16 ? 0x1p-7 : eps_acc;
    const Tensor v = base.to(dtype);
    const Tensor inputs[] = {v.transpose(0, 2), v.narrow(1, 3, 20).narrow(2, 1, 4),
                             v.select(1, 2).unsqueeze(1).expand({40, 7, 6})};
    for (const Tensor& in : inputs)
      for (const auto& dims : dim_sets) {
        const std::string what = std::string(dtype_name(dtype)) + " over " +
                                 std::to_string(dims.size()) + " dims of " +
                                 std::to_string(in.numel());
        const auto run = [&](ReduceOp op, double arg) {
          const Tensor out = empty(in.sum(dims).sizes(), {.dtype = dtype});
          return walk(plan(op, out, in, dims, arg), out).to(kFloat64);
        };
        const double n = double(in.numel() / in.sum(dims).numel());
        // Within rel of the reference, relative to the sum of |what was summed|.
        const auto near = [&](const Tensor& got, const Tensor& want, const Tensor& scale,
                              double rel) {
          // Equal also covers an overflow to inf on both sides (float16's |x|^0.5 sums).
          return ((got - want).abs() <= scale * rel + want.abs() * 2 * eps_out)
              .logical_or(got == want)
              .all()
              .item<bool>();
        };
        const Tensor in64 = in.to(kFloat64);
        // prod of values near 1 (no overflow): n roundings, relative.
        const Tensor near_one = (in * 0.01 + 1).to(dtype);
        {
          const Tensor out = empty(in.sum(dims).sizes(), {.dtype = dtype});
          const Tensor got = walk(plan(ReduceOp::prod, out, near_one, dims), out).to(kFloat64);
          const Tensor want = cpu_reduce(&ReduceKernels::prod, near_one, dims).to(kFloat64);
          EXPECT_TRUE(near(got, want, want.abs(), 4 * n * eps_acc)) << "prod, " << what;
        }
        for (const double p : {1.0, 2.0, 3.0, 0.5, -1.5}) {
          const Tensor got = run(ReduceOp::norm, p);
          const Tensor want = cpu_reduce(&ReduceKernels::norm, in, dims, p).to(kFloat64);
          // The p-th root scales a relative error of the sum by 1/|p|.
          EXPECT_TRUE(near(got, want, want.abs(), 8 * n * eps_acc / std::min(1.0, std::abs(p))))
              << "norm " << p << ", " << what << "\ngot " << got << "\nwant " << want;
        }
        for (const double p : {INFINITY, -INFINITY})
          EXPECT_TRUE(run(ReduceOp::norm, p)
                          .equal(cpu_reduce(&ReduceKernels::norm, in, dims, p).to(kFloat64)))
              << "norm " << p << ", " << what;
        const Tensor sum_abs = in64.abs().sum(dims);
        EXPECT_TRUE(near(run(ReduceOp::nansum, 0),
                         cpu_reduce(&ReduceKernels::nansum, in, dims).to(kFloat64), sum_abs,
                         4 * n * eps_acc))
            << "nansum, " << what;
      }
    // NaNs: skipped by nansum (exact on small integers, split over blocks too), winning max|x|.
    const Tensor ints = (base.reshape({-1}).repeat({3}) * 4).round().to(dtype);  // 21600
    ints.narrow(0, 5, 3).fill_(NAN);
    ints.select(0, 20000).fill_(NAN);
    const Tensor total = empty({}, {.dtype = dtype});
    const kernels::ReduceLaunch split = plan(ReduceOp::nansum, total, ints, {0});
    EXPECT_GT(split.splits, 1u);
    EXPECT_TRUE(walk(split, total).equal(cpu_reduce(&ReduceKernels::nansum, ints, {0}))) << dtype;
    const Tensor rows = ints.reshape({8, -1});
    const Tensor inf_norm = empty({8}, {.dtype = dtype});
    const Tensor want_inf = cpu_reduce(&ReduceKernels::norm, rows, {1}, INFINITY);
    walk(plan(ReduceOp::norm, inf_norm, rows, {1}, INFINITY), inf_norm);
    EXPECT_TRUE(allclose(inf_norm, want_inf, 0, 0, /*equal_nan=*/true))
        << dtype << "\ngot " << inf_norm << "\nwant " << want_inf;
    EXPECT_TRUE(std::isnan(inf_norm.select(0, 0).to(kFloat64).item<double>()));
  }
}

// aminmax: amin's and amax's launches into lo and hi, the CPU's one-pass kernel's results, NaN
// winning both.
TEST(CudaReducePlan, AminmaxIsTheCpusOnStridedInputs) {
  const auto cpu_aminmax = backend::backend_for(kCPU)->reduce.aminmax;
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    const Tensor v = ((arange(40 * 30 * 6, {.dtype = kFloat64}) * 0.37).sin() * 3)
                         .reshape({40, 30, 6})
                         .to(dtype);
    v.select(0, 7).select(0, 4).select(0, 2).fill_(NAN);
    const Tensor inputs[] = {v.transpose(0, 2), v.narrow(1, 3, 20)};
    for (const Tensor& in : inputs)
      for (const std::vector<int64_t>& dims :
           {std::vector<int64_t>{0, 1, 2}, std::vector<int64_t>{1}, std::vector<int64_t>{2}}) {
        const DimVector shape(in.sum(dims).sizes());
        const Tensor lo = empty(shape, {.dtype = dtype}), hi = empty(shape, {.dtype = dtype});
        const Tensor want_lo = empty(shape, {.dtype = dtype}),
                     want_hi = empty(shape, {.dtype = dtype});
        const auto [min, max] = plan_aminmax_launches("aminmax", lo, hi, in, dims);
        walk(min, lo);
        walk(max, hi);
        cpu_aminmax("aminmax", want_lo, want_hi, in, dims);
        EXPECT_TRUE(allclose(lo, want_lo, 0, 0, /*equal_nan=*/true)) << dtype;
        EXPECT_TRUE(allclose(hi, want_hi, 0, 0, /*equal_nan=*/true)) << dtype;
        EXPECT_TRUE(lo.isnan().any().item<bool>()) << dtype;
        EXPECT_FALSE(lo.equal(hi)) << dtype;
      }
  }
}

// var/std and their means in two passes against the CPU's double Welford: within the rounding of
// n accumulations in the accumulator type and the store; n <= correction gives inf (or NaN for
// an empty line) on both sides.
TEST(CudaReducePlan, VarStdAndTheirMeansAreTheCpusWithinRounding) {
  const auto cpu_var = backend::backend_for(kCPU)->reduce.var;
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    const double eps_acc = dtype == kFloat64 ? 0x1p-52 : 0x1p-23;
    const double eps_out = dtype == kFloat16 ? 0x1p-10 : dtype == kBFloat16 ? 0x1p-7 : eps_acc;
    const Tensor v = ((arange(40 * 30 * 6, {.dtype = kFloat64}) * 0.37).sin() * 3 + 5)
                         .reshape({40, 30, 6})
                         .to(dtype);
    const Tensor inputs[] = {v.transpose(0, 2), v.narrow(1, 3, 20),
                             v.narrow(0, 0, 1).narrow(1, 0, 2), empty({3, 0}, {.dtype = dtype})};
    for (const Tensor& in : inputs)
      for (const std::vector<int64_t>& dims : {std::vector<int64_t>{0, 1}, std::vector<int64_t>{1}})
        for (const int64_t correction : {0, 1, 2})
          for (const bool take_sqrt : {false, true}) {
            const DimVector shape(in.sum(dims).sizes());
            const auto fresh = [&] { return empty(shape, {.dtype = dtype}); };
            const Tensor var = fresh(), mean = fresh(), want_var = fresh(), want_mean = fresh();
            const backend::MomentsCall call{"var", var, mean, in, dims, correction, take_sqrt};
            const MomentsWork w = plan_moments(call);
            walk(w.mean, w.center);
            walk(w.var, var);
            ASSERT_TRUE(w.mean_out.has_value());
            if (w.mean_out->numel > 0) kernels::emulate_copy(*w.mean_out);
            cpu_var({"var", want_var, want_mean, in, dims, correction, take_sqrt});
            const double n = double(in.numel()) / double(std::max<int64_t>(1, var.numel()));
            const auto near = [&](const Tensor& got, const Tensor& want, const Tensor& scale) {
              const Tensor g = got.to(kFloat64), x = want.to(kFloat64);
              return ((g - x).abs() <= scale * (8 * n * eps_acc) + x.abs() * 2 * eps_out)
                  .logical_or(g == x)
                  .logical_or(g.isnan().logical_and(x.isnan()))
                  .all()
                  .item<bool>();
            };
            const std::string what = std::string(dtype_name(dtype)) + " " +
                                     std::to_string(in.numel()) + " over " +
                                     std::to_string(dims.size()) + " dims, correction " +
                                     std::to_string(correction) + (take_sqrt ? ", std" : "");
            EXPECT_TRUE(near(var, want_var, want_var.to(kFloat64).abs()))
                << what << "\ngot " << var << "\nwant " << want_var;
            const Tensor scale =
                in.numel() ? in.to(kFloat64).abs().mean(dims) : zeros(shape, {.dtype = kFloat64});
            EXPECT_TRUE(near(mean, want_mean, scale)) << what;
          }
  }
}

// max/min with indices against the CPU's: repeated extrema (the first position wins), NaN
// (beating every number, its first position), zeros of both signs (the first one's sign), rows
// of 1 to 700 elements (more than the 256 threads of a block) and a grid of fewer blocks than
// rows.
TEST(CudaReducePlan, MaxAndMinWithIndicesAreTheCpus) {
  const auto cpu = backend::backend_for(kCPU)->reduce;
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    for (const int64_t cols : {1, 5, 33, 700}) {
      const int64_t rows = 9;
      Tensor x = ((arange(rows * cols, {.dtype = kInt64}) * 7 % 11) - 5)
                     .to(dtype)
                     .reshape({rows, cols});  // many ties
      if (cols > 5) {
        x.select(0, 1).select(0, 3).fill_(NAN);
        x.select(0, 1).select(0, cols - 1).fill_(NAN);
        x.select(0, 2).fill_(0.0);
        x.select(0, 2).select(0, 0).fill_(-0.0);
      }
      for (const bool is_max : {true, false}) {
        const Tensor values = empty({rows}, {.dtype = dtype}), want_values = empty_like(values);
        const Tensor indices = empty({rows}, {.dtype = kInt64}), want_indices = empty_like(indices);
        kernels::ArgReduceLaunch l = plan_arg_reduce_launch("max", is_max, values, indices, x);
        l.blocks = 4;  // fewer than the rows: each block loops
        kernels::emulate_arg_reduce(l);
        (is_max ? cpu.max_dim : cpu.min_dim)("max", want_values, want_indices, x);
        EXPECT_TRUE(indices.equal(want_indices))
            << dtype << " " << cols << (is_max ? " max" : " min") << "\ngot " << indices
            << "\nwant " << want_indices;
        EXPECT_TRUE(allclose(values, want_values, 0, 0, /*equal_nan=*/true)) << dtype << cols;
        EXPECT_EQ(std::signbit(values.to(kFloat64).select(0, 2).item<double>()),
                  std::signbit(want_values.to(kFloat64).select(0, 2).item<double>()));
      }
    }
  }
  EXPECT_ERROR(
      plan_arg_reduce_launch("max", true, empty({2}, {.dtype = kInt64}),
                             empty({2}, {.dtype = kInt64}), zeros({2, 3}, {.dtype = kInt64})),
      "[max] the cuda backend has no int64 kernel yet");
}

TEST(CudaReducePlan, ZeroDimensionalAndEmptyInputs) {
  const Tensor x = full({}, 2.5);
  const kernels::ReduceLaunch l = plan(ReduceOp::sum, empty({}), x, {});
  EXPECT_EQ(l.outputs, 1);
  EXPECT_EQ(l.reduced, 1);
  EXPECT_EQ(l.kept_ndim + l.reduced_ndim, 0);
  EXPECT_EQ(l.threads, 32u);  // never fewer than a warp
  const kernels::ReduceLaunch e = plan(ReduceOp::mean, empty({3}), empty({3, 0}), {1});
  EXPECT_EQ(e.reduced, 0);
  EXPECT_EQ(e.splits, 1u);
}

// sum, prod, amax and amin of int32, int64 and bool (any/all are amax/amin over bool): int64
// accumulators, sums and products stored as int64 (int32 wrapping as the CPU's), on strided
// inputs, split and not, against the CPU backend's entries bit for bit.
TEST(CudaReducePlan, IntegerReductionsAreTheCpus) {
  using backend::ReduceKernels;
  const auto& cpu = backend::backend_for(kCPU)->reduce;
  const Tensor base = (arange(40 * 30 * 6, {.dtype = kInt64}) * 7919 % 2001 - 1000)
                          .reshape({40, 30, 6});
  const std::vector<std::vector<int64_t>> dim_sets = {{0, 1, 2}, {1}, {0, 2}};
  const std::pair<ReduceOp, backend::ReduceFn ReduceKernels::*> ops[] = {
      {ReduceOp::sum, &ReduceKernels::sum}, {ReduceOp::prod, &ReduceKernels::prod},
      {ReduceOp::amax, &ReduceKernels::amax}, {ReduceOp::amin, &ReduceKernels::amin}};
  for (const Dtype dtype : {kInt32, kInt64, kBool}) {
    // Products of small values (-2..2), so int64 products neither overflow nor vanish.
    const Tensor v = dtype == kBool ? (base % 3 == 0) : base.to(dtype);
    const Tensor small = dtype == kBool ? v : (base % 5 - 2).to(dtype);
    for (const auto& [op, entry] : ops) {
      const Tensor& x = op == ReduceOp::prod ? small : v;
      const Tensor inputs[] = {x.transpose(0, 2), x.narrow(1, 3, 20).narrow(2, 1, 4)};
      const bool promotes = (op == ReduceOp::sum || op == ReduceOp::prod) && dtype != kInt64;
      const Dtype out_dtype = promotes ? kInt64 : dtype;
      for (const Tensor& in : inputs)
        for (const auto& dims : dim_sets) {
          std::vector<int64_t> kept;
          for (int64_t d = 0; d < in.dim(); ++d)
            if (std::find(dims.begin(), dims.end(), d) == dims.end()) kept.push_back(in.size(d));
          const Tensor got = empty(kept, {.dtype = out_dtype}), want = empty_like(got);
          walk(plan_reduce_launch(op, {"reduce", got, in, dims}), got);
          (cpu.*entry)({"reduce", want, in, dims});
          EXPECT_TRUE(got.equal(want)) << dtype_name(dtype) << " op " << int(op) << " over "
                                       << dims.size() << " dims";
        }
    }
  }
  // One output over 2^20 int32 elements: the split pass combines int64 partials.
  const Tensor many = (arange(int64_t(1) << 20, {.dtype = kInt64}) % 1000).to(kInt32);
  const kernels::ReduceLaunch l = plan(ReduceOp::sum, empty({}, {.dtype = kInt64}), many, {0});
  EXPECT_GT(l.splits, 1u);
  EXPECT_EQ(reduce_partial_bytes(l), int64_t(l.splits) * 8);
  const Tensor total = empty({}, {.dtype = kInt64});
  walk(plan_reduce_launch(ReduceOp::sum, {"sum", total, many, {0}}), total);
  EXPECT_EQ(total.item<int64_t>(), many.to(kInt64).sum().item<int64_t>());
}

TEST(CudaReducePlan, OtherDtypesAreErrors) {
  const Tensor i = arange(4);
  EXPECT_ERROR(plan_reduce_launch(ReduceOp::mean, {"mean", empty({}, {.dtype = kInt64}), i, {0}}),
               "[mean] the cuda backend has no int64 kernel yet (mean on cpu takes float32, "
               "float64, float16 or bfloat16)");
  EXPECT_ERROR(plan(ReduceOp::sum, empty({}), arange(4, {.dtype = kInt16}), {0}),
               "[sum] the cuda backend reduces into the input's dtype (int64 for sums and "
               "products of integers), got torch.int16 into torch.float32");
  EXPECT_ERROR(plan(ReduceOp::sum, empty({}, {.dtype = kInt16}), arange(4, {.dtype = kInt16}), {0}),
               "[sum] the cuda backend has no int16 kernel yet (sum on cpu takes float32, "
               "float64, float16 or bfloat16, int32, int64 or bool)");
  EXPECT_ERROR(plan(ReduceOp::sum, empty({}, {.dtype = kFloat64}), ones({4}), {0}),
               "[sum] the cuda backend reduces into the input's dtype (int64 for sums and "
               "products of integers), got torch.float32 into torch.float64");
}

TEST(CudaSoftmaxPlan, LinesAreOuterTimesInnerWithTheDimBetween) {
  const Tensor x = ones({2, 3, 4, 5}), y = empty({2, 3, 4, 5});
  const kernels::SoftmaxLaunch l = plan_softmax_launch("softmax", y, x, 2, false);
  EXPECT_EQ(l.type, kernels::Type::float32);
  EXPECT_EQ(l.log, 0);
  EXPECT_EQ(l.outer, 6);
  EXPECT_EQ(l.dim, 4);
  EXPECT_EQ(l.inner, 5);
  EXPECT_EQ(l.lines, 30);
  EXPECT_EQ(l.blocks, 30u);
  EXPECT_EQ(l.threads, 32u);  // one warp for 4 values
  EXPECT_EQ(plan_softmax_launch("softmax", empty({2, 1000}), ones({2, 1000}), 1, false).threads,
            kSoftmaxThreads);
  const Tensor xd = ones({7}, {.dtype = kFloat64}), yd = empty({7}, {.dtype = kFloat64});
  const kernels::SoftmaxLaunch last = plan_softmax_launch("log_softmax", yd, xd, 0, true);
  EXPECT_EQ(last.type, kernels::Type::float64);
  EXPECT_EQ(last.log, 1);
  EXPECT_EQ(last.lines, 1);
  EXPECT_EQ(last.dim, 7);
  const kernels::SoftmaxLaunch scalar =
      plan_softmax_launch("softmax", empty({}), full({}, 1.0f), 0, false);
  EXPECT_EQ(scalar.lines, 1);
  EXPECT_EQ(scalar.dim, 1);
  EXPECT_EQ(plan_softmax_launch("softmax", empty({3, 0}), empty({3, 0}), 1, false).lines, 0);
  EXPECT_ERROR(plan_softmax_launch("softmax", empty({3}, {.dtype = kFloat16}),
                                   empty({3}, {.dtype = kFloat16}), 0, false),
               "[softmax] the cuda backend has no float16 kernel yet");
}

}  // namespace
}  // namespace ember::cuda
