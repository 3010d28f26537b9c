// The host half of a CUDA elementwise launch (src/backend/cuda/elementwise_plan.cpp), over CPU
// tensors so that it runs in every build: how the layout is planned (merged dims, byte strides,
// broadcast and offset operands), the kernel type, alpha, the grid, and the errors. Then the
// elementwise kernels that draw random numbers (random_plan.cpp, random_body.cuh): Philox against
// Random123's known answers, and the emulated fills element by element against the Philox words
// Note [Philox streams] assigns to each element, in every dtype, with a grid smaller than the work;
// the fused dropout (dropout_plan.cpp, dropout_body.cuh) against the bernoulli fill of the same
// generator and the words of its vectorised walks; randperm's steps (randperm_plan.cpp,
// randperm_body.cuh: PyTorch's key width, the sort's order, the islands' shuffles, the whole
// permutation in every dtype). Last, the front ends (rand, randn, randint, randperm, dropout) on a
// fake device whose kernels are these emulated ones.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include "backend/cuda/dropout_plan.h"
#include "backend/cuda/elementwise_plan.h"
#include "backend/cuda/multinomial_plan.h"
#include "backend/cuda/emulation.h"
#include "backend/cuda/random_body.cuh"
#include "backend/cuda/random_plan.h"
#include "backend/cuda/randperm_body.cuh"
#include "backend/cuda/randperm_plan.h"
#include "backend/fake_device.h"
#include "ops/dropout.h"
#include "test_support.h"

