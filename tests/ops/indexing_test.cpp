// Advanced indexing and the gather/scatter/rearrange/search ops against PyTorch 1.13
// (tests/golden/indexing.json from gen_indexing.py), plus error messages and edge cases:
// non-contiguous inputs, negative dims and indices, empty index tensors, duplicates.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ops/indexing_golden.h"
#include "ops/op_table.h"

using namespace ember;
using namespace ember::indexing;

namespace {

using Ints = std::vector<int64_t>;
Ints ints(const Tensor& t) { return t.tolist<int64_t>(); }
Tensor longs(const Ints& v) { return from_vector(v); }
Tensor no_index() { return empty({0}, {.dtype = kInt64}); }

Tensor t20() { return arange(20).reshape({4, 5}); }
Tensor x120() { return arange(120).reshape({2, 3, 4, 5}); }

}  // namespace

// ── advanced indexing ────────────────────────────────────────────────────────────────────────

TEST(AdvancedIndex, ReferenceExamples) {
  const Tensor t = t20();
  EXPECT_GOLDEN(t.index({t > 10}), "index/gt10");
  EXPECT_GOLDEN(t.index({t % 3 == 0}), "index/mod3");
  EXPECT_GOLDEN(t.index({tensor({0, 2, 3})}), "index/rows");
  EXPECT_EQ(ints(t.index({t > 10})), (Ints{11, 12, 13, 14, 15, 16, 17, 18, 19}));
  // A copy, not a view.
  Tensor rows = t.index({tensor({0, 2, 3})});
  rows.fill_(0);
  EXPECT_EQ(t.index({0, 0}).item<int64_t>(), 0);
  EXPECT_EQ(t.index({1, 0}).item<int64_t>(), 5);
}

TEST(AdvancedIndex, IntegerTensors) {
  const Tensor t = t20();
  EXPECT_GOLDEN(t.index({tensor({-1, 0})}), "index/neg");
  EXPECT_GOLDEN(t.index({tensor({1, 1, 1})}), "index/dup");
  EXPECT_GOLDEN(t.index({tensor({{0, 1}, {2, 3}})}), "index/2d");
  EXPECT_GOLDEN(t.index({tensor({0, 2}), tensor({1, 4})}), "index/pair");
  EXPECT_GOLDEN(t.index({tensor({{0}, {2}}), tensor({1, 3, 4})}), "index/bcast");
  EXPECT_GOLDEN(t.index({Slice(1, None), tensor({0, 4})}), "index/slice_tensor");
  EXPECT_GOLDEN(t.index({tensor({3, 1}), Slice(1, 4)}), "index/tensor_slice");
  // int32 indices work like int64 ones.
  EXPECT_GOLDEN(t.index({tensor({0, 2, 3}, kInt32)}), "index/rows");
  // A 0-d integer tensor is a plain integer (a view, dim removed).
  EXPECT_EQ(t.index({tensor(2)}).sizes(), (Ints{5}));
}

TEST(AdvancedIndex, Placement) {
  const Tensor x = x120();
  EXPECT_GOLDEN(x.index({Slice(), tensor({0, 2}), Slice(), tensor({1, 3})}), "index/sep");
  EXPECT_GOLDEN(x.index({tensor({1, 0}), Slice(), tensor({3, 2})}), "index/sep_front");
  EXPECT_GOLDEN(x.index({Slice(), tensor({0, 2}), tensor({1, 3})}), "index/adjacent");
  EXPECT_GOLDEN(x.index({Ellipsis, tensor({0, 4})}), "index/ellipsis");
  EXPECT_GOLDEN(x.index({None, 1, tensor({0, 2})}), "index/none_int");
  EXPECT_GOLDEN(x.index({tensor({0, 1}), 1, tensor({2, 3})}), "index/int_between");
  EXPECT_GOLDEN(x.index({0, Slice(), tensor({1, 2}), Slice(1, 3)}), "index/int_slice");
  EXPECT_EQ(x.index({Slice(), tensor({0, 2}), Slice(), tensor({1, 3})}).sizes(), (Ints{2, 2, 4}));
  EXPECT_EQ(x.index({Slice(), tensor(1), Slice(), tensor({0, 1})}).sizes(), (Ints{2, 4, 2}));
}

