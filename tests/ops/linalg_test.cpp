// Linear algebra: every op and rank case against PyTorch 1.13 (golden/linalg.json, written by
// golden/gen_linalg.py) on contiguous, transposed, sliced and broadcast inputs in every dtype;
// larger products and odd layouts against a double-precision reference; PyTorch's error messages.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backend/cpu/blas.h"
#include "test_support.h"

extern "C" int openblas_get_num_threads(void);

using namespace ember;
using json = nlohmann::json;

namespace {

using Ints = std::vector<int64_t>;

Scalar scalar_arg(const json& args, const char* key) {
  if (!args.contains(key)) return 1;
  const json& v = args[key];
  return v.is_number_integer() ? Scalar(v.get<int64_t>()) : Scalar(v.get<double>());
}

Tensor run(const std::string& op, const std::vector<Tensor>& in, const json& args) {
  const AddmmOptions o{.beta = scalar_arg(args, "beta"), .alpha = scalar_arg(args, "alpha")};
  if (op == "mm") return mm(in[0], in[1]);
  if (op == "bmm") return bmm(in[0], in[1]);
  if (op == "matmul") return matmul(in[0], in[1]);
  if (op == "mv") return mv(in[0], in[1]);
  if (op == "dot") return dot(in[0], in[1]);
  if (op == "vdot") return vdot(in[0], in[1]);
  if (op == "outer") return outer(in[0], in[1]);
  if (op == "addmm") return addmm(in[0], in[1], in[2], o);
  if (op == "addmv") return addmv(in[0], in[1], in[2], o);
  if (op == "addbmm") return addbmm(in[0], in[1], in[2], o);
  if (op == "baddbmm") return baddbmm(in[0], in[1], in[2], o);
  if (op == "linear") return linear(in[0], in[1], in.size() > 2 ? in[2] : Tensor());
  if (op == "einsum") return einsum(args["equation"].get<std::string>(), in);
  throw std::runtime_error("unknown op " + op);
}

// Relative tolerance per dtype: float32 rounding for float32 (the brief's 1e-5), one rounding of
// the result for the half types, exact for integers.
double tolerance(Dtype t) {
  switch (t) {
    case kFloat32:
      return 1e-5;
    case kFloat64:
      return 1e-12;
    case kFloat16:
      return 1e-3;
    case kBFloat16:
      return 8e-3;
    default:
      return 0;
  }
}

void expect_close(const Tensor& got, const std::vector<double>& want, double rtol,
                  double scale = 0) {
  for (double w : want) scale = std::max(scale, std::abs(w));
  const std::string bad = test::mismatches(got.tolist<double>(), want,
                                           test::Tolerance{rtol, rtol * scale + 1e-300});
  EXPECT_TRUE(bad.empty()) << bad;
}

const json& golden() {
  static const json j = test::load_golden("linalg.json");
  return j;
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const json& c : golden()["cases"]) names.push_back(c["name"]);
  return names;
}

// A double-precision reference product: (B, M, K) @ (B, K, N), and sum |a||b| per element (the
// scale of the rounding error a float32 result may carry).
struct Reference {
  std::vector<double> value, abs_scale;
};

Reference reference_bmm(const Tensor& a, const Tensor& b) {
  const int64_t B = a.size(0), M = a.size(1), K = a.size(2), N = b.size(2);
  const std::vector<double> x = a.tolist<double>(), y = b.tolist<double>();
  Reference r{std::vector<double>(size_t(B * M * N)), std::vector<double>(size_t(B * M * N))};
  for (int64_t bi = 0; bi < B; ++bi)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        double s = 0, s_abs = 0;
        for (int64_t k = 0; k < K; ++k) {
          const double p = x[size_t((bi * M + i) * K + k)] * y[size_t((bi * K + k) * N + j)];
          s += p;
          s_abs += std::abs(p);
        }
        r.value[size_t((bi * M + i) * N + j)] = s;
        r.abs_scale[size_t((bi * M + i) * N + j)] = s_abs;
      }
  return r;
}

