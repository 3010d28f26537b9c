// sort/argsort, topk, kthvalue, median/nanmedian, mode, searchsorted/bucketize and unique
// against PyTorch 1.13 (tests/golden/indexing.json from gen_indexing.py), including PyTorch's
// index choice among equal values, NaN ordering, non-contiguous inputs and error messages.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ops/indexing_golden.h"

using namespace ember;
using namespace ember::indexing;

namespace {

using Ints = std::vector<int64_t>;
const double kNan = std::nan("");

}  // namespace

TEST(Sort, Golden) {
  const Tensor rnd = indexing_golden::load("sort/rnd/in");
  EXPECT_GOLDEN_PAIR(rnd.sort(), "sort/rnd_last");
  EXPECT_GOLDEN_PAIR(sort(rnd, 0), "sort/rnd_dim0");
  EXPECT_GOLDEN_PAIR(rnd.sort(1, true), "sort/rnd_desc");
  EXPECT_GOLDEN_PAIR(rnd.t().sort(1), "sort/noncontig");
  EXPECT_GOLDEN(rnd.argsort(1), "argsort/ref");
  EXPECT_GOLDEN(argsort(rnd, -1), "argsort/ref");
  const Tensor ties = arange(100) % 7;
  EXPECT_GOLDEN_PAIR(ties.sort(), "sort/ties_asc");
  EXPECT_GOLDEN_PAIR(ties.sort(0, true), "sort/ties_desc");
  // torch.sort's default (stable=false) ties, and the stable Tensor method.
  EXPECT_GOLDEN_PAIR(sort(ties), "sort/ties_default");
  EXPECT_GOLDEN_PAIR(sort(ties, 0, true), "sort/ties_default_desc");
  EXPECT_GOLDEN(argsort(ties), "argsort/ties_default");
  const Tensor many = (arange(5000) * 37 % 13).to(kFloat32).reshape({50, 100});
  EXPECT_GOLDEN_PAIR(sort(many, 0), "sort/many_default_dim0");
  EXPECT_GOLDEN_PAIR(sort(many, 1, true), "sort/many_default_desc");
  EXPECT_GOLDEN_PAIR(sort(ties, -1, false, true), "sort/ties_asc");
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor fn = tensor({3.0, kNan, 1.0, kNan, 2.0, -inf});
  EXPECT_GOLDEN_PAIR(fn.sort(), "sort/nan_asc");
  EXPECT_GOLDEN_PAIR(fn.sort(-1, true), "sort/nan_desc");
  EXPECT_GOLDEN_PAIR(tensor({true, false, true, false}).sort(), "sort/bool");
  EXPECT_GOLDEN_PAIR(tensor({{3, 1, 2}, {9, 9, 0}}, kInt32).sort(-1, true), "sort/int_desc");
}

TEST(Sort, EdgeCases) {
  auto [v, i] = tensor(5.0).sort();
  EXPECT_EQ(v.dim(), 0);
  EXPECT_EQ(i.item<int64_t>(), 0);
  auto [ev, ei] = zeros({0, 3}).sort(0);
  EXPECT_EQ(ev.sizes(), (Ints{0, 3}));
  EXPECT_EQ(ei.dtype(), kInt64);
  // Half values come back bit for bit, and a long row sorts in parallel-safe chunks.
  const Tensor h = tensor({0.5, -2.0, 1.5}, kFloat16);
  EXPECT_EQ(std::get<0>(h.sort()).tolist<float>(), (std::vector<float>{-2.0f, 0.5f, 1.5f}));
  const Tensor many = (arange(200000) * 7919 % 200000).reshape({400, 500});
  auto [sv, si] = many.sort(1);
  EXPECT_EQ(sv.index({0, 0}).item<int64_t>(),
            std::get<0>(many.index({0}).sort()).index({0}).item<int64_t>());
  EXPECT_TRUE(sv.equal(gather(many, 1, si)));
  EXPECT_ERROR(zeros({2}).sort(1), "dimension out of range");
}