TEST(AdvancedIndex, Masks) {
  const Tensor t = t20(), x = x120();
  const Tensor m23 = tensor({{true, false, true}, {false, true, true}});
  EXPECT_GOLDEN(x.index({m23}), "index/mask_lead");
  const Tensor m34 = arange(12).reshape({3, 4}) % 5 < 2;
  EXPECT_GOLDEN(x.index({Slice(), m34}), "index/mask_mid");
  int64_t count = 0;
  for (bool b : m34.tolist<bool>()) count += b;
  EXPECT_GOLDEN(x.index({1, m34, longs({0, 4, 2, 1, 3, 0}).narrow(0, 0, count)}),
                "index/mask_and_tensor");
  EXPECT_GOLDEN(t.index({tensor({1, 0, 0, 1}, kUInt8)}), "index/uint8");
  EXPECT_GOLDEN(t.index({t > 100}), "index/empty_mask");
  EXPECT_GOLDEN(t.index({true}), "index/true");
  EXPECT_GOLDEN(t.index({false}), "index/false");
  EXPECT_GOLDEN(t.index({true, tensor({0, 1})}), "index/true_tensor");
  EXPECT_GOLDEN(t.index({tensor(true)}), "index/true");
}

TEST(AdvancedIndex, NonContiguousAndEmpty) {
  const Tensor t = t20(), tt = t.t();
  EXPECT_GOLDEN(tt.index({tensor({1, 3})}), "index/noncontig_rows");
  EXPECT_GOLDEN(tt.index({tt > 5}), "index/noncontig_mask");
  EXPECT_GOLDEN(t.index({no_index()}), "index/empty");
  EXPECT_GOLDEN(t.index({Slice(), no_index()}), "index/empty_cols");
  // A float view with negative-step-free slicing on both sides of the index.
  const Tensor f = arange(30.0).reshape({5, 6}).index({Slice(None, None, 2), Slice(1, None)});
  EXPECT_EQ(f.index({Slice(), tensor({0, -1})}).tolist<float>(),
            (std::vector<float>{1, 5, 13, 17, 25, 29}));
}

TEST(AdvancedIndex, Errors) {
  const Tensor t = arange(12).reshape({4, 3});
  EXPECT_ERROR(t.index({Slice(), tensor({5})}),
               "[index] index 5 is out of bounds for dimension 0 with size 3");
  EXPECT_ERROR(t.index({tensor({0}), tensor({-4})}),
               "index -4 is out of bounds for dimension 1 with size 3");
  EXPECT_ERROR(t.index({7}), "[index] index 7 is out of bounds for dimension 0 with size 4");
  EXPECT_ERROR(t.index({tensor({true, false})}),
               "The shape of the mask [2] at index 0 does not "
               "match the shape of the indexed tensor [4, 3]");
  EXPECT_ERROR(t.index({tensor({1.0})}), "tensors used as indices must be long");
  EXPECT_ERROR(t.index({tensor({0, 1, 2}), tensor({0, 1})}),
               "shape mismatch: indexing tensors could not be broadcast together with shapes "
               "[3], [2]");
  EXPECT_ERROR(t.index({tensor({0}), tensor({0}), tensor({0})}), "too many indices");
}

// Random index expressions from gen_indexing.py: x[spec] and x[spec] = values on a (3, 4, 5, 2)
// tensor, and aten::index_put_ with accumulate (entries ':' or int64 tensors with repeats).
namespace {

std::vector<TensorIndex> spec_of(const nlohmann::json& spec) {
  std::vector<TensorIndex> out;
  auto bound = [](const nlohmann::json& v) -> SliceBound {
    return v.is_null() ? SliceBound(None) : SliceBound(v.get<int64_t>());
  };
  for (const auto& e : spec) {
    const std::string kind = e[0].get<std::string>();
    if (kind == "int")
      out.emplace_back(e[1].get<int64_t>());
    else if (kind == "slice")
      out.emplace_back(Slice(bound(e[1]), bound(e[2]), bound(e[3])));
    else if (kind == "none")
      out.emplace_back(None);
    else if (kind == "ellipsis")
      out.emplace_back(Ellipsis);
    else if (kind == "bool")
      out.emplace_back(e[1].get<bool>());
    else
      out.emplace_back(indexing_golden::load(e[1].get<std::string>()));
  }
  return out;
}

}  // namespace