void expect_matches_reference(const Tensor& got, const Tensor& a, const Tensor& b, double rtol) {
  const Reference r =
      reference_bmm(a.dim() == 2 ? a.unsqueeze(0) : a, b.dim() == 2 ? b.unsqueeze(0) : b);
  const std::vector<double> g = got.tolist<double>();
  ASSERT_EQ(g.size(), r.value.size());
  for (size_t i = 0; i < g.size(); ++i)
    ASSERT_NEAR(g[i], r.value[i], rtol * r.abs_scale[i] + 1e-30) << "at " << i;
}

}  // namespace

// ── PyTorch's results ───────────────────────────────────────────────────────────────────────

class LinalgGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(LinalgGolden, MatchesPyTorch) {
  for (const json& c : golden()["cases"]) {
    if (c["name"] != GetParam()) continue;
    std::vector<Tensor> in;
    for (const json& j : c["inputs"]) in.push_back(test::golden_tensor(j));
    const json args = c.contains("args") ? c["args"] : json::object();
    const Tensor out = run(c["op"], in, args);
    const json& e = c["expected"];
    const Dtype dtype = test::dtype_named(e["dtype"]);
    EXPECT_EQ(out.dtype(), dtype);
    EXPECT_EQ(out.sizes().vec(), e["shape"].get<Ints>());
    expect_close(out, test::golden_numbers(e["data"]), tolerance(dtype));
    return;
  }
  FAIL() << "no case " << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Cases, LinalgGolden, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return info.param; });

// ── the spellings of API.md, methods ───────────────────────────────────────────────────────

TEST(Linalg, ApiSpellings) {
  const Tensor x = arange(12, {.dtype = kFloat32}).view({3, 4});
  const Tensor y = arange(20, {.dtype = kFloat32}).view({4, 5});
  EXPECT_TRUE(einsum("ij,jk->ik", {x, y}).equal(mm(x, y)));
  EXPECT_EQ(einsum("ii->", {eye(4)}).item<float>(), 4.0f);
  EXPECT_TRUE(einsum("ij->i", {x}).equal(tensor({6.0f, 22.0f, 38.0f})));
  const Tensor bx = randn({2, 3, 4}), by = randn({2, 4, 5});
  EXPECT_TRUE(einsum("bij,bjk->bik", {bx, by}).equal(bmm(bx, by)));
  EXPECT_TRUE(matmul(x, y).equal(x.matmul(y)));
  EXPECT_TRUE(mm(x, y).equal(x.mm(y)));
  EXPECT_TRUE(bmm(bx, by).equal(bx.bmm(by)));
  const Tensor v = arange(4, {.dtype = kFloat32});
  EXPECT_TRUE(mv(x, v).equal(x.mv(v)));
  EXPECT_EQ(v.dot(v).item<float>(), 14.0f);
  EXPECT_TRUE(ger(v, v).equal(outer(v, v)));
}

// ── larger products and layouts against a double reference ─────────────────────────────────

TEST(Linalg, LargeFloat32AllTransposeCombinations) {
  const Tensor a = randn({70, 130}), b = randn({130, 50});
  const Tensor at = a.t().contiguous().t(), bt = b.t().contiguous().t();  // same values, (1, M)
  for (const Tensor& x : {a, at})
    for (const Tensor& y : {b, bt}) expect_matches_reference(mm(x, y), x, y, 1e-6);
}

TEST(Linalg, StridedWithoutUnitStrideIsCopied) {
  const Tensor base = randn({40, 60});
  const Tensor a = base.slice(0, 0, 40, 2).slice(1, 0, 60, 3);  // (20, 20), strides (120, 3)
  const Tensor b = randn({20, 9});
  expect_matches_reference(mm(a, b), a, b, 1e-6);
  expect_matches_reference(mm(b.t(), a), b.t(), a, 1e-6);
}

