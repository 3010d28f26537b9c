// Factory functions: tensor() from nested lists, zeros/ones/full/empty/eye, arange/linspace (bit
// for bit against PyTorch 1.13), *_like, options, from_vector, from_blob, empty_strided.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "test_support.h"

using namespace ember;
using namespace ember::indexing;

namespace {

using Ints = std::vector<int64_t>;
using Floats = std::vector<float>;
using Doubles = std::vector<double>;

Ints vec(IntArrayRef a) { return a.vec(); }
Ints ints(const Tensor& t) { return t.tolist<int64_t>(); }
Floats floats(const Tensor& t) { return t.tolist<float>(); }
Doubles doubles(const Tensor& t) { return t.tolist<double>(); }

}  // namespace

// ── tensor() ─────────────────────────────────────────────────────────────────────────────────

TEST(Creation, TensorInfersDtype) {
  Tensor i = tensor({1, 2, 3});
  EXPECT_EQ(i.dtype(), kInt64);
  EXPECT_EQ(vec(i.sizes()), (Ints{3}));
  EXPECT_EQ(ints(i), (Ints{1, 2, 3}));
  Tensor f = tensor({1.0, 2.0, 3.0});
  EXPECT_EQ(f.dtype(), kFloat32);
  EXPECT_EQ(floats(f), (Floats{1, 2, 3}));
  Tensor b = tensor({true, false});
  EXPECT_EQ(b.dtype(), kBool);
  EXPECT_EQ(b.tolist<bool>(), (std::vector<bool>{true, false}));
  Tensor mixed = tensor({1, 2.5});
  EXPECT_EQ(mixed.dtype(), kFloat32);
  EXPECT_EQ(floats(mixed), (Floats{1, 2.5}));
  EXPECT_EQ(tensor({true, 2}).dtype(), kInt64);
  EXPECT_EQ(tensor({true, 2.0}).dtype(), kFloat32);
  EXPECT_EQ(tensor({{1, 2}, {3.5, 4}}).dtype(), kFloat32);
  EXPECT_EQ(tensor({1.5f}).dtype(), kFloat32);
  EXPECT_EQ(tensor({int32_t(1)}).dtype(), kInt64);  // any C++ integer is a Python int
  EXPECT_EQ(tensor(0.1).item<float>(), 0.1f);       // rounded once, to float32
}

TEST(Creation, TensorExplicitDtypeAndNesting) {
  Tensor t = tensor({{1, 2}, {3, 4}}, kFloat32);
  EXPECT_EQ(t.dtype(), kFloat32);
  EXPECT_EQ(vec(t.sizes()), (Ints{2, 2}));
  EXPECT_EQ(vec(t.strides()), (Ints{2, 1}));
  EXPECT_EQ(floats(t), (Floats{1, 2, 3, 4}));
  EXPECT_EQ(tensor({1.7, -1.7}, kInt64).tolist<int64_t>(), (Ints{1, -1}));
  EXPECT_EQ(tensor({1, 2}, {.dtype = kFloat64}).dtype(), kFloat64);
  EXPECT_EQ(tensor({0.5, 1.5}, kFloat16).tolist<float>(), (Floats{0.5, 1.5}));
  // Integer dtypes range-check each number (negative ones may wrap into uint8); floats round.
  EXPECT_ERROR(tensor({1, 300}, kUInt8), "[tensor] value 300 cannot be converted to type uint8");
  EXPECT_ERROR(tensor({128}, kInt8), "cannot be converted to type int8");
  EXPECT_ERROR(tensor({2.5e9}, kInt32), "cannot be converted to type int32");
  EXPECT_EQ(ints(tensor({-1, 255}, kUInt8)), (Ints{255, 255}));
  EXPECT_TRUE(std::isinf(tensor({1e6}, kFloat16).item<float>()));
  EXPECT_TRUE(std::isinf(tensor({1e39}, kFloat32).item<float>()));
  Tensor deep = tensor({{{1}, {2}}, {{3}, {4}}, {{5}, {6}}});
  EXPECT_EQ(vec(deep.sizes()), (Ints{3, 2, 1}));
  EXPECT_EQ(ints(deep), (Ints{1, 2, 3, 4, 5, 6}));
}