TEST(AdvancedIndex, RandomExpressions) {
  const Tensor x = arange(120).reshape({3, 4, 5, 2});
  for (const auto& c : indexing_golden::data().at("fuzz")) {
    SCOPED_TRACE(c.at("spec").dump());
    const std::vector<TensorIndex> spec = spec_of(c.at("spec"));
    const Tensor got = x.index(spec);
    EXPECT_GOLDEN(got, c.at("get").get<std::string>());
    Tensor y = zeros_like(x);
    y.index_put_(spec, arange(1, got.numel() + 1).reshape(got.sizes()));
    EXPECT_GOLDEN(y, c.at("set").get<std::string>());
  }
  ASSERT_GE(indexing_golden::data().at("fuzz_acc").size(), 10u);
  for (const auto& c : indexing_golden::data().at("fuzz_acc")) {
    SCOPED_TRACE(c.at("spec").dump());
    const std::vector<TensorIndex> spec = spec_of(c.at("spec"));
    Tensor y = zeros_like(x);
    const DimVector shape(y.index(spec).sizes());
    y.index_put_(spec, arange(1, prod(shape) + 1).reshape(shape), true);
    EXPECT_GOLDEN(y, c.at("result").get<std::string>());
  }
}

// ── index_put_ ───────────────────────────────────────────────────────────────────────────────

TEST(IndexPut, Values) {
  Tensor a = zeros({4, 5});
  a.index_put_({tensor({0, 2})}, tensor({1.0, 2.0, 3.0, 4.0, 5.0}));
  EXPECT_GOLDEN(a, "put/rows");
  const Tensor t = t20();
  Tensor b = t.clone();
  b.index_put_({t > 10}, -1);
  EXPECT_GOLDEN(b, "put/mask_scalar");
  Tensor c = zeros({2, 3, 4});
  c.index_put_({tensor({0, 1}), Slice(), tensor({1, 2})}, arange(6.0).reshape({2, 3}));
  EXPECT_GOLDEN(c, "put/sep");
  Tensor d = zeros({5, 4});
  Tensor dt = d.t();
  dt.index_put_({tensor({1})}, 7);
  EXPECT_GOLDEN(d, "put/noncontig");
  Tensor e = zeros({3, 4}, {.dtype = kInt64});
  e.index_put_({tensor({2, 0}), Slice(1, 3)}, tensor({{1, 2}, {3, 4}}));
  EXPECT_GOLDEN(e, "put/tensor_slice");
  // Leading size-1 dims of the value are dropped (Python's x[i] = v).
  Tensor g = zeros({3, 2});
  g.index_put_({tensor({2})}, ones({1, 1, 2}));
  g.index_put_({0}, full({1, 2}, 5.0));
  EXPECT_EQ(g.tolist<float>(), (std::vector<float>{5, 5, 0, 0, 1, 1}));
  // Values convert to the destination dtype; empty indices write nothing.
  Tensor f = zeros({3});
  f.index_put_({tensor({1})}, tensor({2}));
  EXPECT_EQ(f.tolist<float>(), (std::vector<float>{0, 2, 0}));
  f.index_put_({no_index()}, tensor(5.0));
  EXPECT_EQ(f.tolist<float>(), (std::vector<float>{0, 2, 0}));
  // Writes bump the version counter shared by views.
  const uint32_t v = f._version();
  f.index_put_({tensor({0})}, tensor(1.0));
  EXPECT_GT(f._version(), v);
}