TEST(Linalg, BatchedPathsAgree) {
  // Small matrices run in parallel over the batch, large ones one after another; both with a
  // broadcast (stride-0) operand and a batch that is not the outermost dim.
  for (const Ints& bmk : {Ints{64, 16, 24}, Ints{3, 150, 140}}) {
    const int64_t B = bmk[0], M = bmk[1], K = bmk[2], N = 11;
    const Tensor a = randn({B, M, K}), b = randn({B, K, N});
    expect_matches_reference(bmm(a, b), a, b, 1e-6);
    const Tensor shared = randn({1, K, N}).expand({B, K, N});
    expect_matches_reference(bmm(a, shared), a, shared, 1e-6);
    const Tensor inner = randn({M, B, K}).transpose(0, 1);
    expect_matches_reference(bmm(inner, b), inner, b, 1e-6);
    const Tensor bt = randn({B, N, K}).transpose(1, 2);
    expect_matches_reference(bmm(a, bt), a, bt, 1e-6);
  }
}

TEST(Linalg, HalfTypesComputeInFloat) {
  const Tensor a = randn({9, 33}), b = randn({33, 7});
  for (Dtype t : {kFloat16, kBFloat16}) {
    const Tensor ah = a.to(t), bh = b.to(t);
    const Tensor want = mm(ah.to(kFloat32), bh.to(kFloat32)).to(t);  // one rounding at the end
    EXPECT_TRUE(mm(ah, bh).equal(want)) << t;
    EXPECT_TRUE(mm(ah, bh.t().contiguous().t()).equal(want)) << t;
  }
}

TEST(Linalg, IntegerTypes) {
  for (Dtype t : {kUInt8, kInt8, kInt16, kInt32, kInt64}) {
    const Tensor a = randint(0, 4, {5, 6}, {.dtype = t}), b = randint(0, 4, {6, 3}, {.dtype = t});
    const Tensor got = mm(a, b);
    EXPECT_EQ(got.dtype(), t);
    EXPECT_TRUE(got.to(kFloat64).equal(mm(a.to(kFloat64), b.to(kFloat64)))) << t;
  }
  // Wraps around like accumulating in the type itself: 100 * 100 * 2 = 20000 = 32 mod 256.
  const Tensor a = full({1, 2}, 100, {.dtype = kUInt8}), b = full({2, 1}, 100, {.dtype = kUInt8});
  EXPECT_EQ(mm(a, b).item<int64_t>(), 20000 % 256);
}

TEST(Linalg, BetaZeroIgnoresNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor a = randn({4, 5}), b = randn({5, 3});
  EXPECT_TRUE(addmm(full({4, 3}, nan), a, b, {.beta = 0}).equal(mm(a, b)));
  EXPECT_TRUE(addmv(full({4}, nan), a, b.select(1, 0), {.beta = 0}).equal(mv(a, b.select(1, 0))));
  const Tensor ba = randn({2, 4, 5}), bb = randn({2, 5, 3});
  EXPECT_TRUE(baddbmm(full({2, 4, 3}, nan), ba, bb, {.beta = 0}).equal(bmm(ba, bb)));
  for (double v : addbmm(full({4, 3}, nan), ba, bb, {.beta = 0}).tolist<double>())
    EXPECT_FALSE(std::isnan(v));
  // A NaN operand does propagate.
  Tensor an = a.clone();
  an.index_put_({0, 0}, nan);
  for (double v : mm(an, b).select(0, 0).tolist<double>()) EXPECT_TRUE(std::isnan(v));
}

TEST(Linalg, EmptyShapes) {
  EXPECT_TRUE(mm(empty({3, 0}), empty({0, 4})).equal(zeros({3, 4})));
  EXPECT_TRUE(bmm(empty({2, 3, 0}), empty({2, 0, 4})).equal(zeros({2, 3, 4})));
  EXPECT_TRUE(matmul(empty({0}), empty({0})).equal(zeros({})));
  EXPECT_EQ(mm(empty({0, 3}), empty({3, 4})).sizes().vec(), (Ints{0, 4}));
  EXPECT_EQ(matmul(empty({2, 0, 3}), empty({3, 5})).sizes().vec(), (Ints{2, 0, 5}));
  EXPECT_TRUE(
      addmm(ones({3, 4}), empty({3, 0}), empty({0, 4}), {.beta = 2}).equal(full({3, 4}, 2.0f)));
  EXPECT_TRUE(mm(empty({3, 0}, {.dtype = kInt64}), empty({0, 2}, {.dtype = kInt64}))
                  .equal(zeros({3, 2}, {.dtype = kInt64})));
}