TEST(Creation, ZeroDimTensor) {
  Tensor s = tensor(42);
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(vec(s.sizes()), (Ints{}));
  EXPECT_EQ(vec(s.strides()), (Ints{}));
  EXPECT_EQ(s.numel(), 1);
  EXPECT_EQ(s.dtype(), kInt64);
  EXPECT_EQ(s.item<int64_t>(), 42);
  EXPECT_TRUE(s.is_contiguous());
  EXPECT_EQ(tensor(3.5).dtype(), kFloat32);
  EXPECT_EQ(tensor(true).dtype(), kBool);
}

TEST(Creation, EmptyLists) {
  Tensor e = tensor({});
  EXPECT_EQ(e.dtype(), kFloat32);  // torch.tensor([]) is float32
  EXPECT_EQ(vec(e.sizes()), (Ints{0}));
  Tensor e2 = tensor({{}, {}});
  EXPECT_EQ(vec(e2.sizes()), (Ints{2, 0}));
  EXPECT_EQ(e2.dtype(), kFloat32);
  EXPECT_EQ(tensor({}, kInt64).dtype(), kInt64);
}

TEST(Creation, RaggedListsThrow) {
  EXPECT_ERROR(tensor({{1, 2}, {3}}), "expected sequence of length 2 at dim 1 (got 1)");
  EXPECT_ERROR(tensor({{1, 2}, {3, 4, 5}}), "expected sequence of length 2 at dim 1 (got 3)");
  EXPECT_ERROR(tensor({{1, 2}, 3}), "[tensor]");
  EXPECT_ERROR(tensor({1, {2, 3}}), "[tensor]");
  EXPECT_ERROR(tensor({{{1, 2}}, {{3}, {4}}}), "expected sequence of length 1 at dim 1 (got 2)");
  EXPECT_ERROR(tensor({{}, {1}}), "expected sequence of length 0 at dim 1 (got 1)");
}

// ── Filled tensors ──────────────────────────────────────────────────────────────────────────

TEST(Creation, ZerosOnesFullEmpty) {
  Tensor z = zeros({3, 4});
  EXPECT_EQ(z.dtype(), kFloat32);
  EXPECT_EQ(vec(z.sizes()), (Ints{3, 4}));
  EXPECT_EQ(floats(z), Floats(12, 0.0f));
  Tensor o = ones({2, 3});
  EXPECT_EQ(o.dtype(), kFloat32);  // torch.ones is float32, not int64
  EXPECT_EQ(floats(o), Floats(6, 1.0f));
  EXPECT_EQ(ones({2}, {.dtype = kInt32}).tolist<int32_t>(), (std::vector<int32_t>{1, 1}));
  EXPECT_EQ(zeros(std::vector<int64_t>{2, 3}, {.dtype = kInt64}).dtype(), kInt64);
  EXPECT_EQ(vec(zeros({}).sizes()), (Ints{}));
  EXPECT_EQ(zeros({}).numel(), 1);
  EXPECT_EQ(zeros({2, 0}).numel(), 0);

  Tensor f = full({3, 3}, 3.14);
  EXPECT_EQ(f.dtype(), kFloat32);
  EXPECT_EQ(floats(f), Floats(9, 3.14f));
  EXPECT_EQ(full({2}, 3).dtype(), kInt64);
  EXPECT_EQ(ints(full({2}, 3)), (Ints{3, 3}));
  EXPECT_EQ(full({2}, true).dtype(), kBool);
  EXPECT_EQ(full({2}, 3.14).dtype(), kFloat32);
  EXPECT_EQ(full({2}, 7, {.dtype = kFloat64}).tolist<double>(), (Doubles{7, 7}));
  EXPECT_ERROR(full({2}, 300, {.dtype = kUInt8}), "value 300 cannot be converted to type uint8");
  EXPECT_ERROR(full_like(zeros({2}, {.dtype = kInt8}), 200), "cannot be converted to type int8");

  Tensor e = empty({5, 5});
  EXPECT_EQ(e.dtype(), kFloat32);
  EXPECT_EQ(vec(e.sizes()), (Ints{5, 5}));
  EXPECT_EQ(vec(e.strides()), (Ints{5, 1}));
  EXPECT_EQ(e.storage()->nbytes(), 100u);
  EXPECT_EQ(empty({0}).numel(), 0);
  EXPECT_ERROR(empty({2, -1}), "negative dimension -1");
  EXPECT_ERROR(zeros({-3}), "negative dimension");
  // Sizes whose byte count overflows are errors, not tiny storages.
  const int64_t big = int64_t(1) << 40;
  EXPECT_ERROR(empty({big, big}), "Storage size calculation overflowed with sizes=[");
  EXPECT_ERROR(empty({big, big, 0}), "overflowed");
  EXPECT_ERROR(empty({int64_t(1) << 61, 4}, {.dtype = kUInt8}), "overflowed");
  EXPECT_ERROR(zeros({int64_t(1) << 62}), "overflowed");
  EXPECT_EQ(vec(empty({0, big, big}).sizes()), (Ints{0, big, big}));
  EXPECT_ERROR(empty_strided({2, 3}, {int64_t(1) << 62, 1}),
               "Storage size calculation overflowed with sizes=[2, 3] and strides=[");
}