TEST(IndexPut, Accumulate) {
  Tensor a = zeros({5});
  a.index_put_({tensor({0, 1, 1, 3, 1})}, tensor({1.0, 2.0, 3.0, 4.0, 5.0}), true);
  EXPECT_GOLDEN(a, "put/acc_1d");
  Tensor b = zeros({3, 3});
  b.index_put_({tensor({0, 0, 2}), tensor({1, 1, 2})}, tensor({1.0, 2.0, 3.0}), true);
  EXPECT_GOLDEN(b, "put/acc_2d");
  Tensor c = ones({3, 4});
  c.index_put_({Slice(), tensor({1, 1, 3})}, arange(9.0).reshape({3, 3}), true);
  EXPECT_GOLDEN(c, "put/acc_cols");
  // Many repeats of few indices: the parallel path must still add every one.
  Tensor big = zeros({10});
  big.index_put_({arange(100000) % 10}, ones({100000}), true);
  EXPECT_GOLDEN(big, "put/acc_many");
  Tensor wide = zeros({4, 40000});
  wide.index_put_({tensor({1, 1, 3})}, ones({40000}), true);
  EXPECT_EQ(wide.index({1, 39999}).item<float>(), 2.0f);
  EXPECT_EQ(wide.index({3, 0}).item<float>(), 1.0f);
  EXPECT_EQ(wide.index({0, 5}).item<float>(), 0.0f);
  Tensor i = zeros({4}, {.dtype = kInt64});
  i.index_put_({tensor({3, 3, 0})}, tensor({5, 6, 7}), true);
  EXPECT_GOLDEN(i, "put/acc_int");
}

TEST(IndexPut, Errors) {
  Tensor a = zeros({4, 3});
  EXPECT_ERROR(a.index_put_({tensor({0, 1})}, ones({2})),
               "shape mismatch: value tensor of shape [2] cannot be broadcast to indexing result "
               "of shape [2, 3]");
  EXPECT_ERROR(a.index_put_({tensor({4})}, 1.0),
               "index 4 is out of bounds for dimension 0 with size 4");
}

// ── gather / scatter ─────────────────────────────────────────────────────────────────────────

TEST(Gather, Golden) {
  // The op table's samples (ops/op_table.h: gather's golden_named).
  const test::OpInfo* row = test::find_op("gather");
  ASSERT_TRUE(row && !row->golden_named.empty());
  for (const auto& [name, call] : row->golden_named) EXPECT_GOLDEN(call(), name);
  const Tensor src = t20();
  // A broadcast (stride 0) index works too.
  EXPECT_EQ(ints(gather(src, 1, tensor({{4}}).expand({4, 2}))), (Ints{4, 4, 9, 9, 14, 14, 19, 19}));
}

TEST(Gather, Errors) {
  const Tensor src = t20();
  EXPECT_ERROR(gather(src, 1, tensor({0, 1})),
               "Index tensor must have the same number of dimensions as input tensor");
  EXPECT_ERROR(gather(src, 1, tensor({{0, 1}}, kInt32)), "Expected dtype int64 for index");
  EXPECT_ERROR(gather(src, 1, tensor({{5}})),
               "index 5 is out of bounds for dimension 1 with size 5");
  EXPECT_ERROR(gather(src, 1, tensor({{-1}})), "index -1 is out of bounds");
  EXPECT_ERROR(gather(src, 1, zeros({5, 1}, {.dtype = kInt64})),
               "Size does not match at dimension 0");
  EXPECT_ERROR(gather(src, 2, tensor({{0}})), "dimension out of range");
}