TEST(Linalg, LinearMatchesMatmulPlusBias) {
  const Tensor x = randn({4, 6, 32}), w = randn({20, 32}), bias = randn({20});
  const Tensor got = linear(x, w, bias);
  EXPECT_EQ(got.sizes().vec(), (Ints{4, 6, 20}));
  expect_close(got, add(matmul(x, w.t()), bias).tolist<double>(), 1e-5);
  expect_close(linear(x, w), matmul(x, w.t()).tolist<double>(), 1e-5);
}

TEST(Linalg, MatmulFoldsContiguousBatchIntoOneProduct) {
  const Tensor a = randn({3, 4, 5}), b = randn({5, 6});
  expect_matches_reference(matmul(a, b).view({1, 12, 6}), a.reshape({1, 12, 5}), b.unsqueeze(0),
                           1e-6);
  EXPECT_TRUE(matmul(a, b).is_contiguous());
}

TEST(Linalg, EinsumSingleOperandViewsShareStorage) {
  const Tensor x = randn({3, 3});
  EXPECT_EQ(einsum("ij->ji", {x}).storage().get(), x.storage().get());
  EXPECT_EQ(einsum("ii->i", {x}).storage().get(), x.storage().get());
  EXPECT_EQ(einsum("ii->i", {x}).strides().vec(), (Ints{4}));
}

TEST(Linalg, EinsumContractionsMatchBmmOnLargerShapes) {
  const Tensor q = randn({2, 4, 16, 8}), k = randn({2, 4, 12, 8});
  const Tensor want = matmul(q, k.transpose(-1, -2));
  expect_close(einsum("bhqd,bhkd->bhqk", {q, k}), want.tolist<double>(), 1e-5);
}

TEST(Linalg, OpenBlasFollowsEmberThreadCount) {
  const int before = get_num_threads();
  set_num_threads(1);
  (void)mm(randn({300, 300}), randn({300, 300}));
  EXPECT_EQ(openblas_get_num_threads(), 1);
  set_num_threads(before);
  (void)mm(randn({300, 300}), randn({300, 300}));
  EXPECT_EQ(openblas_get_num_threads(), before);
}

// ── error messages (PyTorch's wording) ──────────────────────────────────────────────────────

TEST(LinalgErrors, MmBmmMvDot) {
  const Tensor f = ones({3, 4});
  EXPECT_ERROR(mm(ones({3}), f), "[mm] self must be a matrix");
  EXPECT_ERROR(mm(f, ones({4})), "mat2 must be a matrix");
  EXPECT_ERROR(mm(f, ones({5, 6})), "mat1 and mat2 shapes cannot be multiplied (3x4 and 5x6)");
  EXPECT_ERROR(mm(f, ones({4, 5}, {.dtype = kFloat64})),
               "expected scalar type Float but found Double");
  EXPECT_ERROR(mm(ones({2, 2}, {.dtype = kBool}), ones({2, 2}, {.dtype = kBool})),
               "not implemented for dtype");
  EXPECT_ERROR(bmm(f, ones({2, 4, 6})), "batch1 must be a 3D tensor");
  EXPECT_ERROR(bmm(ones({2, 3, 4}), f), "batch2 must be a 3D tensor");
  EXPECT_ERROR(bmm(ones({2, 3, 4}), ones({2, 5, 6})),
               "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: "
               "[2, 5].");
  EXPECT_ERROR(bmm(ones({2, 3, 4}), ones({3, 4, 6})), "to be: [2, 4] but got: [3, 4].");
  EXPECT_ERROR(mv(f, ones({5})), "size mismatch, got 3, 3x4,5");
  EXPECT_ERROR(mv(f, ones({4, 1})), "vector + matrix @ vector expected, got 1, 2, 2");
  EXPECT_ERROR(mv(f, ones({4}, {.dtype = kInt64})), "expected scalar type Float but found Long");
  EXPECT_ERROR(dot(ones({3, 1}), ones({3})), "1D tensors expected, but got 2D and 1D tensors");
  EXPECT_ERROR(dot(ones({3}), ones({3}, {.dtype = kFloat64})),
               "dot : expected both vectors to have same dtype, but found Float and Double");
  EXPECT_ERROR(dot(ones({3}), ones({4})),
               "inconsistent tensor size, expected tensor [3] and src [4] to have the same number "
               "of elements, but got 3 and 4 elements respectively");
  EXPECT_ERROR(vdot(ones({3}), ones({4})), "[vdot] inconsistent tensor size");
}