namespace ember::cuda {
namespace {

using backend::ElementwiseArgs;
using backend::ElementwiseCall;
using K = backend::ElementwiseKernel;

char* bytes_of(const Tensor& t) { return static_cast<char*>(t.data_ptr()); }

TEST(CudaElementwisePlan, ContiguousOperandsMergeIntoOneDimension) {
  const Tensor out = empty({4, 5}), a = ones({4, 5}), b = ones({4, 5});
  const std::vector<Tensor> in{a, b};
  const ElementwiseArgs args{.scalar = {Scalar(2)}};
  const kernels::Launch l = plan_elementwise_launch(K::add, {"add", out, in, kFloat32, args});
  EXPECT_EQ(l.op, K::add);
  EXPECT_EQ(l.type, kernels::Type::float32);
  EXPECT_EQ(l.out_type, kernels::Type::float32);
  EXPECT_EQ(l.ndim, 1);
  EXPECT_EQ(l.numel, 20);
  EXPECT_EQ(l.shape[0], 20);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(l.strides[k][0], 4) << k;  // bytes
  EXPECT_EQ(l.base[0], bytes_of(out));
  EXPECT_EQ(l.base[1], bytes_of(a));
  EXPECT_EQ(l.base[2], bytes_of(b));
  EXPECT_EQ(l.scalar[0], 2.0);  // alpha
  EXPECT_EQ(l.threads, 256u);
  EXPECT_EQ(l.blocks, 1u);
}

TEST(CudaElementwisePlan, TransposedBroadcastAndOffsetOperandsKeepTheirStrides) {
  const Tensor out = empty({4, 5}, {.dtype = kFloat16});
  const Tensor a = ones({5, 4}, {.dtype = kFloat16}).t();  // strides (1, 4) elements
  const Tensor row = ones({2, 5}, {.dtype = kFloat16}).select(0, 1).expand({4, 5});  // (0, 1)
  const std::vector<Tensor> in{a, row};
  const ElementwiseArgs args;
  const kernels::Launch l = plan_elementwise_launch(K::mul, {"mul", out, in, kFloat16, args});
  EXPECT_EQ(l.type, kernels::Type::float16);
  ASSERT_EQ(l.ndim, 2);  // nothing merges: a's dims are the other way round
  EXPECT_EQ(l.shape[0], 4);
  EXPECT_EQ(l.shape[1], 5);
  EXPECT_EQ(l.strides[0][0], 10);  // the output, row-major, 2-byte elements
  EXPECT_EQ(l.strides[0][1], 2);
  EXPECT_EQ(l.strides[1][0], 2);   // a, transposed
  EXPECT_EQ(l.strides[1][1], 8);
  EXPECT_EQ(l.strides[2][0], 0);   // the broadcast row
  EXPECT_EQ(l.strides[2][1], 2);
  EXPECT_EQ(l.base[2], bytes_of(row));
  EXPECT_EQ(row.storage_offset(), 5);  // row 1: the base pointer includes the offset
}

TEST(CudaElementwisePlan, UnaryLaunchesAndTheirGrid) {
  const Tensor out = empty({3, 1000, 1000}, {.dtype = kBFloat16});
  const std::vector<Tensor> in{ones({3, 1000, 1000}, {.dtype = kBFloat16})};
  const kernels::Launch l =
      plan_elementwise_launch(K::exp, {"exp", out, in, kBFloat16, ElementwiseArgs{}});
  EXPECT_EQ(l.type, kernels::Type::bfloat16);
  EXPECT_EQ(l.numel, 3'000'000);
  EXPECT_EQ(l.blocks, (3'000'000u + 255) / 256);
  const Tensor big = empty({int64_t(1) << 25}, {.dtype = kFloat64});
  const std::vector<Tensor> big_in{big};
  const kernels::Launch capped =
      plan_elementwise_launch(K::neg, {"neg", big, big_in, kFloat64, ElementwiseArgs{}});
  EXPECT_EQ(capped.type, kernels::Type::float64);
  EXPECT_EQ(capped.blocks, kElementwiseMaxBlocks);  // the grid-stride loop does the rest
  const Tensor scalar = zeros({2}).select(0, 1);  // 0-d
  const std::vector<Tensor> scalar_in{ones({2}).select(0, 0)};
  const kernels::Launch one =
      plan_elementwise_launch(K::relu, {"relu", scalar, scalar_in, kFloat32, ElementwiseArgs{}});
  EXPECT_EQ(one.ndim, 0);
  EXPECT_EQ(one.numel, 1);
  EXPECT_EQ(one.blocks, 1u);
}

TEST(CudaElementwisePlan, ComparisonsStoreBoolAndArgumentsConvertAsTheCpuKernels) {
  const Tensor a = arange(4, {.dtype = kInt64}), flags = empty({4}, {.dtype = kBool});
  const std::vector<Tensor> in{a, a};
  const kernels::Launch lt = plan_elementwise_launch(K::lt, {"lt", flags, in, kInt64, {}});
  EXPECT_EQ(lt.type, kernels::Type::int64);
  EXPECT_EQ(lt.out_type, kernels::Type::boolean);
  EXPECT_EQ(lt.strides[0][0], 1);  // bool bytes
  EXPECT_EQ(lt.strides[1][0], 8);
  // An int64 alpha beyond 2^53 stays exact; clamp's absent bound is the type's extreme.
  const ElementwiseArgs big{.scalar = {Scalar((int64_t(1) << 60) + 1)}};
  const Tensor out = empty({4}, {.dtype = kInt64});
  EXPECT_EQ(plan_elementwise_launch(K::add, {"add", out, in, kInt64, big}).integer_scalar[0],
            (int64_t(1) << 60) + 1);
  const std::vector<Tensor> one{a};
  const kernels::Launch clamp = plan_elementwise_launch(K::clamp, {"clamp", out, one, kInt64, big});
  EXPECT_EQ(clamp.integer_scalar[1], std::numeric_limits<int64_t>::max());
  const Tensor f = empty({4});
  const std::vector<Tensor> fin{f};
  const ElementwiseArgs nan_min{.scalar = {Scalar(NAN)}};  // a NaN bound alone is ignored
  const kernels::Launch fc = plan_elementwise_launch(K::clamp, {"clamp", f, fin, kFloat32, nan_min});
  EXPECT_EQ(fc.scalar[0], -INFINITY);
  EXPECT_EQ(fc.scalar[1], INFINITY);
  const ElementwiseArgs decimals{.integer = -2};
  EXPECT_EQ(plan_elementwise_launch(K::round_decimals, {"round", f, fin, kFloat32, decimals}).real[0],
            100.0);
}

TEST(CudaElementwisePlan, OtherDtypesArgumentsAndUnmergeableRanksAreErrors) {
  const Tensor i = arange(4);
  const std::vector<Tensor> in{i, i};
  EXPECT_ERROR(plan_elementwise_launch(K::exp, {"exp", i, in, kInt64, ElementwiseArgs{}}),
               "[exp] the cuda backend has no int64 kernel yet (exp on cpu takes float32, "
               "float64, float16 or bfloat16)");
  const Tensor bytes = zeros({4}, {.dtype = kInt8});
  const std::vector<Tensor> byte_in{bytes, bytes};
  EXPECT_ERROR(plan_elementwise_launch(K::bitwise_and, {"bitwise_and", bytes, byte_in, kInt8, {}}),
               "[bitwise_and] the cuda backend has no int8 kernel yet (bitwise_and on cpu takes "
               "int32, int64 or bool)");
  EXPECT_ERROR(plan_elementwise_launch(K::add, {"add", i, in, kInt64, ElementwiseArgs{}}),
               "[add] expected the alpha, got none");
  const ElementwiseArgs half{.scalar = {Scalar(0.5)}};
  EXPECT_ERROR(plan_elementwise_launch(K::add, {"add", i, in, kInt64, half}),
               "[add] For integral input tensors, argument alpha must not be a floating point");
  const Tensor i32 = arange(4, {.dtype = kInt32});
  const std::vector<Tensor> i32_in{i32};
  const ElementwiseArgs huge{.scalar = {Scalar(int64_t(1) << 40)}};
  EXPECT_ERROR(plan_elementwise_launch(K::clamp, {"clamp", i32, i32_in, kInt32, huge}),
               "[clamp] value cannot be converted to type torch.int32 without overflow");
  EXPECT_ERROR(plan_elementwise_launch(K::eq, {"eq", i, in, kInt64, {}}),
               "[eq] expected a torch.bool output, got torch.int64");
  // 13 dims of size 2, the input's reversed: no two neighbours merge.
  std::vector<int64_t> shape(13, 2), reversed(13);
  for (int64_t d = 0; d < 13; ++d) reversed[size_t(d)] = 12 - d;
  const Tensor out = ember::empty(shape);  // qualified: std::empty is found by ADL
  const std::vector<Tensor> deep{ones(shape).permute(reversed)};
  EXPECT_ERROR(plan_elementwise_launch(K::neg, {"neg", out, deep, kFloat32, ElementwiseArgs{}}),
               "[neg] the cuda backend's elementwise kernels take at most 12 dimensions that "
               "cannot be merged, got 13");
}

// ── random fills ────────────────────────────────────────────────────────────────────────────

using kernels::Distribution;
using kernels::Words4;

// Random123's kat_vectors for philox4x32 10 rounds: counter, key, expected output.
TEST(CudaRandomPlan, PhiloxMatchesRandom123sKnownAnswers) {
  struct Kat {
    Words4 ctr;
    uint32_t k0, k1;
    Words4 out;
  };
  const Kat kats[] = {
      {{0, 0, 0, 0}, 0, 0, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{~0u, ~0u, ~0u, ~0u}, ~0u, ~0u, {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
       0xa4093822,
       0x299f31d0,
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},  // the digits of pi
  };
  for (const Kat& k : kats) {
    const Words4 out = kernels::philox4x32_10(k.ctr, k.k0, k.k1);
    EXPECT_EQ(out.x, k.out.x);
    EXPECT_EQ(out.y, k.out.y);
    EXPECT_EQ(out.z, k.out.z);
    EXPECT_EQ(out.w, k.out.w);
  }
}

bool same_words(const Words4& a, const Words4& b) {
  return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
}

// curand_init(seed, subsequence, offset): key = seed, counter = (offset / 4, subsequence), and an
// offset that is not a multiple of 4 starts inside a block.
TEST(CudaRandomPlan, PhiloxStreamsFollowCurandsSeedSubsequenceAndOffset) {
  const uint64_t seed = 0x0123456789abcdefULL, sub = 0x100000002ULL;
  const auto block = [&](uint64_t b) {
    return kernels::philox4x32_10({uint32_t(b), uint32_t(b >> 32), 2, 1}, 0x89abcdef, 0x01234567);
  };
  kernels::Philox rng(seed, sub, 8);
  EXPECT_TRUE(same_words(rng.next4(), block(2)));
  EXPECT_TRUE(same_words(rng.next4(), block(3)));
  kernels::Philox inside(seed, sub, 4 * ((uint64_t(1) << 32) - 1) + 2);  // a carry into y
  const Words4 a = block((uint64_t(1) << 32) - 1), b = block(uint64_t(1) << 32);
  EXPECT_TRUE(same_words(inside.next4(), Words4{a.z, a.w, b.x, b.y}));
}

// The four words and the lane element i of a launch reads (Note [Philox streams]), computed from
// the counter directly rather than through kernels::Philox.
std::pair<Words4, int> words_of(const kernels::RandomLaunch& l, int64_t i) {
  const int64_t grid = int64_t(l.blocks) * l.threads, unroll = kernels::random_unroll(l);
  const uint64_t thread = uint64_t(i % grid), draw = uint64_t(i / (grid * unroll));
  const uint64_t b = l.offset / 4 + draw;
  const Words4 w = kernels::philox4x32_10(
      {uint32_t(b), uint32_t(b >> 32), uint32_t(thread), uint32_t(thread >> 32)}, uint32_t(l.seed),
      uint32_t(l.seed >> 32));
  return {w, int((i / grid) % unroll)};
}

uint32_t word(const Words4& w, int k) { return k == 0 ? w.x : k == 1 ? w.y : k == 2 ? w.z : w.w; }

// curand's unit uniforms: (x + 1/2) 2^-32 in float, 53-bit (z + 1/2) 2^-53 in double.
double unit_uniform(const kernels::RandomLaunch& l, int64_t i) {
  const auto [w, lane] = words_of(l, i);
  if (l.type == kernels::Type::float64) {
    const uint64_t z = uint64_t(word(w, 2 * lane)) ^ (uint64_t(word(w, 2 * lane + 1)) << 21);
    return double(z) * 0x1p-53 + 0x1p-54;
  }
  return std::fma(float(word(w, lane)), 0x1p-32f, 0x1p-33f);
}

// Fills a (7, 300) tensor of `dtype` through its transpose (memory order is what counts) with a
// grid of two blocks, so each thread draws three times; returns the contiguous result as float64
// and the launch.
std::pair<Tensor, kernels::RandomLaunch> emulated_fill(Dtype dtype, const RandomFill& f,
                                                       uint64_t seed = 42) {
  PhiloxGenerator gen(seed);
  gen.philox_inputs(5);  // the launch starts at offset 8
  const Tensor t = zeros({7, 300}, {.dtype = dtype});
  const kernels::RandomLaunch l = plan_random_launch("fill", t.t(), f, gen, 2);
  kernels::emulate_random(l);
  EXPECT_EQ(l.offset, 8u);
  EXPECT_EQ(gen.offset(), 8u + 8u);  // 2100 elements over 2 x 256 threads: 2 draws of 4 each
  return {t.reshape({-1}).to(kFloat64), l};
}

// Expected values of each element, in float64, rounded to dtype as the kernel stores them.
Tensor expected(Dtype dtype, const kernels::RandomLaunch& l,
                const std::function<double(int64_t)>& f) {
  std::vector<double> v(size_t(l.numel));
  for (int64_t i = 0; i < l.numel; ++i) v[size_t(i)] = f(i);
  const Tensor e = from_blob(v.data(), {l.numel}, {.dtype = kFloat64}).clone();
  return (dtype == kFloat64 ? e : e.to(kFloat32)).to(dtype).to(kFloat64);
}

TEST(CudaRandomPlan, UniformIsCurandsUniformReversedAndScaled) {
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    const auto [y, l] = emulated_fill(dtype, {.dist = Distribution::uniform, .a = -2, .b = 3});
    const Tensor e = expected(dtype, l, [&, &l = l](int64_t i) {
      const double u = unit_uniform(l, i);
      return dtype == kFloat64 ? std::fma(u == 1 ? 0 : u, 5.0, -2.0)
                               : double(std::fma(float(u == 1 ? 0 : u), 5.0f, -2.0f));
    });
    EXPECT_TRUE(y.equal(e)) << dtype_name(dtype);
    EXPECT_GE(y.min().item<double>(), -2);
    // float16/bfloat16 may round up to `to` itself, as in PyTorch 1.13 (its issue 96947).
    EXPECT_LE(y.max().item<double>(), 3);
    if (dtype == kFloat32 || dtype == kFloat64) {
      EXPECT_LT(y.max().item<double>(), 3);
    }
  }
  // Bounds round to float first: [0.1f, 0.7f) with range 0.7f - 0.1f rounded to float.
  const auto [y, l] = emulated_fill(kFloat32, {.dist = Distribution::uniform, .a = 0.1, .b = 0.7});
  const float from = 0.1f, range = 0.7f - 0.1f;
  EXPECT_TRUE(y.equal(expected(kFloat32, l, [&, &l = l](int64_t i) {
    return double(std::fma(float(unit_uniform(l, i)), range, from));
  })));
}

TEST(CudaRandomPlan, NormalIsCurandsBoxMullerScaled) {
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    const auto [y, l] = emulated_fill(dtype, {.dist = Distribution::normal, .a = 1, .b = 2});
    const Tensor e = expected(dtype, l, [&, &l = l](int64_t i) {
      const auto [w, lane] = words_of(l, i);
      const int pair = dtype == kFloat64 ? 0 : lane / 2, half = dtype == kFloat64 ? lane : lane % 2;
      double u, angle;  // the radius' uniform and the angle, in double
      if (dtype == kFloat64) {
        u = (double(uint64_t(w.x) ^ uint64_t(w.y) << 21) + 0.5) * 0x1p-53;
        angle = (double(uint64_t(w.z) ^ uint64_t(w.w) << 21) + 0.5) * 0x1p-52 * M_PI;
      } else {
        u = std::fma(float(word(w, 2 * pair)), 0x1p-32f, 0x1p-33f);
        angle =
            std::fma(float(word(w, 2 * pair + 1)), 0x1p-32f * 6.2831855f, 0x1p-33f * 6.2831855f);
      }
      const double z =
          std::sqrt(-2 * std::log(u)) * (half == 0 ? std::sin(angle) : std::cos(angle));
      return 1 + 2 * z;
    });
    // libm's float sin/cos/log against double ones: a few float ulps (Note [Philox streams]).
    EXPECT_TRUE(y.allclose(e,
                           dtype == kFloat32   ? 1e-5
                           : dtype == kFloat64 ? 1e-12
                                               : 1e-2,
                           1e-5))
        << dtype_name(dtype) << " " << (y - e).abs().max().item<double>();
    EXPECT_NEAR(y.mean().item<double>(), 1, 0.2) << dtype_name(dtype);
    EXPECT_NEAR(y.std().item<double>(), 2, 0.2) << dtype_name(dtype);
  }
}

TEST(CudaRandomPlan, ExponentialIsMinusTheLogOfCurandsUniformOverLambda) {
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    const auto [y, l] = emulated_fill(dtype, {.dist = Distribution::exponential, .a = 2.5});
    // In float (double for float64); u within half an epsilon of 1 takes log = -epsilon/2.
    const Tensor e = expected(dtype, l, [&, &l = l](int64_t i) {
      const double u = unit_uniform(l, i);
      if (dtype == kFloat64) return u >= 1 - 0x1p-53 ? -1 / 2.5 * -0x1p-53 : -1 / 2.5 * std::log(u);
      const float uf = float(u);
      return double(uf >= 1 - 0x1p-24f ? -1 / 2.5f * -0x1p-24f : -1 / 2.5f * std::log(uf));
    });
    EXPECT_TRUE(y.allclose(e, dtype == kFloat64 ? 1e-14 : 1e-6, 0)) << dtype_name(dtype);
    EXPECT_GT(y.min().item<double>(), 0) << dtype_name(dtype);
    EXPECT_NEAR(y.mean().item<double>(), 1 / 2.5, 0.05) << dtype_name(dtype);
  }
}