TEST(TopK, Golden) {
  const Tensor tk = tensor({1.0, 3, 3, 2, 3, 1});
  EXPECT_GOLDEN_PAIR(tk.topk(3), "topk/largest");
  EXPECT_GOLDEN_PAIR(topk(tk, 3, -1, false), "topk/smallest");
  const Tensor tk2 = (arange(40) * 7 % 5).reshape({4, 10}).to(kFloat32);
  EXPECT_GOLDEN_PAIR(tk2.topk(4), "topk/rows");
  EXPECT_GOLDEN_PAIR(tk2.topk(4, -1, false), "topk/rows_smallest");
  EXPECT_GOLDEN_PAIR(tk2.topk(6, -1, true, false), "topk/unsorted");
  EXPECT_GOLDEN_PAIR(tk2.topk(2, 0), "topk/dim0");
  EXPECT_GOLDEN_PAIR(tk2.t().contiguous().t().topk(2, 0), "topk/dim0");
  const Tensor tk3 = (arange(200) * 37 % 11).to(kFloat32);
  EXPECT_GOLDEN_PAIR(tk3.topk(3), "topk/partial");
  EXPECT_GOLDEN_PAIR(tk3.topk(2, -1, false), "topk/partial_smallest");
  EXPECT_GOLDEN_PAIR(tk3.topk(50), "topk/nth");
  EXPECT_GOLDEN_PAIR(tensor({1.0, kNan, 3.0, 2.0}).topk(2), "topk/nan");
  EXPECT_GOLDEN_PAIR((arange(30) * 7 % 4).topk(5), "topk/int");
  auto [v, i] = tk.topk(0);
  EXPECT_EQ(v.sizes(), (Ints{0}));
  EXPECT_EQ(i.dtype(), kInt64);
  EXPECT_ERROR(tk.topk(7), "selected index k out of range");
}

TEST(KthValue, Golden) {
  const Tensor kv = tensor({{3.0, 1, 2, 1, 3, 2, 1}, {5, 5, 5, 4, 4, 6, 0}});
  for (int64_t k : {1, 2, 4, 7})
    EXPECT_GOLDEN_PAIR(kthvalue(kv, k), "kthvalue/k" + std::to_string(k));
  EXPECT_GOLDEN_PAIR(kthvalue(kv.narrow(1, 0, 3), 1, 0, true), "kthvalue/dim0_keep");
  const Tensor kv2 = (arange(60) * 13 % 9).reshape({2, 30}).to(kFloat32);
  EXPECT_GOLDEN_PAIR(kthvalue(kv2, 11), "kthvalue/long");
  EXPECT_GOLDEN_PAIR(kthvalue(tensor({2.0, kNan, 1.0, 3.0}), 4), "kthvalue/nan");
  EXPECT_ERROR(kthvalue(kv, 8), "selected number k out of range");
  EXPECT_ERROR(kthvalue(kv, 0), "selected number k out of range");
}

TEST(Median, Golden) {
  EXPECT_GOLDEN(median(tensor({3.0, 1.0, 2.0})), "median/odd");
  EXPECT_GOLDEN(median(tensor({4, 1, 3, 2})), "median/even");
  EXPECT_GOLDEN(median(tensor({1.0, kNan, 3.0})), "median/nan");
  EXPECT_GOLDEN(nanmedian(tensor({1.0, kNan, 3.0, 2.0})), "nanmedian/all");
  const Tensor kv = tensor({{3.0, 1, 2, 1, 3, 2, 1}, {5, 5, 5, 4, 4, 6, 0}});
  EXPECT_GOLDEN_PAIR(median(kv, 1), "median/dim");
  const Tensor kv2 = (arange(60) * 13 % 9).reshape({6, 10}).to(kFloat32);
  EXPECT_GOLDEN_PAIR(median(kv2, 0, true), "median/dim0");
  EXPECT_GOLDEN_PAIR(median(tensor({{1.0, kNan, 2.0, kNan}, {4.0, 3.0, 2.0, 1.0}}), 1),
                     "median/dim_nan");
  EXPECT_GOLDEN_PAIR(nanmedian(tensor({{1.0, kNan, 2.0, 5.0}, {kNan, kNan, kNan, kNan}}), 1),
                     "nanmedian/dim");
}