TEST(LinalgErrors, Matmul) {
  EXPECT_ERROR(matmul(ones({}), ones({3})),
               "both arguments to matmul need to be at least 1D, but they are 0D and 1D");
  EXPECT_ERROR(matmul(ones({3}), ones({4})), "inconsistent tensor size");
  EXPECT_ERROR(matmul(ones({3, 4}), ones({5, 6})), "(3x4 and 5x6)");
  EXPECT_ERROR(matmul(ones({2, 3, 4}), ones({3, 4})),
               "mat1 and mat2 shapes cannot be multiplied (6x4 and 3x4)");
  EXPECT_ERROR(matmul(ones({2, 3, 4}), ones({5})), "size mismatch, got 6, 6x4,5");
  EXPECT_ERROR(matmul(ones({2, 3, 4}), ones({2, 5, 6})),
               "Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: "
               "[2, 5].");
  EXPECT_ERROR(matmul(ones({2, 3, 4}), ones({3, 4, 6})),
               "must match the size of tensor b (3) at non-singleton dimension 0");
  EXPECT_ERROR(matmul(ones({2, 3, 4}), ones({4, 5}, {.dtype = kFloat64})),
               "expected scalar type Float but found Double");
  EXPECT_ERROR(matmul(ones({2, 3, 4}), ones({2, 4, 5}, {.dtype = kFloat64})),
               "expected scalar type Float but found Double");
}

TEST(LinalgErrors, AddForms) {
  const Tensor a = ones({3, 4}), b = ones({4, 5});
  EXPECT_ERROR(addmm(ones({3, 5}), ones({3}), b), "mat1 must be a matrix, got 1-D tensor");
  EXPECT_ERROR(addmm(ones({3, 5}), a, ones({4})), "mat2 must be a matrix, got 1-D tensor");
  EXPECT_ERROR(addmm(ones({2, 5}), a, b),
               "[addmm] The expanded size of the tensor (3) must match the existing size (2) at "
               "non-singleton dimension 0.  Target sizes: [3, 5].  Tensor sizes: [2, 5]");
  EXPECT_ERROR(addmm(ones({3, 5}, {.dtype = kFloat64}), a, b),
               "self and mat2 must have the same dtype");
  EXPECT_ERROR(addmm(ones({3, 5}), ones({3, 4}, {.dtype = kFloat64}), b),
               "mat1 and mat2 must have the same dtype");
  const Tensor i = ones({3, 4}, {.dtype = kInt64}), j = ones({4, 5}, {.dtype = kInt64});
  EXPECT_ERROR(addmm(ones({3, 5}, {.dtype = kInt64}), i, j, {.beta = 0.5}),
               "For integral input tensors, argument beta must not be a floating point number.");
  EXPECT_ERROR(addmv(ones({4}), a, ones({4})), "The expanded size of the tensor (3)");
  EXPECT_ERROR(addmv(ones({3}), a, ones({4}, {.dtype = kFloat64})),
               "expected scalar type Float but found Double");
  EXPECT_ERROR(addbmm(ones({3, 5}), ones({2, 3, 4}), ones({3, 4, 5})),
               "batch1 and batch2 must have same number of batches, got 2 and 3");
  EXPECT_ERROR(addbmm(ones({3, 5}), ones({2, 3, 4}), ones({2, 5, 5})),
               "Incompatible matrix sizes for bmm (3x4 and 5x5)");
  EXPECT_ERROR(baddbmm(ones({3, 5}), ones({2, 3, 4}), ones({4, 5})), "batch2 must be a 3D tensor");
  EXPECT_ERROR(baddbmm(ones({2, 3, 6}), ones({2, 3, 4}), ones({2, 4, 5})),
               "The expanded size of the tensor (5) must match the existing size (6) at "
               "non-singleton dimension 2.  Target sizes: [2, 3, 5].  Tensor sizes: [2, 3, 6]");
  EXPECT_ERROR(outer(ones({3, 1}), ones({4})), "outer: Expected 1-D argument self, but got 2-D");
  EXPECT_ERROR(outer(ones({3}), ones({4, 1})), "outer: Expected 1-D argument vec2, but got 2-D");
}