// ── multinomial with replacement (Note [CUDA multinomial]) ───────────────────────────────────

/// The emulated steps of multinomial.cpp, into result; throws the CPU kernel's error for a bad row.
kernels::MultinomialLaunch multinomial_emulated(const Tensor& probs, const Tensor& result,
                                                PhiloxGenerator& gen, MultinomialWork* out = nullptr) {
  MultinomialWork w = plan_multinomial(probs, zeros({2}, {.dtype = kInt64}));
  kernels::emulate_copy(w.copy);
  kernels::emulate_renorm_rows(w.renorm);
  multinomial_error(w.record[0].item<int64_t>(), w.record[1].item<int64_t>());
  kernels::emulate_scan(w.scan);
  const kernels::MultinomialLaunch l = plan_multinomial_samples(w, result, gen);
  kernels::emulate_multinomial(l);
  if (out) *out = w;
  return l;
}

// Each (row, sample) is the first bucket whose prefix sum reaches the first uniform of thread
// (row * gx + sample / 128) * 128 + sample % 128's stream (one row a thread: rows < 65535), in
// the storage type; zero-probability buckets are never chosen; the rows are divided by their sums
// in the storage type; the generator moves 4 words a row.
TEST(CudaRandomPlan, MultinomialSamplesTheRowsPrefixSumsAtPhiloxUniforms) {
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    const Tensor probs =
        tensor({{1.0, 0.0, 3.0, 2.0, 0.0, 4.0}, {0.0, 5.0, 0.0, 0.0, 1.0, 0.0},
                {2.0, 2.0, 2.0, 2.0, 2.0, 2.0}}).to(dtype);
    const int64_t samples = 300;  // three blocks across
    PhiloxGenerator gen(1234);
    gen.philox_inputs(8);
    const Tensor result = empty({3, samples}, {.dtype = kInt64});
    MultinomialWork w;
    const kernels::MultinomialLaunch l = multinomial_emulated(probs, result, gen, &w);
    EXPECT_EQ(l.blocks_x, 3u);
    EXPECT_EQ(l.blocks_y, 3u);
    EXPECT_EQ(l.offset, 8u);
    EXPECT_EQ(gen.offset(), 8u + 4u);  // one row a thread
    EXPECT_TRUE(w.dist.to(kFloat64).equal((probs.to(kFloat64) / probs.to(kFloat64).sum(1, true))
                                              .to(dtype).to(kFloat64)) ||
                dtype == kFloat16 || dtype == kBFloat16)
        << dtype_name(dtype);  // the half types divide by a sum rounded on the way
    const Tensor prefix = w.prefix.to(kFloat64), dist = w.dist.to(kFloat64);
    for (int64_t row = 0; row < 3; ++row)
      for (int64_t sample = 0; sample < samples; ++sample) {
        const uint64_t idx = uint64_t((row * 3 + sample / 128) * 128 + sample % 128);
        kernels::Philox rng(l.seed, idx, l.offset);
        const double r = Tensor(full({}, kernels::uniform4(rng).v[0], {.dtype = kFloat32}))
                             .to(dtype).to(kFloat64).item<double>();
        int64_t want = 0;
        while (want < 5 && prefix[row][want].item<double>() < r) ++want;
        while (want >= 1 && dist[row][want].item<double>() == 0) --want;
        const int64_t got = result[row][sample].item<int64_t>();
        ASSERT_EQ(got, want) << dtype_name(dtype) << " row " << row << " sample " << sample;
      }
  }
  // The frequencies follow the probabilities.
  PhiloxGenerator gen(7);
  const Tensor many = empty({1, 20000}, {.dtype = kInt64});
  multinomial_emulated(tensor({0.1, 0.0, 0.6, 0.3}), many, gen);
  for (const auto& [k, p] : std::vector<std::pair<int64_t, double>>{{0, 0.1}, {1, 0}, {2, 0.6}})
    EXPECT_NEAR((many == k).to(kFloat64).mean().item<double>(), p, 0.02) << k;
}