TEST(Scatter, Golden) {
  const Tensor sidx = tensor({{0, 1, 2, 3}, {4, 3, 2, 1}, {1, 3, 0, 2}});
  EXPECT_GOLDEN(scatter(zeros({3, 5}), 1, sidx, arange(1.0, 13.0).reshape({3, 4})), "scatter/src");
  EXPECT_GOLDEN(zeros({3, 5}).scatter(1, tensor({{0}, {2}, {4}}), 9.5), "scatter/value");
  EXPECT_GOLDEN(
      zeros({3, 4}, {.dtype = kInt64}).scatter(0, tensor({{2, 0, 1, 2}}), tensor({{5, 6, 7, 8}})),
      "scatter/dim0");
  const Tensor didx = tensor({{0, 0, 1}, {4, 4, 4}, {2, 3, 2}});
  EXPECT_GOLDEN(scatter_add(ones({3, 5}), 1, didx, arange(1.0, 10.0).reshape({3, 3})),
                "scatter_add/dup");
  EXPECT_GOLDEN(zeros({2, 3}).scatter_add(0, tensor({{1, 1, 0}, {1, 0, 0}, {1, 1, 1}}),
                                          arange(1.0, 10.0).reshape({3, 3})),
                "scatter_add/dim0");
  EXPECT_GOLDEN(zeros({4}).scatter_add(0, arange(50000) % 4, ones({50000})), "scatter_add/long");
  // Lines run in parallel, each with repeated indices: every add must land.
  const Tensor rep = (arange(200000) % 4).reshape({1000, 200}).t();  // rep[i][j] = i % 4
  const std::vector<float> sums =
      zeros({4, 1000}).scatter_add_(0, rep, ones({200, 1000})).tolist<float>();
  EXPECT_TRUE(std::all_of(sums.begin(), sums.end(), [](float v) { return v == 50.0f; }));
  // In place on a non-contiguous self.
  Tensor base = zeros({5, 3});
  Tensor view = base.t();
  view.scatter_(1, tensor({{4}, {0}, {2}}), 1.0);
  EXPECT_EQ(base.tolist<float>(),
            (std::vector<float>{0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0}));
  EXPECT_ERROR(zeros({3, 5}).scatter(1, tensor({{0}}), ones({1, 1}, {.dtype = kInt64})),
               "Expected self.dtype to be equal to src.dtype");
  EXPECT_ERROR(zeros({2, 2}).scatter_(1, tensor({{2}}), 1.0),
               "index 2 is out of bounds for dimension 1 with size 2");
  EXPECT_ERROR(zeros({2, 2}).scatter_add_(0, tensor({0}), ones({1})),
               "Index tensor must have the same number of dimensions as self tensor");
}

TEST(Scatter, Reduce) {
  const Tensor self = tensor({{1.0, 2, 3, 4, 5}, {-1, -2, -3, -4, -5}, {10, 20, 30, 40, 50}});
  const Tensor idx = tensor({{0, 0, 1, 1, 4}, {2, 2, 2, 0, 0}, {4, 3, 4, 3, 4}});
  const Tensor src = tensor({{5.0, 1, 2, 8, 3}, {1, 7, 2, 4, 6}, {0.5, -1, 2, 9, -3}});
  for (const std::string red : {"sum", "prod", "mean", "amax", "amin"}) {
    for (bool inc : {true, false}) {
      EXPECT_GOLDEN(scatter_reduce(self, 1, idx, src, red, inc),
                    "scatter_reduce/" + red + "_" + std::to_string(int(inc)));
    }
  }
  EXPECT_GOLDEN(scatter_reduce(tensor({{1, 2, 3, 4}}), 1, tensor({{0, 0, 3, 3}}),
                               tensor({{4, 5, 8, 7}}), "mean"),
                "scatter_reduce/mean_int");
  EXPECT_GOLDEN(scatter_reduce(tensor({0.0, 0.0, 0.0}), 0, tensor({0, 0, 1}),
                               tensor({std::nan(""), 1.0, 2.0}), "amax"),
                "scatter_reduce/amax_nan");
  EXPECT_ERROR(scatter_reduce(self, 1, idx, src, "max"), "reduce argument must be either");
}