TEST(LinalgErrors, Linear) {
  EXPECT_ERROR(linear(ones({2, 3}), ones({4, 5})),
               "mat1 and mat2 shapes cannot be multiplied (2x3 and 5x4)");
  EXPECT_ERROR(linear(ones({2, 3}), ones({4, 3}), ones({5})),
               "The expanded size of the tensor (4) must match the existing size (5) at "
               "non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [5]");
  EXPECT_ERROR(linear(ones({2, 3}), ones({4, 3}, {.dtype = kFloat64})),
               "expected scalar type Float but found Double");
  EXPECT_ERROR(linear(ones({2, 3}), ones({4, 3}), ones({4}, {.dtype = kFloat64})),
               "self and mat2 must have the same dtype");
  EXPECT_ERROR(linear(ones({}), ones({4, 3})),
               "both arguments to matmul need to be at least 1D, but they are 0D and 2D");
}

TEST(LinalgErrors, Einsum) {
  const Tensor x = ones({3, 4}), y = ones({4, 5});
  EXPECT_ERROR(einsum("ij,jk->ik", {x, ones({5, 6})}),
               "einsum(): subscript j has size 5 for operand 1 which does not broadcast with "
               "previously seen size 4");
  EXPECT_ERROR(einsum("ij,jk->ii", {x, y}),
               "einsum(): output subscript i appears more than once in the output");
  EXPECT_ERROR(einsum("ij,jk", {x}),
               "einsum(): fewer operands were provided than specified in the equation");
  EXPECT_ERROR(einsum("ij", {x, y}),
               "einsum(): more operands were provided than specified in the equation");
  EXPECT_ERROR(einsum("ij->k", {x}),
               "einsum(): output subscript k does not appear in the equation for any input "
               "operand");
  EXPECT_ERROR(einsum("ijk->", {x}),
               "einsum(): the number of subscripts in the equation (3) does not match the number "
               "of dimensions (2) for operand 0 and no ellipsis was given");
  EXPECT_ERROR(einsum("ijk...->", {x}),
               "einsum(): the number of subscripts in the equation (3) is more than the number of "
               "dimensions (2) for operand 0");
  EXPECT_ERROR(einsum("ii->i", {x}),
               "einsum(): subscript i is repeated for operand 0 but the sizes don't match, 4 != 3");
  EXPECT_ERROR(einsum("...ij,...jk->...ik", {ones({2, 3, 4}), ones({5, 4, 6})}),
               "einsum(): dimension 0 covered by ellipsis in operand 1 has size 5 which does not "
               "broadcast with previously seen ellipsis with size 2 for the respective dimension");
  EXPECT_ERROR(einsum("i.j", {x}),
               "einsum(): found '.' for operand 0 that is not part of any "
               "ellipsis");
  EXPECT_ERROR(einsum("i...i...", {ones({3, 4, 3})}),
               "einsum(): found '.' for operand 0 for which an ellipsis was already found");
  EXPECT_ERROR(einsum("...ij->...ij...", {ones({2, 3, 4})}),
               "einsum(): found '.' for output but an ellipsis (...) was already found");
  EXPECT_ERROR(einsum("i1", {x}),
               "einsum(): invalid subscript given at index 1 in the equation "
               "string, subscripts must be in [a-zA-Z]");
  EXPECT_ERROR(einsum("ij->ij->", {x}), "invalid subscript given at index 6");
  EXPECT_ERROR(einsum("ij", {}), "einsum(): must provide at least one operand");
  EXPECT_ERROR(einsum("i,i->", {ones({3}), ones({3}, {.dtype = kFloat64})}),
               "expected scalar type Float but found Double");
}