TEST(Mode, Golden) {
  EXPECT_GOLDEN_PAIR(mode(tensor({{1, 2, 2, 3, 3}, {4, 4, 1, 1, 0}})), "mode/small");
  const Tensor md = (arange(90) * 7 % 6).reshape({3, 30});
  EXPECT_GOLDEN_PAIR(mode(md), "mode/long");
  EXPECT_GOLDEN_PAIR(mode(md.t().narrow(0, 0, 12), 0), "mode/dim0");
  EXPECT_GOLDEN_PAIR(mode(tensor({0.5, 1.5, 0.5, 2.5, 1.5, 1.5})), "mode/float");
  auto [v, i] = mode(tensor({{7, 7}}), 1, true);
  EXPECT_EQ(v.sizes(), (Ints{1, 1}));
}

TEST(Searchsorted, Golden) {
  const Tensor ss = tensor({1, 3, 5, 7, 9});
  const Tensor sv = tensor({{3, 6, 9}, {3, 6, 9}});
  EXPECT_GOLDEN(searchsorted(ss, sv), "searchsorted/left");
  EXPECT_GOLDEN(searchsorted(ss, sv, {.right = true}), "searchsorted/right");
  EXPECT_GOLDEN(searchsorted(ss, sv, {.side = "right"}), "searchsorted/side");
  EXPECT_GOLDEN(searchsorted(tensor({{1, 3, 5, 7, 9}, {2, 4, 6, 8, 10}}), sv),
                "searchsorted/batched");
  EXPECT_GOLDEN(searchsorted(tensor({1.0, 2.0, kNan}), tensor({0.5, 2.0, kNan, 5.0})),
                "searchsorted/float_nan");
  EXPECT_GOLDEN(searchsorted(ss, 4), "searchsorted/scalar");
  EXPECT_GOLDEN(searchsorted(ss, sv, {.out_int32 = true}), "searchsorted/int32");
  EXPECT_GOLDEN(searchsorted(ss, tensor({2.5, 9.0, 10.5})), "searchsorted/mixed");
  EXPECT_GOLDEN(searchsorted(tensor({5, 1, 9, 3, 7}), sv, {.sorter = tensor({1, 3, 0, 4, 2})}),
                "searchsorted/sorter");
  EXPECT_GOLDEN(searchsorted(ss, sv.t()).t(), "searchsorted/left");
  EXPECT_GOLDEN(bucketize(sv, ss), "bucketize/left");
  EXPECT_GOLDEN(bucketize(sv, ss, false, true), "bucketize/right");
  EXPECT_ERROR(searchsorted(ss, sv, {.right = true, .side = "left"}),
               "side and right can't be set to opposites");
  EXPECT_ERROR(searchsorted(zeros({2, 3}), zeros({3, 3})),
               "boundaries tensor should be 1 dimension or the first N-1 dimensions");
  EXPECT_ERROR(bucketize(sv, zeros({2, 2})), "boundaries tensor must be 1 dimension");
}

TEST(Unique, Golden) {
  auto [u, inv, cnt] =
      unique(tensor({1, 3, 2, 3, 1, 5}), {.return_inverse = true, .return_counts = true});
  EXPECT_GOLDEN(u, "unique/values");
  EXPECT_GOLDEN(inv, "unique/inverse");
  EXPECT_GOLDEN(cnt, "unique/counts");
  const UniqueResult r2 = unique(tensor({{2.0, 1.0}, {2.0, -1.0}}), {.return_inverse = true});
  EXPECT_GOLDEN(r2.output, "unique/2d_values");
  EXPECT_GOLDEN(r2.inverse_indices, "unique/2d_inverse");
  EXPECT_FALSE(r2.counts.defined());
  const Tensor ud = tensor({{1, 2}, {0, 5}, {1, 2}, {0, 4}});
  auto [du, dinv, dcnt] = unique(ud, {.return_inverse = true, .return_counts = true, .dim = 0});
  EXPECT_GOLDEN(du, "unique/dim0_values");
  EXPECT_GOLDEN(dinv, "unique/dim0_inverse");
  EXPECT_GOLDEN(dcnt, "unique/dim0_counts");
  EXPECT_GOLDEN(unique(ud.t(), {.dim = 1}).output, "unique/dim1_values");
  EXPECT_EQ(unique(zeros({0})).output.numel(), 0);
}