TEST(IndexAlongDim, Golden) {
  const Tensor src = t20();
  EXPECT_GOLDEN(index_select(src, 0, tensor({3, 0, 3})), "index_select/rows");
  EXPECT_GOLDEN(src.index_select(1, tensor({4, 1})), "index_select/cols");
  EXPECT_GOLDEN(src.index_select(-1, tensor({4, 1}, kInt32)), "index_select/cols");
  EXPECT_GOLDEN(src.t().index_select(1, tensor({2, 0})), "index_select/noncontig");
  EXPECT_GOLDEN(src.index_select(0, no_index()), "index_select/empty");
  EXPECT_GOLDEN(zeros({5, 3}).index_add_(0, tensor({0, 4, 2, 0}), arange(12.0).reshape({4, 3}), 2),
                "index_add/rows");
  EXPECT_GOLDEN(ones({2, 4}, {.dtype = kInt64})
                    .index_add_(1, tensor({3, 3, 0}), tensor({{1, 2, 3}, {4, 5, 6}})),
                "index_add/cols");
  EXPECT_GOLDEN(zeros({5, 3}).index_copy_(0, tensor({4, 0, 2}), arange(9.0).reshape({3, 3})),
                "index_copy/rows");
  EXPECT_GOLDEN(arange(12).reshape({3, 4}).index_fill_(1, tensor({0, -1}), -5), "index_fill/cols");
  // Functional forms leave the input alone; in-place forms on a non-contiguous self write through.
  const Tensor z = zeros({3});
  EXPECT_EQ(index_add(z, 0, tensor({1, 1}), ones({2})).tolist<float>(),
            (std::vector<float>{0, 2, 0}));
  EXPECT_EQ(z.tolist<float>(), (std::vector<float>{0, 0, 0}));
  Tensor base = zeros({3, 2});
  Tensor bt = base.t();
  bt.index_fill_(1, tensor({1}), 3.0);
  EXPECT_EQ(base.tolist<float>(), (std::vector<float>{0, 0, 3, 3, 0, 0}));
  // Many duplicates with the parallel column chunks.
  Tensor acc = zeros({2, 50000});
  acc.index_add_(0, tensor({1, 1, 1}), ones({3, 50000}));
  EXPECT_EQ(acc.index({1, 49999}).item<float>(), 3.0f);
  EXPECT_ERROR(src.index_select(0, tensor({4})),
               "index 4 is out of bounds for dimension 0 with size 4");
  EXPECT_ERROR(src.index_select(0, tensor({{0}})), "Index is supposed to be a vector");
  EXPECT_ERROR(zeros({3}).index_add_(0, tensor({0, 1}), ones({3})),
               "Number of indices (2) should be equal to source.size(dim) (3)");
  EXPECT_ERROR(zeros({3, 2}).index_copy_(0, tensor({0}), ones({1, 3})),
               "source tensor shape must match self tensor shape");
  EXPECT_ERROR(zeros({3}).index_fill_(0, tensor({-4}), 1), "index -4 is out of bounds");
}

TEST(Take, Golden) {
  const Tensor src = t20();
  EXPECT_GOLDEN(take(src, tensor({{0, -1}, {7, 19}})), "take/ref");
  EXPECT_GOLDEN(take(src.t().contiguous().t(), tensor({{0, -1}, {7, 19}})), "take/ref");
  EXPECT_ERROR(take(src, tensor({20})), "tried to access index 20 on a tensor of 20 elements");
  const Tensor tad = tensor({{10, 30, 20}, {60, 40, 50}});
  EXPECT_GOLDEN(take_along_dim(tad, tensor({{0}, {2}}), 1), "take_along_dim/dim1");
  EXPECT_GOLDEN(take_along_dim(tad, tensor({5, 0, 3})), "take_along_dim/flat");
  EXPECT_GOLDEN(take_along_dim(tad, tensor({{2, 1}}), 1), "take_along_dim/bcast");
  EXPECT_GOLDEN(take_along_dim(tad, tad.argsort(0), 0), "take_along_dim/argsort");
}

TEST(Masked, Golden) {
  const Tensor src = t20();
  EXPECT_GOLDEN(masked_select(src, src > 7), "masked_select/ref");
  EXPECT_GOLDEN(src.masked_select(tensor({true, false, false, true, true})), "masked_select/bcast");
  EXPECT_GOLDEN(src.t().masked_select(src.t() % 2 == 1), "masked_select/noncontig");
  Tensor big = arange(100000);
  EXPECT_EQ(masked_select(big, big % 1000 == 999).numel(), 100);
  EXPECT_EQ(masked_select(big, big % 1000 == 999).index({-1}).item<int64_t>(), 99999);
  Tensor a = zeros({3, 4});
  masked_scatter_(a, arange(12).reshape({3, 4}) % 3 == 1, arange(1.0, 13.0));
  EXPECT_GOLDEN(a, "masked_scatter/ref");
  EXPECT_GOLDEN(masked_scatter(zeros({2, 3}), tensor({true, false, true}), arange(1.0, 7.0)),
                "masked_scatter/bcast");
  EXPECT_ERROR(masked_scatter(zeros({2, 3}), ones({2, 3}, {.dtype = kBool}), arange(1.0, 3.0)),
               "Number of elements of source");
  EXPECT_ERROR(masked_select(src, src), "expected BoolTensor");
}