TEST(CudaRandomPlan, BadMultinomialRowsRaiseTheCpusErrors) {
  PhiloxGenerator gen(1);
  const Tensor out = empty({2, 4}, {.dtype = kInt64});
  EXPECT_ERROR(multinomial_emulated(tensor({{1.0, 2.0}, {1.0, -1.0}}), out, gen),
               "[multinomial] invalid multinomial distribution (encountering probability entry "
               "< 0)");
  EXPECT_ERROR(multinomial_emulated(tensor({{1.0, INFINITY}, {1.0, 1.0}}), out, gen),
               "entry = infinity or NaN");
  EXPECT_ERROR(multinomial_emulated(tensor({{1.0, 2.0}, {0.0, 0.0}}), out, gen),
               "[multinomial] invalid multinomial distribution (sum of probabilities <= 0)");
  EXPECT_ERROR(plan_multinomial(tensor({1, 2}), zeros({2}, {.dtype = kInt64})),
               "multinomial only supports floating-point dtypes for input, got: torch.int64");
}

TEST(CudaRandomPlan, BernoulliComparesTheUniformWithP) {
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool}) {
    const auto [y, l] = emulated_fill(dtype, {.dist = Distribution::bernoulli, .a = 0.3});
    // float64 compares 53-bit doubles with p; the rest curand's floats with float(p).
    const Tensor e = expected(dtype, l, [&, &l = l](int64_t i) {
      const double u = unit_uniform(l, i);
      return dtype == kFloat64 ? double(u < 0.3) : double(float(u) < 0.3f);
    });
    EXPECT_TRUE(y.equal(e)) << dtype_name(dtype);
    EXPECT_NEAR(y.mean().item<double>(), 0.3, 0.05) << dtype_name(dtype);
  }
}