// sort, topk and the selections compare every dtype as one of three key types (int64, float, double), converting
// the narrower ones; with many ties, every dtype must make int64's choices among equal values.
TEST(Sort, EveryDtypeBreaksTiesAsInt64) {
  const Tensor x = remainder(arange(0, 600) * 7, 13).view({3, 200});  // values 0..12, ties
  for (bool stable : {false, true})
    for (bool descending : {false, true}) {
      const auto [v, i] = sort(x, 1, descending, stable);
      for (Dtype d : {kUInt8, kInt8, kInt16, kInt32, kFloat16, kBFloat16, kFloat32, kFloat64}) {
        SCOPED_TRACE(d);
        const auto [dv, di] = sort(x.to(d), 1, descending, stable);
        EXPECT_TRUE(dv.equal(v.to(d)));
        EXPECT_TRUE(di.equal(i));
      }
    }
  using Pick = std::function<std::tuple<Tensor, Tensor>(const Tensor&)>;
  const std::vector<std::pair<const char*, Pick>> picks = {
      {"topk 3", [](const Tensor& t) { return topk(t, 3, 1); }},  // partial_sort
      {"topk 150", [](const Tensor& t) { return topk(t, 150, 1); }},  // nth_element + sort
      {"kthvalue", [](const Tensor& t) { return kthvalue(t, 77, 1); }},
      {"median", [](const Tensor& t) { return median(t, 1); }},
      {"mode", [](const Tensor& t) { return mode(t, 1); }},
  };
  for (const auto& [name, pick] : picks) {
    const auto [v, i] = pick(x);
    for (Dtype d : {kUInt8, kInt8, kInt16, kInt32, kFloat16, kBFloat16, kFloat32, kFloat64}) {
      SCOPED_TRACE(std::string(name) + " " + std::string(dtype_name(d)));
      const auto [dv, di] = pick(x.to(d));
      EXPECT_TRUE(dv.equal(v.to(d)));
      EXPECT_TRUE(di.equal(i));
    }
  }
  EXPECT_TRUE(median(x.to(kInt16)).equal(median(x).to(kInt16)));
  EXPECT_TRUE(median(x.to(kBFloat16)).equal(median(x).to(kBFloat16)));
}

// The kernel sorts every dtype as one of three key types (int64, float, double), converting the
// narrower ones; each dtype must find the same groups as int64 does.
TEST(Unique, EveryDtypeGroupsAsInt64) {
  const Tensor flat = tensor({3, 1, 4, 1, 5, 0, 4, 3});
  const Tensor rows = tensor({{1, 2}, {0, 5}, {1, 2}, {0, 4}, {0, 5}});
  auto [u, inv, cnt] = unique(flat, {.return_inverse = true, .return_counts = true});
  auto [ru, rinv, rcnt] = unique(rows, {.return_inverse = true, .return_counts = true, .dim = 0});
  for (Dtype d : {kUInt8, kInt8, kInt16, kInt32, kFloat16, kBFloat16, kFloat32, kFloat64}) {
    SCOPED_TRACE(d);
    auto [du, dinv, dcnt] = unique(flat.to(d), {.return_inverse = true, .return_counts = true});
    EXPECT_TRUE(du.equal(u.to(d)));
    EXPECT_TRUE(dinv.equal(inv));
    EXPECT_TRUE(dcnt.equal(cnt));
    auto [dru, drinv, drcnt] =
        unique(rows.to(d), {.return_inverse = true, .return_counts = true, .dim = 0});
    EXPECT_TRUE(dru.equal(ru.to(d)));
    EXPECT_TRUE(drinv.equal(rinv));
    EXPECT_TRUE(drcnt.equal(rcnt));
  }
}