TEST(Nonzero, Golden) {
  EXPECT_GOLDEN(nonzero(tensor({{0, 1, 0}, {2, 0, 3}})), "nonzero/2d");
  EXPECT_GOLDEN(tensor({{0, 1, 0}, {2, 0, 3}}).nonzero(), "nonzero/2d");
  EXPECT_GOLDEN(nonzero(arange(24).reshape({2, 3, 4}) % 5 == 0), "nonzero/3d");
  EXPECT_GOLDEN(nonzero(tensor({0.0, std::nan(""), -0.0, 1.0})), "nonzero/nan");
  EXPECT_GOLDEN(nonzero(tensor(5)), "nonzero/scalar");
  EXPECT_GOLDEN(nonzero(zeros({2, 3})), "nonzero/empty");
  EXPECT_GOLDEN(argwhere(tensor({{1, 0}, {0, 1}})), "argwhere/ref");
  const auto cols = nonzero_tuple(tensor({{0, 1, 0}, {2, 0, 3}}));
  ASSERT_EQ(cols.size(), 2u);
  EXPECT_EQ(ints(cols[0]), (Ints{0, 1, 1}));
  EXPECT_EQ(ints(cols[1]), (Ints{1, 0, 2}));
  Tensor big = zeros({300, 300});
  big.index_put_({tensor({0, 150, 299}), tensor({5, 7, 299})}, 1.0);
  EXPECT_EQ(ints(nonzero(big)), (Ints{0, 5, 150, 7, 299, 299}));
}

// ── rearranging ──────────────────────────────────────────────────────────────────────────────

TEST(Rearrange, FlipRoll) {
  const Tensor c = arange(24).reshape({2, 3, 4});
  EXPECT_GOLDEN(flip(c, {0, 2}), "flip/02");
  EXPECT_GOLDEN(c.flip({-1}), "flip/last");
  EXPECT_GOLDEN(c.transpose(0, 2).flip({1}), "flip/noncontig");
  EXPECT_GOLDEN(fliplr(t20()), "fliplr");
  EXPECT_GOLDEN(flipud(t20()), "flipud");
  EXPECT_ERROR(c.flip({0, -3}), "dim 0 appears multiple times in the list of dims");
  const Tensor r = arange(10).reshape({2, 5});
  EXPECT_GOLDEN(r.roll({2}), "roll/flat");
  EXPECT_GOLDEN(r.roll({1}, {1}), "roll/dim1");
  EXPECT_GOLDEN(roll(r, {1, -2}, {0, 1}), "roll/two");
  EXPECT_GOLDEN(r.roll({7}, {1}), "roll/big");
  EXPECT_GOLDEN(r.t().roll({-1}, {0}), "roll/noncontig");
  EXPECT_ERROR(r.roll({1, 2}, {0}), "shifts and dimensions must align");
  EXPECT_EQ(flip(zeros({0, 3}), {0}).sizes(), (Ints{0, 3}));
}

TEST(Rearrange, Triangles) {
  const Tensor m = arange(1, 13).reshape({3, 4});
  for (int64_t k : {0, 1, -1, 5, -5}) {
    EXPECT_GOLDEN(m.tril(k), "tril/" + std::to_string(k));
    EXPECT_GOLDEN(triu(m, k), "triu/" + std::to_string(k));
  }
  EXPECT_GOLDEN(tril(arange(18.0).reshape({2, 3, 3})), "tril/batched");
  EXPECT_GOLDEN(m.t().triu(), "triu/noncontig");
  EXPECT_ERROR(tril(arange(3)), "at least 2 dimensions");
}

