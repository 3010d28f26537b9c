// Gradients of the reductions (src/ops/reduce.cpp, reduce_index.cpp), softmax and scans
// (softmax.cpp) and the sort family (sort.cpp), with PyTorch 1.13's subgradient conventions:
// ties of max()/amax share the gradient evenly, max(dim) and sort send it to the index
// returned, the 2-norm of zero has gradient 0, std of a constant has gradient 0, prod handles
// zeros.
#include "grad_table.h"
#include "ops/op_table.h"

#include <limits>

namespace ember::gradtest {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Values with distinct magnitudes (no ties), in random order.
Tensor distinct(IntArrayRef shape) {
  const int64_t n = prod(shape);
  Tensor v = arange(n, {.dtype = kFloat64}) * 0.37 - 0.3 * double(n) / 2;
  static Generator gen(99);
  Tensor perm = randperm(n, {.generator = &gen});
  return v.index_select(0, perm).reshape(shape).detach().requires_grad_();
}

Tensor t_of(std::vector<double> v, std::optional<std::vector<int64_t>> sizes = {}) {
  return from_vector(v, sizes, {.dtype = kFloat64}).requires_grad_();
}

const GradCase kOwnCases[] = {
    // ── sum / mean (already wired) ──
    {"sum_all", "SumBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return t[0].sum(); }},
    {"sum_dims", "SumBackward1", [] { return In{xt({3, 4})}; },
     [](const In& t) { return t[0].sum(0, false); }},
    {"mean_keepdim", "MeanBackward1", [] { return In{x({2, 3, 4})}; },
     [](const In& t) { return t[0].mean({0, 2}, true); }},
    // ── prod ──
    {"prod_all", "ProdBackward0", [] { return In{x({3, 4}, 0.5, 1.5)}; },
     [](const In& t) { return t[0].prod(); }},
    {"prod_dim", "ProdBackward1", [] { return In{xt({3, 4})}; },
     [](const In& t) { return t[0].prod(1); }},
    {"prod_dim_keepdim", "ProdBackward1", [] { return In{x({3, 4})}; },
     [](const In& t) { return t[0].prod(0, true); }},
    {"prod_0d", "ProdBackward0", [] { return In{x({})}; },
     [](const In& t) { return t[0].prod(); }},
    {"prod_one_zero", "ProdBackward0", [] { return In{t_of({1.5, 0, -2, 0.5})}; },
     [](const In& t) { return t[0].prod(); }},
    {"prod_dim_with_zero", "ProdBackward1",
     [] { return In{t_of({1.5, 0, -2, 0.5, 3, 0.7}, {{2, 3}})}; },
     [](const In& t) { return t[0].prod(1); }},
    // ── var / std ──
    {"var_all", "VarBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return t[0].var(); }},
    {"var_dim_correction0", "VarBackward0", [] { return In{xt({3, 4})}; },
     [](const In& t) { return t[0].var(1, 0, false); }},
    {"var_keepdim", "VarBackward0", [] { return In{x({2, 3, 4})}; },
     [](const In& t) { return t[0].var(IntArrayRef{0, 2}, 1, true); }},
    {"std_all", "StdBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return t[0].std(); }},
    {"std_dim", "StdBackward0", [] { return In{xt({3, 4})}; },
     [](const In& t) { return t[0].std(0, 2, true); }},
    {"var_mean", "", [] { return In{x({3, 4})}; },
     [](const In& t) { auto [v, m] = var_mean(t[0], IntArrayRef{1}); return v + m * 2; }},
    {"std_mean", "", [] { return In{x({3, 4})}; },
     [](const In& t) { auto [v, m] = std_mean(t[0], IntArrayRef{0}); return v * m; }},
    // ── max / min / amax / amin ──
    {"max_all", "MaxBackward1", [] { return In{distinct({3, 4})}; },
     [](const In& t) { return t[0].max(); }},
    {"min_all", "MinBackward1", [] { return In{distinct({3, 4})}; },
     [](const In& t) { return t[0].min(); }},
    {"max_dim", "MaxBackward0", [] { return In{distinct({3, 4})}; },
     [](const In& t) { return std::get<0>(t[0].max(1)); }},
    {"min_dim_keepdim", "MinBackward0", [] { return In{distinct({3, 4})}; },
     [](const In& t) { return std::get<0>(t[0].min(0, true)); }},
    {"amax", "AmaxBackward0", [] { return In{distinct({2, 3, 4})}; },
     [](const In& t) { return t[0].amax({0, 2}); }},
    {"amin_keepdim", "AminBackward0", [] { return In{distinct({3, 4})}; },
     [](const In& t) { return t[0].amin({1}, true); }},
    // ── norms ──
    {"norm_2", "NormBackward1", [] { return In{x({3, 4})}; },
     [](const In& t) { return t[0].norm(); }},
    {"norm_1_dim", "NormBackward1", [] { return In{x({3, 4})}; },
     [](const In& t) { return t[0].norm(1, 1); }},
    {"vector_norm_3", "LinalgVectorNormBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return linalg_vector_norm(t[0], 3, {1}, true); }},
    {"vector_norm_1_5", "LinalgVectorNormBackward0", [] { return In{xt({3, 4})}; },
     [](const In& t) { return linalg_vector_norm(t[0], 1.5, {0}); }},
    {"vector_norm_0_5", "LinalgVectorNormBackward0", [] { return In{x({5}, 0.5, 2)}; },
     [](const In& t) { return linalg_vector_norm(t[0], 0.5); }},
    {"vector_norm_inf", "LinalgVectorNormBackward0", [] { return In{distinct({3, 4})}; },
     [](const In& t) { return linalg_vector_norm(t[0], kInf, {1}); }},
    {"vector_norm_neg_inf", "LinalgVectorNormBackward0", [] { return In{distinct({3, 4})}; },
     [](const In& t) { return linalg_vector_norm(t[0], -kInf); }},
    // ── logsumexp / softmax ──
    {"logsumexp", "LogsumexpBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return t[0].logsumexp(1); }},
    {"logsumexp_keepdim_all", "LogsumexpBackward0", [] { return In{xt({3, 4})}; },
     [](const In& t) { return t[0].logsumexp({0, 1}, true); }},
    {"softmax", "SoftmaxBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return softmax(t[0], 1); }},
    {"softmax_dim0_noncontig", "SoftmaxBackward0", [] { return In{xt({3, 4})}; },
     [](const In& t) { return softmax(t[0], 0); }},
    {"log_softmax", "LogSoftmaxBackward0", [] { return In{x({2, 3, 4})}; },
     [](const In& t) { return log_softmax(t[0], -1); }},
    {"log_softmax_0d", "LogSoftmaxBackward0", [] { return In{x({})}; },
     [](const In& t) { return log_softmax(t[0], 0); }},
    // ── scans ──
    // (cumsum: its op table row, ops/op_table.h)
    {"cumprod", "CumprodBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return t[0].cumprod(1); }},
    {"cumprod_with_zeros", "CumprodBackward0",
     [] { return In{t_of({1.5, 0, -2, 0.5, 0, 0.7, 0.8, 1.2}, {{2, 4}})}; },
     [](const In& t) { return t[0].cumprod(1); }},
    // Zeros first, twice in a line, and along dim 0; with create_graph PyTorch's O(n^2) form.
    {"cumprod_zero_first_and_twice", "CumprodBackward0",
     [] { return In{t_of({0, 1.5, -2, 0.5, 0.7, 0, 0.8, 0}, {{2, 4}})}; },
     [](const In& t) { return t[0].cumprod(1); }},
    {"cumprod_zeros_dim0", "CumprodBackward0",
     [] { return In{t_of({1.5, 0, -2, 0.5, 0, 0.7, 0.8, 1.2, 0.9}, {{3, 3}})}; },
     [](const In& t) { return t[0].cumprod(0); }},
    // ── nansum ──
    {"nansum", "NansumBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return t[0].nansum(); }},
    {"nansum_dim", "NansumBackward0", [] { return In{xt({3, 4})}; },
     [](const In& t) { return t[0].nansum({1}, true); }},
    // ── sort family ──
    {"sort", "SortBackward0", [] { return In{distinct({3, 4})}; },
     [](const In& t) { return std::get<0>(sort(t[0], 1)); }},
    {"sort_desc_dim0", "SortBackward0", [] { return In{distinct({3, 4})}; },
     [](const In& t) { return std::get<0>(sort(t[0], 0, true)); }},
    {"topk", "TopkBackward0", [] { return In{distinct({3, 5})}; },
     [](const In& t) { return std::get<0>(topk(t[0], 2)); }},
    {"kthvalue", "KthvalueBackward0", [] { return In{distinct({3, 5})}; },
     [](const In& t) { return std::get<0>(kthvalue(t[0], 2, 1)); }},
    {"median_all", "MedianBackward0", [] { return In{distinct({3, 5})}; },
     [](const In& t) { return median(t[0]); }},
    {"median_dim", "MedianBackward1", [] { return In{distinct({3, 5})}; },
     [](const In& t) { return std::get<0>(median(t[0], 1, true)); }},
    {"nanmedian_dim", "NanmedianBackward1", [] { return In{distinct({3, 5})}; },
     [](const In& t) { return std::get<0>(nanmedian(t[0], 0)); }},
};

// These rows and the scan rows of the op table (ops/op_table.h).
std::vector<GradCase> all_cases() {
  std::vector<GradCase> cases = test::grad_cases({test::Family::scan});
  cases.insert(cases.end(), std::begin(kOwnCases), std::end(kOwnCases));
  return cases;
}

EMBER_GRAD_TABLE(Reduce, all_cases());

double at(const Tensor& t, int64_t i) { return t.reshape({-1}).select(0, i).item<double>(); }

TEST(ReduceGrad, MaxOfTiesIsSharedEvenly) {
  Tensor a = t_of({1, 3, 3, 2});
  a.max().backward();
  EXPECT_EQ(at(a.grad(), 0), 0);
  EXPECT_EQ(at(a.grad(), 1), 0.5);
  EXPECT_EQ(at(a.grad(), 2), 0.5);
  Tensor b = t_of({3, 1, 3});
  b.amax().backward();
  EXPECT_EQ(at(b.grad(), 0), 0.5);
  EXPECT_EQ(at(b.grad(), 2), 0.5);
}

TEST(ReduceGrad, MaxAlongADimGoesToTheReturnedIndex) {
  Tensor a = t_of({3, 1, 3});
  std::get<0>(a.max(0)).backward();
  EXPECT_EQ(at(a.grad(), 0), 1);  // the first occurrence is returned
  EXPECT_EQ(at(a.grad(), 2), 0);
}

TEST(ReduceGrad, NormOfZeroHasZeroGradient) {
  Tensor a = zeros({3}, {.dtype = kFloat64, .requires_grad = true});
  a.norm().backward();
  EXPECT_EQ(a.grad().abs().sum().item<double>(), 0);
  Tensor b = zeros({3}, {.dtype = kFloat64, .requires_grad = true});
  b.std().backward();
  EXPECT_EQ(b.grad().abs().sum().item<double>(), 0);
}

TEST(ReduceGrad, ProdWithTwoZerosHasZeroGradient) {
  Tensor a = t_of({0, 2, 0});
  a.prod().backward();
  EXPECT_EQ(a.grad().abs().sum().item<double>(), 0);
  Tensor b = t_of({0, 2, 3});
  b.prod().backward();
  EXPECT_EQ(at(b.grad(), 0), 6);
  EXPECT_EQ(at(b.grad(), 1), 0);
}

}  // namespace
}  // namespace ember::gradtest