TEST(CudaRandomPlan, RandomTakesOneWordOrTwoPerElement) {
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64, kBool}) {
    const uint64_t range = dtype == kBool ? 2 : 100;
    const auto [y, l] = emulated_fill(
        dtype, {.dist = Distribution::random32, .range = range, .low = -7 * (dtype != kBool)});
    EXPECT_EQ(l.dist, Distribution::random32);
    EXPECT_TRUE(y.equal(expected(dtype, l, [&, &l = l](int64_t i) {
      const auto [w, lane] = words_of(l, i);
      return double(int64_t(word(w, lane) % range) - 7 * (dtype != kBool));
    }))) << dtype_name(dtype);
  }
  // A range of 2^32 or more draws (x << 32 | y) and (z << 32 | w) for the types that hold it.
  const uint64_t range = uint64_t(1) << 40;
  const auto [y, l] =
      emulated_fill(kInt64, {.dist = Distribution::random32, .range = range, .low = -5});
  EXPECT_EQ(l.dist, Distribution::random64);
  const Tensor got = y.to(kInt64);  // exact below 2^53
  for (int64_t i = 0; i < l.numel; i += 97) {
    const auto [w, lane] = words_of(l, i);
    const uint64_t pair = uint64_t(word(w, 2 * lane)) << 32 | word(w, 2 * lane + 1);
    EXPECT_EQ(got[i].item<int64_t>(), int64_t(pair % range) - 5) << i;
  }
}

TEST(CudaRandomPlan, TheGridAndTheGeneratorsOffsetAreDerivedAsPyTorchDoes) {
  EXPECT_EQ(random_max_blocks(132, 2048), 1056u);  // an H100 or H200
  PhiloxGenerator gen(5);
  const Tensor small = empty({1000}), big = empty({3'000'000});
  const RandomFill u{.dist = Distribution::uniform, .a = 0, .b = 1};
  kernels::RandomLaunch l = plan_random_launch("uniform_", small, u, gen, 1056);
  EXPECT_EQ(l.blocks, 4u);  // a thread per element
  EXPECT_EQ(l.threads, 256u);
  EXPECT_EQ(l.seed, 5u);
  EXPECT_EQ(l.offset, 0u);
  EXPECT_EQ(gen.offset(), 4u);
  l = plan_random_launch("uniform_", big, u, gen, 1056);
  EXPECT_EQ(l.blocks, 1056u);
  EXPECT_EQ(l.offset, 4u);
  EXPECT_EQ(gen.offset(), 4u + 12u);  // ceil(3e6 / (1056 * 256 * 4)) = 3 draws of 4 words
  EXPECT_EQ(plan_random_launch("uniform_", empty({0}), u, gen, 1056).numel, 0);
  EXPECT_EQ(gen.offset(), 16u);  // an empty tensor draws nothing
  // ember::manual_seed seeds the CUDA generators too, as torch.manual_seed does.
  default_philox_generator(0, "test").philox_inputs(4);
  manual_seed(1234);
  EXPECT_EQ(default_philox_generator(0, "test").initial_seed(), 1234u);
  EXPECT_EQ(default_philox_generator(0, "test").offset(), 0u);
}

TEST(CudaRandomPlan, BadFillsAreErrors) {
  PhiloxGenerator gen;
  const RandomFill u{.dist = Distribution::uniform, .a = 0, .b = 1};
  EXPECT_ERROR(plan_random_launch("uniform_", empty({3}, {.dtype = kInt64}), u, gen, 8),
               "[uniform_] expected a floating-point dtype, got torch.int64");
  EXPECT_ERROR(plan_random_launch("random_", empty({3}, {.dtype = kInt8}),
                                  {.dist = Distribution::random32, .range = 3}, gen, 8),
               "no int8 kernel yet");
  EXPECT_ERROR(plan_random_launch("normal_", empty({1}).expand({4}), u, gen, 8),
               "more than one element of the written-to tensor refers to a single memory location");
  EXPECT_ERROR(default_philox_generator(64, "normal_"), "[normal_] no CUDA generator for device");
  EXPECT_EQ(gen.offset(), 0u);  // refused launches draw nothing
}

// ── fused dropout ───────────────────────────────────────────────────────────────────────────

// y = x * mask * scale in the kernel's compute type, scale = 1 / keep rounded to it.
Tensor dropped(const Tensor& x, const Tensor& mask, double keep) {
  if (x.dtype() == kFloat64) return x * mask.to(kFloat64) * (1 / keep);
  const float scale = float(1.0 / double(float(keep)));
  return (x.to(kFloat32) * mask.to(kFloat32) * scale).to(x.dtype());
}

// A non-dense input walks one element per word, as the random fills: its mask is the bernoulli
// fill of 1 - p from the same generator state.
TEST(CudaDropoutPlan, TheUnrolledMaskIsTheBernoulliFillOfTheSameGenerator) {
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    const Tensor x = randn({7, 600}).to(dtype).narrow(1, 0, 300);
    const Tensor y = empty({7, 300}, {.dtype = dtype}), mask = empty({7, 300}, {.dtype = kBool});
    PhiloxGenerator gen(9), twin(9);
    const kernels::DropoutLaunch l = plan_dropout_launch("dropout", y, mask, x, 0.25, gen, 2);
    EXPECT_EQ(l.vec, 1);
    kernels::emulate_dropout(l);
    const Tensor b = zeros({7, 300});
    kernels::emulate_random(
        plan_random_launch("bernoulli_", b, {.dist = Distribution::bernoulli, .a = 0.75}, twin, 2));
    EXPECT_TRUE(mask.equal(b.to(kBool))) << dtype_name(dtype);
    EXPECT_EQ(gen.offset(), twin.offset());
    EXPECT_TRUE(y.equal(dropped(x, mask, 0.75))) << dtype_name(dtype);
  }
}

// A dense input takes 4 neighbours per draw (2 when numel is only even): element i is lane i % vec
// of thread (i / vec) % grid's draw i / (grid * vec).
TEST(CudaDropoutPlan, DenseInputsTakeNeighboursFromOneDraw) {
  for (const int64_t n : {2100, 1002}) {
    const Tensor x = randn({n}), y = empty({n}), mask = empty({n}, {.dtype = kBool});
    PhiloxGenerator gen(3);
    gen.philox_inputs(1);
    const kernels::DropoutLaunch l = plan_dropout_launch("dropout", y, mask, x, 0.4, gen, 2);
    ASSERT_EQ(l.vec, n % 4 == 0 ? 4 : 2);
    kernels::emulate_dropout(l);
    const int64_t grid = 2 * 256;
    std::vector<uint8_t> want(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t thread = uint64_t(i / l.vec % grid), b = 1 + uint64_t(i / (grid * l.vec));
      const Words4 w = kernels::philox4x32_10({uint32_t(b), 0, uint32_t(thread), 0}, 3, 0);
      want[size_t(i)] = std::fma(float(word(w, int(i % l.vec))), 0x1p-32f, 0x1p-33f) < 0.6f;
    }
    EXPECT_TRUE(mask.equal(from_blob(want.data(), {n}, {.dtype = kBool}))) << n;
    EXPECT_TRUE(y.equal(dropped(x, mask, 0.6))) << n;
  }
}