TEST(Rearrange, Diagonals) {
  for (int64_t k : {0, 1, -2})
    EXPECT_GOLDEN(diag(tensor({1, 2, 3}), k), "diag/1d_" + std::to_string(k));
  const Tensor m = arange(1, 13).reshape({3, 4});
  for (int64_t k : {0, 1, -1, 3}) EXPECT_GOLDEN(diag(m, k), "diag/2d_" + std::to_string(k));
  // diag of a matrix is a copy.
  Tensor d = diag(m);
  d.fill_(0);
  EXPECT_EQ(m.index({0, 0}).item<int64_t>(), 1);
  EXPECT_GOLDEN(diag_embed(arange(6).reshape({2, 3})), "diag_embed/default");
  EXPECT_GOLDEN(diag_embed(arange(6.0).reshape({2, 3}), 1), "diag_embed/offset");
  EXPECT_GOLDEN(diag_embed(arange(6).reshape({2, 3}), -1, 0, 2), "diag_embed/dims");
  EXPECT_GOLDEN(trace(m), "trace/int");
  EXPECT_GOLDEN(trace(arange(12.0).reshape({4, 3}) / 3), "trace/float");
  EXPECT_GOLDEN(trace(tensor({{100, 1}, {2, 100}}, kInt8)), "trace/int8");
  EXPECT_ERROR(diag(zeros({2, 2, 2})), "Supports 1D or 2D tensors");
  EXPECT_ERROR(trace(zeros({3})), "expected a matrix");
}

TEST(Rearrange, RepeatInterleave) {
  EXPECT_GOLDEN(repeat_interleave(tensor({1, 2, 3}), 2), "repeat_interleave/int");
  EXPECT_GOLDEN(repeat_interleave(tensor({{1, 2}, {3, 4}}), 2), "repeat_interleave/flat");
  EXPECT_GOLDEN(repeat_interleave(tensor({{1, 2}, {3, 4}}), tensor({1, 2}), 0),
                "repeat_interleave/tensor");
  EXPECT_GOLDEN(repeat_interleave(tensor({{1, 2}, {3, 4}}), 3, 1), "repeat_interleave/dim1");
  EXPECT_GOLDEN(repeat_interleave(tensor({2, 0, 1})), "repeat_interleave/repeats");
  EXPECT_ERROR(repeat_interleave(tensor({1, 2}), tensor({1, 2, 3}), 0),
               "repeats must have the same size as input along dim");
  EXPECT_ERROR(repeat_interleave(tensor({1, -2})), "repeats can not be negative");
}

TEST(Rearrange, MeshgridOneHot) {
  const Tensor a = tensor({1, 2, 3}), b = tensor({4, 5}), c = tensor({6, 7, 8, 9});
  for (const std::string ix : {"ij", "xy"}) {
    const auto g = meshgrid({a, b, c}, ix);
    ASSERT_EQ(g.size(), 3u);
    for (size_t i = 0; i < 3; ++i) EXPECT_GOLDEN(g[i], "meshgrid/" + ix + "_" + std::to_string(i));
  }
  EXPECT_ERROR(meshgrid({a, b}, "ji"), "indexing must be one of");
  EXPECT_ERROR(meshgrid({a, zeros({2, 2}, {.dtype = kInt64})}), "Expected 0D or 1D tensor");
  EXPECT_GOLDEN(one_hot(tensor({0, 2, 1, 3})), "one_hot/default");
  EXPECT_GOLDEN(one_hot(tensor({{0, 2}, {1, 1}}), 5), "one_hot/classes");
  EXPECT_ERROR(one_hot(tensor({0, 5}), 3), "Class values must be smaller than num_classes.");
  EXPECT_ERROR(one_hot(tensor({-1})), "Class values must be non-negative.");
  EXPECT_ERROR(one_hot(no_index()), "Can not infer total number of classes from empty tensor.");
  EXPECT_ERROR(one_hot(tensor({1.0})), "one_hot is only applicable to index tensor.");
}