TEST(Creation, Eye) {
  Tensor i4 = eye(4);
  EXPECT_EQ(i4.dtype(), kFloat32);
  EXPECT_EQ(vec(i4.sizes()), (Ints{4, 4}));
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t c = 0; c < 4; ++c) EXPECT_EQ(i4.index({r, c}).item<float>(), r == c ? 1.f : 0.f);
  EXPECT_EQ(floats(eye(2, 3)), (Floats{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(floats(eye(3, 2)), (Floats{1, 0, 0, 1, 0, 0}));
  EXPECT_EQ(ints(eye(2, {.dtype = kInt64})), (Ints{1, 0, 0, 1}));
  EXPECT_EQ(vec(eye(0).sizes()), (Ints{0, 0}));
  EXPECT_ERROR(eye(-1), "[eye]");
}

// ── Ranges ───────────────────────────────────────────────────────────────────────────────────
// Expected floats were produced with Debian's PyTorch 1.13.1 (AVX2 kernels), e.g.
//   /usr/bin/python3 -c "import torch; print([float(v).hex() for v in
//                        torch.arange(0, 2, 0.1).tolist()])"
// Runs of 2 x 32 bytes take PyTorch's vectorised path, whose rounding differs from the scalar
// one: both are reproduced (see Note [Range rounding] in src/ops/creation.cpp).

TEST(Creation, ArangeIntegers) {
  Tensor a = arange(0, 10, 2);
  EXPECT_EQ(a.dtype(), kInt64);
  EXPECT_EQ(ints(a), (Ints{0, 2, 4, 6, 8}));
  EXPECT_EQ(ints(arange(5)), (Ints{0, 1, 2, 3, 4}));
  EXPECT_EQ(ints(arange(2, 5)), (Ints{2, 3, 4}));
  EXPECT_EQ(ints(arange(10, 0, -3)), (Ints{10, 7, 4, 1}));
  EXPECT_EQ(ints(arange(0, 10, 3)), (Ints{0, 3, 6, 9}));
  EXPECT_EQ(arange(0).numel(), 0);
  EXPECT_EQ(arange(5, {.dtype = kFloat64}).tolist<double>(), (Doubles{0, 1, 2, 3, 4}));
  // An integer dtype truncates the bounds and the step first (as PyTorch's int64 arange).
  EXPECT_EQ(ints(arange(0, 5.5, 1, {.dtype = kInt64})), (Ints{0, 1, 2, 3, 4}));
  EXPECT_EQ(ints(arange(0, 5.5, 1, {.dtype = kInt32})), (Ints{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(ints(arange(0, 5, 1.5, {.dtype = kInt64})), (Ints{0, 1, 2, 3, 4}));
  EXPECT_EQ(ints(arange(0, 5, 1.5, {.dtype = kInt32})), (Ints{0, 1, 2, 3}));
  EXPECT_EQ(ints(arange(-0.5, 3.7, 1.9, {.dtype = kInt64})), (Ints{0, 1, 2}));
  EXPECT_ERROR(arange(0, 5, 0.5, {.dtype = kInt64}), "step must be nonzero");
  EXPECT_ERROR(arange(0, 10, 0), "step must be nonzero");
  EXPECT_ERROR(arange(0, 10, -1), "upper bound and larger bound inconsistent with step sign");
  EXPECT_ERROR(arange(0, 5, 1, {.dtype = kBool}), "[arange]");
}

// The expected values below are laid out as tables.
// clang-format off
TEST(Creation, ArangeFloats) {
  Tensor q = arange(0., 1., 0.25);
  EXPECT_EQ(q.dtype(), kFloat32);
  EXPECT_EQ(floats(q), (Floats{0, .25, .5, .75}));
  EXPECT_EQ(floats(arange(5., 0, -1)), (Floats{5, 4, 3, 2, 1}));
  EXPECT_EQ(floats(arange(0, -1, -0.25)), (Floats{0, -0.25, -0.5, -0.75}));
  EXPECT_EQ(floats(arange(0, 1, 0.1)),
            (Floats{0x0.0p+0, 0x1.99999ap-4, 0x1.99999ap-3, 0x1.333334p-2, 0x1.99999ap-2,
                    0x1.000000p-1, 0x1.333334p-1, 0x1.666666p-1, 0x1.99999ap-1, 0x1.ccccccp-1}));
  EXPECT_EQ(floats(arange(1, 0, -0.15)),
            (Floats{0x1.000000p+0, 0x1.b33334p-1, 0x1.666666p-1, 0x1.19999ap-1, 0x1.99999ap-2,
                    0x1.000000p-2, 0x1.99999ap-4}));
  EXPECT_EQ(floats(arange(-1, 1, 0.3)),
            (Floats{-0x1.000000p+0, -0x1.666666p-1, -0x1.99999ap-2, -0x1.99999ap-4,
                    0x1.99999ap-3, 0x1.000000p-1, 0x1.99999ap-1}));
  // 20 elements: the first 16 come from PyTorch's vector path (element 9 is 0x1.ccccce not ..cc).
  EXPECT_EQ(floats(arange(0, 2, 0.1)),
            (Floats{0x0.0p+0,      0x1.99999ap-4, 0x1.99999ap-3, 0x1.333334p-2, 0x1.99999ap-2,
                    0x1.000000p-1, 0x1.333334p-1, 0x1.666666p-1, 0x1.99999ap-1, 0x1.ccccce0p-1,
                    0x1.000000p+0, 0x1.19999ap+0, 0x1.333334p+0, 0x1.4cccccp+0, 0x1.666666p+0,
                    0x1.800000p+0, 0x1.99999ap+0, 0x1.b33334p+0, 0x1.ccccccp+0, 0x1.e66666p+0}));
  EXPECT_EQ(doubles(arange(0, 3, 0.1, {.dtype = kFloat64})),
            (Doubles{0x0.0p+0,
                     0x1.999999999999ap-4, 0x1.999999999999ap-3, 0x1.3333333333334p-2,
                     0x1.999999999999ap-2, 0x1.0000000000000p-1, 0x1.3333333333334p-1,
                     0x1.6666666666667p-1, 0x1.999999999999ap-1, 0x1.ccccccccccccdp-1,
                     0x1.0000000000000p+0, 0x1.199999999999ap+0, 0x1.3333333333334p+0,
                     0x1.4cccccccccccep+0, 0x1.6666666666667p+0, 0x1.8000000000001p+0,
                     0x1.999999999999ap+0, 0x1.b333333333334p+0, 0x1.ccccccccccccdp+0,
                     0x1.e666666666667p+0, 0x1.0000000000000p+1, 0x1.0cccccccccccdp+1,
                     0x1.199999999999ap+1, 0x1.2666666666666p+1, 0x1.3333333333334p+1,
                     0x1.4000000000000p+1, 0x1.4cccccccccccdp+1, 0x1.599999999999ap+1,
                     0x1.6666666666667p+1, 0x1.7333333333334p+1}));
  EXPECT_EQ(floats(arange(0, 4, 0.1, {.dtype = kFloat16})),
            (Floats{0x0.0p+0,    0x1.998p-4, 0x1.998p-3, 0x1.334p-2, 0x1.998p-2, 0x1.000p-1,
                    0x1.334p-1, 0x1.668p-1, 0x1.998p-1, 0x1.cccp-1, 0x1.000p+0, 0x1.198p+0,
                    0x1.334p+0, 0x1.4ccp+0, 0x1.668p+0, 0x1.800p+0, 0x1.998p+0, 0x1.b30p+0,
                    0x1.cccp+0, 0x1.e64p+0, 0x1.000p+1, 0x1.0ccp+1, 0x1.198p+1, 0x1.264p+1,
                    0x1.334p+1, 0x1.400p+1, 0x1.4ccp+1, 0x1.598p+1, 0x1.664p+1, 0x1.734p+1,
                    0x1.800p+1, 0x1.8ccp+1, 0x1.998p+1, 0x1.a68p+1, 0x1.b34p+1, 0x1.c00p+1,
                    0x1.cccp+1, 0x1.d98p+1, 0x1.e68p+1, 0x1.f34p+1}));
}

TEST(Creation, Linspace) {
  Tensor l = linspace(0, 1, 5);
  EXPECT_EQ(l.dtype(), kFloat32);
  EXPECT_EQ(floats(l), (Floats{0, .25, .5, .75, 1}));
  EXPECT_EQ(floats(linspace(2, 5, 1)), (Floats{2}));
  EXPECT_EQ(linspace(2, 5, 0).numel(), 0);
  EXPECT_ERROR(linspace(0, 1, -1), "number of steps must be non-negative");
  EXPECT_ERROR(linspace(0, 300, 3, {.dtype = kUInt8}), "[linspace] value 300 cannot be converted");
  EXPECT_EQ(linspace(0, 300, 0, {.dtype = kUInt8}).numel(), 0);
  // The middle element is not 0: PyTorch counts down from the end for the second half.
  EXPECT_EQ(floats(linspace(-1, 1, 7)),
            (Floats{-0x1.000000p+0, -0x1.555554p-1, -0x1.555554p-2, -0x1.000000p-25,
                    0x1.555554p-2, 0x1.555554p-1, 0x1.000000p+0}));
  EXPECT_EQ(doubles(linspace(-1, 1, 7, {.dtype = kFloat64})),
            (Doubles{-0x1.0p+0, -0x1.5555555555556p-1, -0x1.5555555555556p-2, 0x1.0p-54,
                     0x1.5555555555556p-2, 0x1.5555555555556p-1, 0x1.0p+0}));
  EXPECT_EQ(doubles(linspace(-3.3, 7.1, 11, {.dtype = kFloat64})),
            (Doubles{-0x1.a666666666666p+1, -0x1.2147ae147ae14p+1, -0x1.3851eb851eb86p+0,
                     -0x1.70a3d70a3d720p-3, 0x1.b851eb851eb80p-1, 0x1.e666666666663p+0,
                     0x1.7851eb851eb83p+1, 0x1.fd70a3d70a3d4p+1, 0x1.4147ae147ae14p+2,
                     0x1.83d70a3d70a3dp+2, 0x1.c666666666666p+2}));
  EXPECT_EQ(floats(linspace(0, 1, 20)),
            (Floats{0x0.0p+0,      0x1.af286cp-5, 0x1.af286cp-4, 0x1.435e50p-3, 0x1.af286cp-3,
                    0x1.0d7944p-2, 0x1.435e50p-2, 0x1.79435ep-2, 0x1.af286cp-2, 0x1.e50d7ap-2,
                    0x1.0d7944p-1, 0x1.286bcap-1, 0x1.435e50p-1, 0x1.5e50d8p-1, 0x1.79435ep-1,
                    0x1.9435e4p-1, 0x1.af286cp-1, 0x1.ca1af2p-1, 0x1.e50d7ap-1, 0x1.000000p+0}));
  // float16 steps in float16 arithmetic.
  EXPECT_EQ(floats(linspace(0, 1, 7, {.dtype = kFloat16})),
            (Floats{0x0.0p+0, 0x1.554p-3, 0x1.554p-2, 0x1.000p-1, 0x1.558p-1, 0x1.aacp-1,
                    0x1.000p+0}));
  EXPECT_EQ(floats(linspace(0, 1, 40, {.dtype = kFloat16})),
            (Floats{0x0.0p+0,   0x1.a40p-6, 0x1.a40p-5, 0x1.3b0p-4, 0x1.a40p-4, 0x1.068p-3,
                    0x1.3b0p-3, 0x1.6f8p-3, 0x1.a40p-3, 0x1.d88p-3, 0x1.068p-2, 0x1.20cp-2,
                    0x1.3b0p-2, 0x1.554p-2, 0x1.6f8p-2, 0x1.89cp-2, 0x1.a40p-2, 0x1.be4p-2,
                    0x1.d88p-2, 0x1.f2cp-2, 0x1.068p-1, 0x1.138p-1, 0x1.20cp-1, 0x1.2e0p-1,
                    0x1.3b0p-1, 0x1.480p-1, 0x1.554p-1, 0x1.628p-1, 0x1.6f8p-1, 0x1.7c8p-1,
                    0x1.89cp-1, 0x1.970p-1, 0x1.a40p-1, 0x1.b14p-1, 0x1.be8p-1, 0x1.cb8p-1,
                    0x1.d88p-1, 0x1.e5cp-1, 0x1.f30p-1, 0x1.000p+0}));
  EXPECT_EQ(floats(linspace(-3, 7, 40, {.dtype = kBFloat16})),
            (Floats{-0x1.80p+1, -0x1.60p+1, -0x1.3ep+1, -0x1.1ep+1, -0x1.fap+0, -0x1.b8p+0,
                    -0x1.78p+0, -0x1.36p+0, -0x1.e8p-1, -0x1.68p-1, -0x1.c0p-2, -0x1.80p-3,
                    0x1.00p-4,  0x1.50p-2,  0x1.28p-1,  0x1.b0p-1,  0x1.18p+0,  0x1.5ap+0,
                    0x1.9cp+0,  0x1.dcp+0,  0x1.10p+1,  0x1.30p+1,  0x1.50p+1,  0x1.70p+1,
                    0x1.92p+1,  0x1.b2p+1,  0x1.d4p+1,  0x1.f4p+1,  0x1.0ap+2,  0x1.1cp+2,
                    0x1.2cp+2,  0x1.3cp+2,  0x1.4ep+2,  0x1.5ep+2,  0x1.6ep+2,  0x1.7ep+2,
                    0x1.90p+2,  0x1.a0p+2,  0x1.b0p+2,  0x1.c0p+2}));
  // Integer dtypes: bounds truncated, steps in double, results truncated.
  EXPECT_EQ(ints(linspace(0, 1, 5, {.dtype = kInt64})), (Ints{0, 0, 0, 0, 1}));
  EXPECT_EQ(ints(linspace(0.5, 10.9, 4, {.dtype = kInt64})), (Ints{0, 3, 6, 10}));
  EXPECT_EQ(ints(linspace(0, 10, 20, {.dtype = kInt64})),
            (Ints{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 10}));
  EXPECT_EQ(ints(linspace(-25, 13, 58, {.dtype = kInt32})),
            (Ints{-25, -24, -23, -23, -22, -21, -21, -20, -19, -18, -17, -17, -16, -15, -15,
                  -14, -14, -13, -12, -12, -11, -10, -10, -9,  -9,  -8,  -7,  -7,  -6,  -5,
                  -5,  -4,  -3,  -2,  -1,  -1,  0,   0,   1,   1,   1,   1,   2,   3,   3,
                  4,   5,   5,   7,   7,   8,   9,   9,   10,  11,  11,  12,  13}));
}

// clang-format on

// ── *_like and options ──────────────────────────────────────────────────────────────────────

TEST(Creation, LikeKeepsShapeDtypeDeviceAndLayout) {
  Tensor x = arange(6, {.dtype = kFloat64}).view({2, 3});
  for (const Tensor& t : {zeros_like(x), ones_like(x), empty_like(x), full_like(x, 2.5)}) {
    EXPECT_EQ(vec(t.sizes()), (Ints{2, 3}));
    EXPECT_EQ(t.dtype(), kFloat64);
    EXPECT_EQ(t.device(), x.device());
    EXPECT_NE(t.storage().get(), x.storage().get());
    EXPECT_FALSE(t.requires_grad());
  }
  EXPECT_EQ(doubles(zeros_like(x)), Doubles(6, 0.0));
  EXPECT_EQ(doubles(ones_like(x)), Doubles(6, 1.0));
  EXPECT_EQ(doubles(full_like(x, 2.5)), Doubles(6, 2.5));
  EXPECT_EQ(ints(full_like(arange(3), 2.7)), (Ints{2, 2, 2}));  // keeps int64
  EXPECT_EQ(zeros_like(x, {.dtype = kInt32}).dtype(), kInt32);
  // preserve_format: a transposed input gives transposed strides.
  Tensor t = x.t();
  EXPECT_EQ(vec(zeros_like(t).strides()), (Ints{1, 3}));
  EXPECT_EQ(vec(empty_like(t).strides()), (Ints{1, 3}));
  EXPECT_EQ(vec(ones_like(t).strides()), (Ints{1, 3}));
  EXPECT_EQ(vec(full_like(t, 1).strides()), (Ints{1, 3}));
  EXPECT_EQ(vec(zeros_like(x.index({Slice(), Slice(None, None, 2)})).strides()), (Ints{2, 1}));
  Tensor g = zeros({2}, {.requires_grad = true});
  EXPECT_FALSE(zeros_like(g).requires_grad());
  EXPECT_TRUE(zeros_like(g, {.requires_grad = true}).requires_grad());
}

TEST(Creation, OptionsDtypeAndRequiresGrad) {
  Tensor w = zeros({2, 2}, {.dtype = kFloat64, .requires_grad = true});
  EXPECT_EQ(w.dtype(), kFloat64);
  EXPECT_TRUE(w.requires_grad());
  EXPECT_FALSE(zeros({2}).requires_grad());
  EXPECT_TRUE(tensor(2.0, {.requires_grad = true}).requires_grad());
  EXPECT_TRUE(ones({2}, {.requires_grad = true}).requires_grad());
  EXPECT_ERROR(zeros({2}, {.dtype = kInt64, .requires_grad = true}),
               "only Tensors of floating point dtype can require gradients");
  EXPECT_ERROR(tensor({1, 2}, {.requires_grad = true}), "floating point");
  EXPECT_ERROR(arange(3, {.requires_grad = true}), "floating point");
  EXPECT_TRUE(arange(3, {.dtype = kFloat32, .requires_grad = true}).requires_grad());
}

// ── from_vector, from_blob, empty_strided ───────────────────────────────────────────────────

TEST(Creation, FromVector) {
  Tensor f = from_vector<float>({1, 2, 3, 4}, std::vector<int64_t>{2, 2});
  EXPECT_EQ(f.dtype(), kFloat32);
  EXPECT_EQ(vec(f.sizes()), (Ints{2, 2}));
  EXPECT_EQ(floats(f), (Floats{1, 2, 3, 4}));
  Tensor i = from_vector<int32_t>({5, 6, 7});
  EXPECT_EQ(i.dtype(), kInt32);
  EXPECT_EQ(vec(i.sizes()), (Ints{3}));
  EXPECT_EQ(ints(i), (Ints{5, 6, 7}));
  Tensor d = from_vector<int64_t>({1, 2}, std::nullopt, {.dtype = kFloat64});
  EXPECT_EQ(d.dtype(), kFloat64);
  EXPECT_EQ(doubles(d), (Doubles{1, 2}));
  // The vector is copied.
  std::vector<double> src{1.5, 2.5};
  Tensor c = from_vector(src);
  src[0] = 0;
  EXPECT_EQ(c.index({0}).item<double>(), 1.5);
  EXPECT_EQ(from_vector<float>({}).numel(), 0);
  EXPECT_ERROR(from_vector<float>({1, 2, 3}, std::vector<int64_t>{2, 2}), "[from_vector]");
}

namespace {
int g_deleted = 0;
void count_delete(void* data, void* context) {
  ++g_deleted;
  *static_cast<void**>(context) = data;
}
}  // namespace

TEST(Creation, FromBlobDeleterRunsWhenTheLastViewDies) {
  float data[6] = {1, 2, 3, 4, 5, 6};
  void* deleted_ptr = nullptr;
  g_deleted = 0;
  Tensor view;
  {
    Tensor t = from_blob(data, {2, 3}, {3, 1}, kFloat32, count_delete, &deleted_ptr);
    EXPECT_EQ(t.data_ptr(), static_cast<void*>(data));  // no copy
    EXPECT_EQ(floats(t), (Floats{1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(t.storage()->nbytes(), sizeof(data));
    view = t.t().index({Slice(1, None)});
    data[4] = 50;  // the tensor sees the caller's memory
    EXPECT_EQ(t.index({1, 1}).item<float>(), 50.f);
    t.index_put_({0, 0}, 10);
    EXPECT_EQ(data[0], 10.f);
  }
  EXPECT_EQ(g_deleted, 0);  // `view` still holds the storage
  EXPECT_EQ(floats(view), (Floats{2, 50, 3, 6}));
  view = Tensor();
  EXPECT_EQ(g_deleted, 1);
  EXPECT_EQ(deleted_ptr, static_cast<void*>(data));
  // Strided external memory, and no deleter at all.
  int64_t raw[6] = {0, 1, 2, 3, 4, 5};
  Tensor s = from_blob(raw, {3}, {2}, kInt64);
  EXPECT_EQ(ints(s), (Ints{0, 2, 4}));
  EXPECT_FALSE(s.is_contiguous());
}

TEST(Creation, EmptyStrided) {
  Tensor t = empty_strided({2, 3}, {1, 2});
  EXPECT_EQ(vec(t.sizes()), (Ints{2, 3}));
  EXPECT_EQ(vec(t.strides()), (Ints{1, 2}));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.storage()->nbytes(), 6 * sizeof(float));
  t.copy_(tensor({{1, 2, 3}, {4, 5, 6}}));
  EXPECT_EQ(floats(t), (Floats{1, 2, 3, 4, 5, 6}));
  const float* raw = static_cast<const float*>(t.storage()->data());
  EXPECT_EQ((Floats{raw, raw + 6}), (Floats{1, 4, 2, 5, 3, 6}));
  Tensor b = empty_strided({2, 3}, {0, 1}, {.dtype = kInt64});
  EXPECT_EQ(b.storage()->nbytes(), 3 * sizeof(int64_t));
  EXPECT_EQ(empty_strided({2, 0}, {1, 1}).storage()->nbytes(), 0u);
  EXPECT_EQ(empty_strided({}, {}).numel(), 1);
  EXPECT_ERROR(empty_strided({2}, {1, 1}), "[empty_strided]");
  EXPECT_ERROR(empty_strided({-2}, {1}), "[empty_strided]");
}