TEST(CudaDropoutPlan, BackwardScalesTheKeptGradients) {
  for (const Dtype dtype : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    const Tensor grad = randn({5, 1}).to(dtype).expand({5, 40});  // a broadcast operand
    const Tensor mask = randn({5, 40}) > 0, dx = empty({5, 40}, {.dtype = dtype});
    kernels::emulate_dropout_backward(
        plan_dropout_backward_launch("dropout", dx, grad, mask, 1.25));
    const Tensor want = dtype == kFloat64
                            ? grad * mask.to(kFloat64) * 1.25
                            : (mask.to(kFloat32) * grad.to(kFloat32) * 1.25f).to(dtype);
    EXPECT_TRUE(dx.equal(want)) << dtype_name(dtype);
  }
}

TEST(CudaDropoutPlan, BadDropoutsAreErrors) {
  PhiloxGenerator gen;
  const Tensor x = randn({4}), y = empty({4}), mask = empty({4}, {.dtype = kBool});
  EXPECT_ERROR(plan_dropout_launch("dropout", y, mask, x, 1.0, gen, 8),
               "[dropout] the fused kernel expects a probability in [0, 1), got 1");
  const Tensor i = zeros({4}, {.dtype = kInt64});
  EXPECT_ERROR(plan_dropout_launch("dropout", i, mask, i, 0.5, gen, 8),
               "[dropout] expected a floating-point input, got torch.int64");
  EXPECT_ERROR(plan_dropout_backward_launch("dropout", y, x, y, 2.0),
               "expected an output of the input's shape and dtype and a bool mask of that shape");
  EXPECT_EQ(gen.offset(), 0u);
}

// ── randperm (Note [CUDA randperm]) ────────────────────────────────────────────────────────────

/// w's steps emulated, in the order randperm.cpp queues them on the device.
void run_emulated(const RandpermWork& w) {
  kernels::emulate_random(w.fill_keys);
  kernels::emulate_randperm(w.fill_iota);
  kernels::emulate_randperm_sort(w.sort);
  kernels::emulate_randperm(w.islands);
  if (w.copy_out) kernels::emulate_copy(*w.copy_out);
}

// The widths are Randperm.cu's expression evaluated independently (Python's math.log2/ceil).
TEST(CudaRandpermPlan, KeyBitsAreRandpermCusAndPickTheKeys) {
  EXPECT_EQ(randperm_key_bits(1), 3);
  EXPECT_EQ(randperm_key_bits(2), 5);
  EXPECT_EQ(randperm_key_bits(10), 9);
  EXPECT_EQ(randperm_key_bits(1000), 23);
  EXPECT_EQ(randperm_key_bits(30083), 32);  // the largest n with int32 keys
  EXPECT_EQ(randperm_key_bits(30084), 33);
  PhiloxGenerator gen(5);
  const RandpermWork narrow = plan_randperm(empty({30083}, {.dtype = kInt64}), gen, 8);
  EXPECT_EQ(narrow.keys.dtype(), kInt32);
  EXPECT_EQ(narrow.fill_keys.dist, Distribution::random32);  // random_(INT32_MIN, INT32_MAX)
  EXPECT_EQ(narrow.fill_keys.range, 0xFFFFFFFFu);
  EXPECT_EQ(narrow.fill_keys.low, int64_t(INT32_MIN));
  EXPECT_EQ(narrow.islands.mask, 0xFFFFFFFFu);
  const RandpermWork wide = plan_randperm(empty({30084}, {.dtype = kInt64}), gen, 8);
  EXPECT_EQ(wide.keys.dtype(), kInt64);
  EXPECT_EQ(wide.fill_keys.dist, Distribution::random64);  // two words per key
  EXPECT_EQ(wide.fill_keys.low, INT64_MIN);
  EXPECT_EQ(wide.islands.mask, (uint64_t(1) << 33) - 1);
  EXPECT_EQ(wide.islands.blocks, (30084u + 511) / 512);
  EXPECT_FALSE(wide.copy_out.has_value());  // an int64 result is the sort's output itself
  EXPECT_EQ(wide.sort.values_out, wide.perm.data_ptr<int64_t>());
}

// cub's order: signed keys with the sign bit flipped, compared on bits [0, bits), stable.
TEST(CudaRandpermPlan, TheSortIsStableOnTheLowBitsInCubsSignedOrder) {
  const auto sorted_values = [](const Tensor& keys, int bits) {
    const int64_t n = keys.numel();
    const Tensor values = arange(n), keys_out = empty_like(keys),
                 values_out = empty({n}, {.dtype = kInt64});
    kernels::emulate_randperm_sort({.n = n,
                                    .key_bytes = int32_t(keys.element_size()),
                                    .bits = bits,
                                    .keys_in = keys.data_ptr(),
                                    .keys_out = keys_out.data_ptr(),
                                    .values_in = values.data_ptr<int64_t>(),
                                    .values_out = values_out.data_ptr<int64_t>(),
                                    .scratch = nullptr,
                                    .scratch_bytes = 0});
    EXPECT_TRUE(keys_out.equal(keys.index_select(0, values_out)));
    return values_out;
  };
  const Tensor k32 = tensor({-1, 5, -3, 5, 13, -8}, {.dtype = kInt32});
  EXPECT_TRUE(sorted_values(k32, 32).equal(tensor({5, 2, 0, 1, 3, 4})));
  // On 3 bits: -1 is 7, -8 is 0 and 5, -3 and 13 are all 5, kept in their order.
  EXPECT_TRUE(sorted_values(k32, 3).equal(tensor({5, 1, 2, 3, 4, 0})));
  const Tensor k64 =
      tensor({int64_t(1) << 40, -(int64_t(1) << 40), 3, INT64_MIN}, {.dtype = kInt64});
  EXPECT_TRUE(sorted_values(k64, 64).equal(tensor({3, 1, 2, 0})));
  EXPECT_TRUE(sorted_values(k64, 33).equal(tensor({0, 1, 3, 2})));  // 2^40 and -2^40 are 0 there
  EXPECT_ERROR(sorted_values(k32, 33), "[cuda emulation] a randperm sort of 6 pairs on 33 bits");
}

