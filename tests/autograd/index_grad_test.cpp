// Gradients of indexing and rearranging ops (src/ops/gather.cpp, index.cpp, rearrange.cpp):
// gather/scatter, index_* ops, take, masks, Python-style index/index_put_, flip/roll/tril/triu,
// diag/diag_embed/trace; node names as PyTorch 1.13.
#include "grad_table.h"
#include "ops/op_table.h"

namespace ember::gradtest {
namespace {

using indexing::Slice;

Tensor idx(const NestedList& v) { return tensor(v, kInt64); }

// clang-format off
const GradCase kOwnCases[] = {
    // ── gather / scatter ─────────────────────────────────────────────────
    // (gather: its op table row, ops/op_table.h)
    {"scatter", "ScatterBackward0", [] { return In{x({3, 4}), x({2, 3})}; },
     [](const In& t) { return t[0].scatter(1, idx({{0, 2, 3}, {1, 0, 2}}), t[1]); }},
    {"scatter_value", "ScatterBackward1", [] { return In{x({3, 4})}; },
     [](const In& t) { return t[0].scatter(0, idx({{0, 2, 1}}), 1.5); }},
    {"scatter_inplace", "ScatterBackward0", [] { return In{x({3, 4}), x({2, 3})}; },
     [](const In& t) {
       Tensor a = t[0] * 1;
       a.scatter_(1, idx({{0, 2, 3}, {1, 0, 2}}), t[1]);
       return a;
     }},
    {"scatter_add", "ScatterAddBackward0", [] { return In{x({3, 4}), x({2, 3})}; },
     [](const In& t) { return t[0].scatter_add(1, idx({{0, 0, 3}, {1, 1, 1}}), t[1]); }},
    {"scatter_add_inplace", "ScatterAddBackward0", [] { return In{x({3}), x({4})}; },
     [](const In& t) {
       Tensor a = t[0] * 1;
       a.scatter_add_(0, idx({0, 2, 0, 0}), t[1]);
       return a;
     }},
    {"scatter_reduce_sum", "ScatterReduceBackward0", [] { return In{x({4}), x({5})}; },
     [](const In& t) { return scatter_reduce(t[0], 0, idx({0, 2, 0, 3, 0}), t[1], "sum"); }},
    {"scatter_reduce_mean_exclude", "ScatterReduceBackward0", [] { return In{x({4}), x({5})}; },
     [](const In& t) {
       return scatter_reduce(t[0], 0, idx({0, 2, 0, 3, 0}), t[1], "mean", false);
     }},
    {"scatter_reduce_amax", "ScatterReduceBackward0", [] { return In{x({4}), x({5})}; },
     [](const In& t) { return scatter_reduce(t[0], 0, idx({0, 2, 0, 3, 0}), t[1], "amax"); }},
    {"scatter_reduce_amin_exclude", "ScatterReduceBackward0", [] { return In{x({4}), x({5})}; },
     [](const In& t) {
       return scatter_reduce(t[0], 0, idx({0, 2, 0, 3, 0}), t[1], "amin", false);
     }},
    {"scatter_reduce_prod", "ScatterReduceBackward0", [] { return In{pos({4}), pos({5})}; },
     [](const In& t) { return scatter_reduce(t[0], 0, idx({0, 2, 0, 3, 0}), t[1], "prod"); }},
    // Zeros: in self (slot 1), the only zero of slot 0 in src, two zeros in slot 2's src.
    {"scatter_reduce_prod_zeros", "ScatterReduceBackward0",
     [] {
       return In{tensor({2.0, 0.0, 1.5, -1.0}, {.dtype = kFloat64}).requires_grad_(),
                 tensor({0.0, 3.0, 0.5, 0.0, 0.0, 2.0, 1.5}, {.dtype = kFloat64})
                     .requires_grad_()};
     },
     [](const In& t) {
       return scatter_reduce(t[0], 0, idx({0, 1, 0, 2, 2, 3, 1}), t[1], "prod");
     }, false},
    {"scatter_reduce_prod_single_zero_no_self", "ScatterReduceBackward0",
     [] {
       return In{tensor({2.0, 0.0, 1.5}, {.dtype = kFloat64}).requires_grad_(),
                 tensor({0.0, 3.0, 0.5, -2.0}, {.dtype = kFloat64}).requires_grad_()};
     },
     [](const In& t) {
       return scatter_reduce(t[0], 0, idx({0, 0, 1, 2}), t[1], "prod", false);
     }},
    {"scatter_reduce_inplace", "ScatterReduceBackward0", [] { return In{x({4}), x({5})}; },
     [](const In& t) {
       Tensor a = t[0] * 1;
       scatter_reduce_(a, 0, idx({0, 2, 0, 3, 0}), t[1], "mean");
       return a;
     }},
    // ── index_select / index_add / index_copy / index_fill ───────────────
    {"index_select", "IndexSelectBackward0", [] { return In{x({4, 3})}; },
     [](const In& t) { return t[0].index_select(0, idx({3, 0, 3})); }},
    {"index_select_nc", "IndexSelectBackward0", [] { return In{xt({4, 3})}; },
     [](const In& t) { return index_select(t[0], 1, idx({2, 2, 0, 1})); }},
    {"index_select_0d", "IndexSelectBackward0", [] { return In{x({})}; },
     [](const In& t) { return t[0].index_select(0, idx({0})); }},
    {"index_add", "IndexAddBackward0", [] { return In{x({4, 3}), x({3, 3})}; },
     [](const In& t) { return index_add(t[0], 0, idx({1, 3, 1}), t[1], 2.5); }},
    {"index_add_inplace", "IndexAddBackward0", [] { return In{x({4, 3}), xt({4, 2})}; },
     [](const In& t) {
       Tensor a = t[0] * 1;
       a.index_add_(1, idx({2, 0}), t[1]);
       return a;
     }},
    {"index_copy", "IndexCopyBackward0", [] { return In{x({4, 3}), x({2, 3})}; },
     [](const In& t) { return index_copy(t[0], 0, idx({3, 0}), t[1]); }},
    {"index_copy_inplace", "IndexCopyBackward0", [] { return In{x({4, 3}), x({4, 2})}; },
     [](const In& t) {
       Tensor a = t[0] * 1;
       a.index_copy_(1, idx({2, 0}), t[1]);
       return a;
     }},
    {"index_fill", "IndexFillBackward0", [] { return In{xt({4, 3})}; },
     [](const In& t) { return index_fill(t[0], 1, idx({0, -1}), -1.0); }},
    // ── take / take_along_dim / masks ────────────────────────────────────
    {"take", "TakeBackward0", [] { return In{xt({3, 4})}; },
     [](const In& t) { return take(t[0], idx({{0, -1}, {5, 5}})); }},
    {"take_along_dim", "GatherBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return take_along_dim(t[0], idx({{0}, {3}, {1}}), 1); }},
    {"take_along_dim_flat", "GatherBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return take_along_dim(t[0], idx({11, 0, 0})); }},
    {"masked_select", "MaskedSelectBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return t[0].masked_select(tensor({true, false, true, true})); }},
    {"masked_scatter", "MaskedScatterBackward0", [] { return In{x({2, 3}), x({7})}; },
     [](const In& t) {
       return masked_scatter(t[0], tensor({{true, false, true}, {false, true, true}}), t[1]);
     }},
    // ── Python-style indexing ────────────────────────────────────────────
    {"index_tensor", "IndexBackward0", [] { return In{x({4, 3})}; },
     [](const In& t) { return t[0].index({idx({3, 1, 3})}); }},
    {"index_after_slice", "IndexBackward0", [] { return In{xt({4, 3})}; },
     [](const In& t) { return t[0].index({Slice(1), idx({{0, 2}, {2, 2}})}); }},
    {"index_two_tensors", "IndexBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return t[0].index({idx({0, 2, 0}), idx({1, 1, 1})}); }},
    {"index_mask", "IndexBackward0", [] { return In{x({2, 3})}; },
     [](const In& t) { return t[0].index({tensor({{true, false, true}, {false, false, true}})}); }},
    {"index_basic_is_a_view", "SelectBackward0", [] { return In{x({2, 3})}; },
     [](const In& t) { return t[0].index({1}); }},
    {"index_put", "IndexPutBackward0", [] { return In{x({4, 3}), x({3})}; },
     [](const In& t) {
       Tensor a = t[0] * 1;
       a.index_put_({idx({0, 2})}, t[1]);
       return a;
     }},
    {"index_put_accumulate", "IndexPutBackward0", [] { return In{x({4, 3}), x({3, 1})}; },
     [](const In& t) {
       Tensor a = t[0] * 1;
       a.index_put_({idx({0, 2, 0}), Slice(1)}, t[1], true);
       return a;
     }},
    {"index_put_scalar", "IndexPutBackward0", [] { return In{x({4, 3})}; },
     [](const In& t) {
       Tensor a = t[0] * 1;
       a.index_put_({idx({0, 2})}, 5);
       return a;
     }},
    {"index_put_basic", "CopySlices", [] { return In{x({4, 3}), x({1, 3})}; },
     [](const In& t) {
       Tensor a = t[0] * 1;
       a.index_put_({Slice(1, 3)}, t[1]);
       return a;
     }},
    {"index_put_basic_scalar", "CopySlices", [] { return In{x({4, 3})}; },
     [](const In& t) {
       Tensor a = t[0] * 1;
       a.index_put_({Slice(), 1}, 0.5);
       return a;
     }},
    // ── rearranging ──────────────────────────────────────────────────────
    {"flip", "FlipBackward0", [] { return In{xt({3, 4})}; },
     [](const In& t) { return t[0].flip({0, 1}); }},
    {"roll", "RollBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return t[0].roll({1, -3}, {0, 1}); }},
    {"roll_flat", "RollBackward0", [] { return In{xt({3, 4})}; },
     [](const In& t) { return t[0].roll({5}, {}); }},
    {"tril", "TrilBackward0", [] { return In{x({2, 3, 4})}; },
     [](const In& t) { return t[0].tril(-1); }},
    {"triu", "TriuBackward0", [] { return In{xt({4, 3})}; },
     [](const In& t) { return t[0].triu(1); }},
    {"diag_vector", "DiagBackward0", [] { return In{x({3})}; },
     [](const In& t) { return diag(t[0], -1); }},
    {"diag_matrix", "DiagBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return diag(t[0], 1); }},
    {"diag_embed", "DiagEmbedBackward0", [] { return In{x({2, 3})}; },
     [](const In& t) { return diag_embed(t[0], 1, 0, 2); }},
    {"trace", "TraceBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return trace(t[0]); }},
    {"repeat_interleave", "IndexSelectBackward0", [] { return In{x({3, 2})}; },
     [](const In& t) { return repeat_interleave(t[0], idx({1, 0, 2}), 0); }},
};
// clang-format on

// These rows and the index rows of the op table (ops/op_table.h).
std::vector<GradCase> all_cases() {
  std::vector<GradCase> cases = test::grad_cases({test::Family::index});
  cases.insert(cases.end(), std::begin(kOwnCases), std::end(kOwnCases));
  return cases;
}

EMBER_GRAD_TABLE(Index, all_cases());

TEST(IndexGrad, RepeatedIndicesAccumulate) {
  Tensor a = x({3});
  a.index({idx({0, 0, 2, 0})}).sum().backward();
  EXPECT_EQ(a.grad().tolist<double>(), (std::vector<double>{3, 0, 1}));
}

TEST(IndexGrad, IndexPutIntoALeafIsRefused) {
  Tensor a = x({3});
  try {
    a.index_put_({idx({0})}, 1.0);
    FAIL() << "index_put_ into a leaf that requires grad must fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a leaf Variable that requires grad"), std::string::npos)
        << e.what();
  }
}

TEST(IndexGrad, WrittenPositionsGetNoGradient) {
  Tensor a = x({4}), v = x({2});
  Tensor b = a * 1;
  b.index_put_({Slice(1, 3)}, v);
  b.sum().backward();
  EXPECT_EQ(a.grad().tolist<double>(), (std::vector<double>{1, 0, 0, 1}));
  EXPECT_EQ(v.grad().tolist<double>(), (std::vector<double>{1, 1}));
}

TEST(IndexGrad, ScatterReduceAmaxSharesTies) {
  Tensor self = tensor({1.0, 0.0}, kFloat64).requires_grad_();
  Tensor src = tensor({1.0, 1.0, -1.0}, kFloat64).requires_grad_();
  scatter_reduce(self, 0, idx({0, 0, 1}), src, "amax").sum().backward();
  // Element 0: self and both src entries equal the max 1: a third each.
  EXPECT_NEAR(self.grad().tolist<double>()[0], 1.0 / 3, 1e-12);
  EXPECT_EQ(self.grad().tolist<double>()[1], 1);
  EXPECT_NEAR(src.grad().tolist<double>()[1], 1.0 / 3, 1e-12);
  EXPECT_EQ(src.grad().tolist<double>()[2], 0);
}

TEST(IndexGrad, IntegerOutputsStayOutOfTheGraph) {
  Tensor a = x({3});
  EXPECT_FALSE(a.to(kInt64).requires_grad());
  EXPECT_FALSE(a.gt(0).requires_grad());
}

}  // namespace
}  // namespace ember::gradtest