// An island is a run of equal masked keys; its first thread shuffles it with Fisher-Yates from
// the back, r = curand() % (i + 1) at (seed, its index, offset). Three islands: one at the front,
// one across the two blocks' boundary, one of keys equal only below the mask at the tail.
TEST(CudaRandpermPlan, IslandsOfEqualMaskedKeysAreShuffledByTheirFirstThread) {
  constexpr int64_t n = 600;
  std::vector<int32_t> keys(n);
  for (int64_t i = 0; i < n; ++i) keys[size_t(i)] = int32_t(i);
  const std::vector<std::pair<int64_t, int64_t>> islands{{0, 4}, {508, 9}, {590, 10}};
  for (const auto& [start, size] : islands)
    for (int64_t k = 0; k < size; ++k)
      keys[size_t(start + k)] = int32_t(start) + (start == 590 ? int32_t(k) << 10 : 0);
  const uint64_t seed = 99, offset = 12;
  std::vector<int64_t> want(n);
  for (int64_t i = 0; i < n; ++i) want[size_t(i)] = i;
  for (const auto& [start, size] : islands) {
    kernels::Philox rng(seed, uint64_t(start), offset);
    std::vector<uint32_t> words;
    while (words.size() < size_t(size)) {
      const Words4 w = rng.next4();
      words.insert(words.end(), {w.x, w.y, w.z, w.w});
    }
    size_t next = 0;
    for (int64_t i = size - 1; i > 0; --i)
      std::swap(want[size_t(start + i)], want[size_t(start + words[next++] % uint32_t(i + 1))]);
  }
  std::vector<int64_t> perm(n);
  for (int64_t i = 0; i < n; ++i) perm[size_t(i)] = i;
  ASSERT_NE(perm, want);  // the shuffles move something
  kernels::emulate_randperm({.phase = kernels::RandpermLaunch::Phase::islands,
                             .key_bytes = 4,
                             .n = n,
                             .blocks = 2,
                             .threads = kernels::kRandpermThreads,
                             .keys = keys.data(),
                             .mask = 1023,
                             .perm = perm.data(),
                             .seed = seed,
                             .offset = offset});
  EXPECT_EQ(perm, want);
}

// The whole permutation in every dtype the cuda copies take, int32 and int64 keys, a grid
// smaller than the keys: each of 0..n-1 once, in the order of the sorted keys, the generator
// moved past the keys' draw and then n words (rounded to 4) for the islands.
TEST(CudaRandpermPlan, EveryDtypeGetsAPermutationInTheSortedKeysOrder) {
  const std::pair<int64_t, Dtype> cases[] = {{1, kInt64},      {7, kInt32},     {1000, kInt64},
                                             {1000, kFloat32}, {999, kFloat64}, {2049, kFloat16},
                                             {257, kBFloat16}, {30084, kInt64}, {40000, kInt32}};
  for (const auto& [n, dtype] : cases) {
    PhiloxGenerator gen(21), twin(21);
    const Tensor out = empty({n}, {.dtype = dtype});
    const RandpermWork w = plan_randperm(out, gen, 4);
    const uint64_t after_keys = (random_grid(n, 4, twin), twin.offset());
    EXPECT_EQ(w.islands.offset, after_keys) << n;
    EXPECT_EQ(gen.offset(), after_keys + uint64_t((n + 3) / 4 * 4)) << n;
    run_emulated(w);
    const Tensor p = out.to(kInt64);
    EXPECT_TRUE(p.equal(w.perm)) << n << " " << dtype;
    std::vector<int> seen(size_t(n), 0);
    for (int64_t i = 0; i < n; ++i) ++seen[size_t(p.data_ptr<int64_t>()[i])];
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), n) << n << " " << dtype;
    // Each position holds the index of a key equal to its sorted key under the mask, and the
    // sorted keys ascend in cub's order.
    const Tensor keys = w.keys.to(kInt64), sorted = w.sorted_keys.to(kInt64);
    const int width = int(w.keys.element_size() * 8);
    const auto radix = [&](int64_t k) {
      const uint64_t u = uint64_t(k) ^ (uint64_t(1) << (width - 1));
      return (width == 64 ? u : u & 0xFFFFFFFFu) & w.islands.mask;
    };
    bool ordered = true;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t s = sorted.data_ptr<int64_t>()[i];
      ordered &= radix(keys.data_ptr<int64_t>()[p.data_ptr<int64_t>()[i]]) == radix(s);
      if (i > 0) ordered &= radix(sorted.data_ptr<int64_t>()[i - 1]) <= radix(s);
    }
    EXPECT_TRUE(ordered) << n << " " << dtype;
    if (n > 1) {
      EXPECT_FALSE(p.equal(arange(n))) << n;
    }
  }
  PhiloxGenerator gen(21);
  EXPECT_ERROR(plan_randperm(empty({4}, {.dtype = kInt16}), gen, 4),
               "[randperm] the cuda backend has no int16 kernel yet");
  EXPECT_ERROR(plan_randperm(empty({8}).slice(0, 0, 8, 2), gen, 4),
               "[randperm] the cuda kernel expects a contiguous 1-D result of 1 to 2147483647 "
               "elements (PyTorch's int counts), got sizes [4] and strides [2]");
  EXPECT_EQ(gen.offset(), 0u);  // refused before drawing
}

// ── the front ends on a device that has these kernels ──────────────────────────────────────────
// A fake CUDA device (backend/fake_device.h: host memory) whose random entries are the emulated
// Philox kernels over one generator with a grid of at most kFakeBlocks blocks, as cuda/random.cpp
// and cuda/dropout.cpp install the real ones. rand, randn, randint and F::dropout run their CUDA
// paths on it; each result is compared with the same plan run directly on the CPU from a twin
// generator.
constexpr uint32_t kFakeBlocks = 3;
constexpr uint64_t kFakeSeed = 17;

PhiloxGenerator& fake_philox() {
  static PhiloxGenerator gen;
  return gen;
}

Tensor on_host(const Tensor& t) { return test::FakeDevice::host_view(t); }
Tensor on_fake_device(const Tensor& cpu) { return test::FakeDevice::copy_of(cpu); }

struct EmulatedRandomDevice : test::FakeDevice {
  EmulatedRandomDevice() {
    fake_philox().manual_seed(kFakeSeed);
    table.random.uniform = [](const char* op, const Tensor& t, double from, double to, Generator*) {
      fill(op, t, {.dist = Distribution::uniform, .a = from, .b = to});
    };
    table.random.normal = [](const char* op, const Tensor& t, double mean, double std, Generator*) {
      fill(op, t, {.dist = Distribution::normal, .a = mean, .b = std});
    };
    table.random.random = [](const char* op, const Tensor& t, uint64_t range, int64_t base,
                             Generator*) {
      fill(op, t, {.dist = Distribution::random32, .range = range, .low = base});
    };
    table.random.randperm = [](const Tensor& t, Generator*) {
      if (t.numel() > 0) run_emulated(plan_randperm(on_host(t), fake_philox(), kFakeBlocks));
    };
    table.random.dropout = [](const char* op, const Tensor& y, const Tensor& mask, const Tensor& x,
                              double p, Generator*) {
      kernels::emulate_dropout(plan_dropout_launch(op, on_host(y), on_host(mask), on_host(x), p,
                                                   fake_philox(), kFakeBlocks));
    };
    table.random.dropout_backward = [](const char* op, const Tensor& dx, const Tensor& grad,
                                       const Tensor& mask, double scale) {
      kernels::emulate_dropout_backward(
          plan_dropout_backward_launch(op, on_host(dx), on_host(grad), on_host(mask), scale));
    };
  }
  static void fill(const char* op, const Tensor& t, const RandomFill& f) {
    kernels::emulate_random(plan_random_launch(op, on_host(t), f, fake_philox(), kFakeBlocks));
  }
};

TEST(CudaRandomFrontEnd, RandRandnAndRandintFillOnTheDevice) {
  EmulatedRandomDevice device;
  PhiloxGenerator twin(kFakeSeed);
  const auto want = [&](Dtype dtype, const RandomFill& f) {
    const Tensor t = empty({4, 75}, {.dtype = dtype});
    kernels::emulate_random(plan_random_launch("want", t, f, twin, kFakeBlocks));
    return t;
  };
  const Tensor u = rand({4, 75}, {.device = test::kFakeDevice});
  EXPECT_EQ(u.device(), test::kFakeDevice);
  EXPECT_TRUE(on_host(u).equal(want(kFloat32, {.dist = Distribution::uniform, .a = 0, .b = 1})));
  const Tensor n = randn({4, 75}, {.dtype = kFloat16, .device = test::kFakeDevice});
  EXPECT_TRUE(on_host(n).equal(want(kFloat16, {.dist = Distribution::normal, .a = 0, .b = 1})));
  const Tensor i = randint(-3, 9, {4, 75}, {.device = test::kFakeDevice});
  EXPECT_EQ(i.dtype(), kInt64);
  EXPECT_TRUE(
      on_host(i).equal(want(kInt64, {.dist = Distribution::random32, .range = 12, .low = -3})));
  const Tensor like = rand_like(u, {.dtype = kFloat64});  // *_like stays on u's device
  EXPECT_EQ(like.device(), test::kFakeDevice);
  EXPECT_TRUE(on_host(like).equal(want(kFloat64, {.dist = Distribution::uniform, .a = 0, .b = 1})));
  EXPECT_EQ(fake_philox().offset(), twin.offset());
}

// randperm fills on the device it is asked for (before, the CPU filled and copied): the same
// permutation as the plan run from the twin generator, in int64 and in float32.
TEST(CudaRandomFrontEnd, RandpermSortsRandomKeysOnTheDevice) {
  EmulatedRandomDevice device;
  PhiloxGenerator twin(kFakeSeed);
  const auto want = [&](int64_t n, Dtype dtype) {
    const Tensor t = empty({n}, {.dtype = dtype});
    run_emulated(plan_randperm(t, twin, kFakeBlocks));
    return t;
  };
  const Tensor p = randperm(1000, {.device = test::kFakeDevice});
  EXPECT_EQ(p.device(), test::kFakeDevice);
  EXPECT_EQ(p.dtype(), kInt64);
  EXPECT_TRUE(on_host(p).equal(want(1000, kInt64)));
  const Tensor f = randperm(300, {.dtype = kFloat32, .device = test::kFakeDevice});
  EXPECT_TRUE(on_host(f).equal(want(300, kFloat32)));
  EXPECT_EQ(randperm(0, {.device = test::kFakeDevice}).numel(), 0);  // nothing drawn
  EXPECT_EQ(fake_philox().offset(), twin.offset());
}

TEST(CudaDropoutFrontEnd, DropoutOnTheDeviceIsNativeDropoutAndItsBackward) {
  EmulatedRandomDevice device;
  PhiloxGenerator twin(kFakeSeed);
  const Tensor x = on_fake_device(randn({3, 100})).requires_grad_(true);
  const auto [y, mask] = nn::functional::dropout_forward(x, 0.25, true, false, false, nullptr);
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), "NativeDropoutBackward0");
  EXPECT_EQ(mask.dtype(), kBool);
  const Tensor want_y = empty({3, 100}), want_mask = empty({3, 100}, {.dtype = kBool});
  kernels::emulate_dropout(
      plan_dropout_launch("want", want_y, want_mask, on_host(x), 0.25, twin, kFakeBlocks));
  EXPECT_TRUE(on_host(mask).equal(want_mask));
  EXPECT_TRUE(on_host(y).equal(want_y));
  EXPECT_EQ(fake_philox().offset(), twin.offset());

  // The gradient is the backward kernel's, recorded again under create_graph (double backward).
  const Tensor g = on_fake_device(randn({3, 100})).requires_grad_(true);
  y.backward(g, true, true);
  const Tensor want_dx = empty({3, 100});
  kernels::emulate_dropout_backward(
      plan_dropout_backward_launch("want", want_dx, on_host(g), want_mask, 1 / 0.75));
  ASSERT_TRUE(x.grad().defined());
  EXPECT_TRUE(on_host(x.grad()).equal(want_dx));
  ASSERT_TRUE(x.grad().grad_fn());
  EXPECT_EQ(x.grad().grad_fn()->name(), "NativeDropoutBackwardBackward0");
}

// In place, whole channels and p == 1 keep the bernoulli_-and-mul path (this device has neither).
TEST(CudaDropoutFrontEnd, OtherDropoutsKeepTheNoisePath) {
  EmulatedRandomDevice device;
  Tensor x = on_fake_device(randn({2, 3, 4}));
  using nn::functional::dropout_forward;
  EXPECT_ERROR(dropout_forward(x, 0.5, true, false, true, nullptr), "[bernoulli_]");
  EXPECT_ERROR(dropout_forward(x, 0.5, true, true, false, nullptr), "[bernoulli_]");
  EXPECT_ERROR(dropout_forward(x, 1.0, true, false, false, nullptr), "[zeros]");
  EXPECT_EQ(fake_philox().offset(), 0u);
}

}  // namespace
}  // namespace ember::cuda
