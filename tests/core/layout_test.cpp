// The tensor sections of the reference ("From First Tensor ..." up to "Matrix operations"), one
// assertion per statement: sizes, strides, storage offsets, shared storage, views vs copies,
// indexing, conversions, copies, the version counter and the handle semantics. Expected values
// are PyTorch 1.13's (checked with /usr/bin/python3 -c "import torch; ...").
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

using namespace ember;
using namespace ember::indexing;

namespace {

using Ints = std::vector<int64_t>;

Ints vec(IntArrayRef a) { return a.vec(); }
Ints ints(const Tensor& t) { return t.tolist<int64_t>(); }
std::vector<float> floats(const Tensor& t) { return t.tolist<float>(); }

// element[i, j] read straight from the storage: storage[offset + i*stride0 + j*stride1].
int64_t storage_at(const Tensor& t, int64_t i, int64_t j) {
  const auto* base = static_cast<const int64_t*>(t.storage()->data());
  return base[t.storage_offset() + i * t.stride(0) + j * t.stride(1)];
}

std::vector<int64_t> raw_storage(const Tensor& t) {
  const auto* base = static_cast<const int64_t*>(t.storage()->data());
  return {base, base + t.storage()->nbytes() / sizeof(int64_t)};
}

}  // namespace

// ── t = torch.tensor([[1, 2, 3], [4, 5, 6]]) ─────────────────────────────────────────────────

TEST(Layout, ReferenceTensorShapeStridesOffsetDtype) {
  Tensor t = tensor({{1, 2, 3}, {4, 5, 6}});
  EXPECT_EQ(vec(t.sizes()), (Ints{2, 3}));
  EXPECT_EQ(vec(t.shape()), (Ints{2, 3}));
  EXPECT_TRUE(t.sizes() == std::vector<int64_t>({2, 3}));
  EXPECT_EQ(vec(t.strides()), (Ints{3, 1}));
  EXPECT_EQ(t.storage_offset(), 0);
  EXPECT_EQ(t.dtype(), kInt64);
  EXPECT_EQ(t.dim(), 2);
  EXPECT_EQ(t.numel(), 6);
  EXPECT_EQ(t.size(0), 2);
  EXPECT_EQ(t.size(-1), 3);
  EXPECT_EQ(t.stride(0), 3);
  EXPECT_EQ(t.stride(-1), 1);
  EXPECT_TRUE(t.is_contiguous());
  EXPECT_TRUE(t.is_cpu());
  EXPECT_EQ(t.element_size(), 8);
  EXPECT_EQ(t.nbytes(), 48);
  std::ostringstream os;
  os << t.sizes();
  EXPECT_EQ(os.str(), "[2, 3]");
  // What's actually in memory: one flat array.
  EXPECT_EQ(raw_storage(t), (Ints{1, 2, 3, 4, 5, 6}));
}

TEST(Layout, ElementAddressFormula) {
  Tensor t = tensor({{1, 2, 3}, {4, 5, 6}});
  // t[1, 2] = storage[0 + 1*3 + 2*1] = storage[5] = 6
  const int64_t* p = t.data_ptr<int64_t>();
  EXPECT_EQ(p[t.storage_offset() + 1 * t.stride(0) + 2 * t.stride(1)], 6);
  EXPECT_EQ(p[5], 6);
  EXPECT_EQ(t.index({1, 2}).item<int64_t>(), 6);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) EXPECT_EQ(t.index({i, j}).item<int64_t>(), storage_at(t, i, j));
}

TEST(Layout, SizeOfZeroDimTensorThrows) {
  Tensor s = tensor(5);
  EXPECT_ERROR(s.size(0), "dimension specified as 0 but tensor has no dimensions");
  EXPECT_ERROR(s.stride(-1), "dimension specified as -1 but tensor has no dimensions");
  EXPECT_ERROR(tensor({1, 2}).size(2),
               "dimension out of range (expected to be in range of [-1, 0]");
}

// An undefined tensor (Tensor()) is an error naming the call, never a null dereference.
TEST(Layout, UndefinedTensorIsAnError) {
  const Tensor u;
  EXPECT_FALSE(u.defined());
  EXPECT_ERROR(u.dtype(), "[dtype] called on an undefined tensor");
  EXPECT_ERROR(u.sizes(), "[sizes] called on an undefined tensor");
  EXPECT_ERROR(u.numel(), "[numel] called on an undefined tensor");
  EXPECT_ERROR(u.data_ptr(), "[data_ptr] called on an undefined tensor");
  EXPECT_ERROR(u.to(kFloat64), "called on an undefined tensor");
  EXPECT_ERROR(u + 1, "[add] expected a defined tensor");
}

// ── t = torch.arange(12); a = t.view(3, 4); b = t.view(2, 2, 3) ─────────────────────────────

TEST(Layout, ViewsShareStorage) {
  Tensor s = arange(12);
  EXPECT_EQ(vec(s.sizes()), (Ints{12}));
  EXPECT_EQ(vec(s.strides()), (Ints{1}));
  Tensor a = s.view({3, 4}), b = s.view({2, 2, 3});
  EXPECT_EQ(a.storage().get(), s.storage().get());
  EXPECT_EQ(b.storage().get(), s.storage().get());
  EXPECT_EQ(vec(a.sizes()), (Ints{3, 4}));
  EXPECT_EQ(vec(a.strides()), (Ints{4, 1}));
  EXPECT_EQ(vec(b.sizes()), (Ints{2, 2, 3}));
  EXPECT_EQ(vec(b.strides()), (Ints{6, 3, 1}));
  EXPECT_EQ(a.data_ptr(), s.data_ptr());
  // t[0] = 99; print(a[0, 0]) -> 99: same memory.
  s.index_put_({0}, 99);
  EXPECT_EQ(a.index({0, 0}).item<int64_t>(), 99);
  EXPECT_EQ(b.index({0, 0, 0}).item<int64_t>(), 99);
  // ... and the other way round.
  b.index_put_({1, 1, 2}, -7);
  EXPECT_EQ(s.index({11}).item<int64_t>(), -7);
  EXPECT_EQ(a.index({2, 3}).item<int64_t>(), -7);
}

// ── t2 = t.T ────────────────────────────────────────────────────────────────────────────────

TEST(Layout, TransposeIsAStridedView) {
  Tensor t = tensor({{1, 2, 3}, {4, 5, 6}});
  Tensor t2 = t.T();
  EXPECT_EQ(vec(t2.sizes()), (Ints{3, 2}));
  EXPECT_EQ(vec(t2.strides()), (Ints{1, 3}));
  EXPECT_FALSE(t2.is_contiguous());
  EXPECT_EQ(t2.storage().get(), t.storage().get());
  EXPECT_EQ(raw_storage(t2), (Ints{1, 2, 3, 4, 5, 6}));
  // t2[i, j] = storage[i*1 + j*3]: 1 4 / 2 5 / 3 6, memory access pattern 0, 3, 1, 4, 2, 5.
  const Ints expected[3] = {{1, 4}, {2, 5}, {3, 6}};
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 2; ++j) {
      EXPECT_EQ(storage_at(t2, i, j), expected[i][size_t(j)]);
      EXPECT_EQ(t2.index({i, j}).item<int64_t>(), expected[i][size_t(j)]);
    }
  EXPECT_EQ(ints(t2), (Ints{1, 4, 2, 5, 3, 6}));
  EXPECT_TRUE(t2.t().is_contiguous());
  EXPECT_EQ(vec(t.t().strides()), (Ints{1, 3}));
  EXPECT_EQ(vec(t.transpose(0, 1).strides()), (Ints{1, 3}));
  EXPECT_EQ(vec(t.permute({1, 0}).strides()), (Ints{1, 3}));
}

TEST(Layout, ContiguousCopiesIntoANewStorage) {
  Tensor t = tensor({{1, 2, 3}, {4, 5, 6}});
  Tensor c = t.T().contiguous();
  EXPECT_NE(c.storage().get(), t.storage().get());
  EXPECT_EQ(raw_storage(c), (Ints{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(vec(c.sizes()), (Ints{3, 2}));
  EXPECT_EQ(vec(c.strides()), (Ints{2, 1}));
  EXPECT_TRUE(c.is_contiguous());
  // Already contiguous: no copy.
  EXPECT_TRUE(t.contiguous().is_same(t));
  // reshape(-1) always works, copying only when it must.
  Tensor flat = t.T().reshape({-1});
  EXPECT_EQ(ints(flat), (Ints{1, 4, 2, 5, 3, 6}));
  EXPECT_NE(flat.storage().get(), t.storage().get());
  EXPECT_EQ(t.reshape({-1}).storage().get(), t.storage().get());
}

// ── Reshape / Transpose / Permute / Squeeze / Unsqueeze / Flatten (randn replaced by arange) ──

TEST(Layout, Reshape) {
  Tensor t = arange(24, {.dtype = kFloat32}).view({2, 3, 4});
  Tensor v = t.view({6, 4});
  EXPECT_EQ(vec(v.sizes()), (Ints{6, 4}));
  EXPECT_EQ(vec(v.strides()), (Ints{4, 1}));
  EXPECT_EQ(v.storage().get(), t.storage().get());
  Tensor r = t.reshape({6, 4});
  EXPECT_EQ(vec(r.sizes()), (Ints{6, 4}));
  EXPECT_EQ(r.storage().get(), t.storage().get());  // viewable, so reshape is a view too
  EXPECT_EQ(vec(t.view({-1}).sizes()), (Ints{24}));
  EXPECT_EQ(vec(t.view({2, -1}).sizes()), (Ints{2, 12}));
  EXPECT_EQ(vec(t.view({2, -1}).strides()), (Ints{12, 1}));
  EXPECT_EQ(vec(t.reshape({-1, 4}).sizes()), (Ints{6, 4}));
  EXPECT_EQ(floats(t.view({-1})), floats(t));
  EXPECT_EQ(t.view({-1}).index({13}).item<float>(), 13.0f);
}

TEST(Layout, TransposePermute) {
  Tensor m = zeros({3, 4});
  EXPECT_EQ(vec(m.T().sizes()), (Ints{4, 3}));
  EXPECT_EQ(vec(m.t().sizes()), (Ints{4, 3}));
  EXPECT_EQ(vec(m.T().strides()), vec(m.t().strides()));
  Tensor t = arange(24).view({2, 3, 4});
  Tensor p = t.permute({2, 0, 1});
  EXPECT_EQ(vec(p.sizes()), (Ints{4, 2, 3}));
  EXPECT_EQ(vec(p.strides()), (Ints{1, 12, 4}));
  EXPECT_EQ(p.storage().get(), t.storage().get());
  EXPECT_EQ(p.index({3, 1, 2}).item<int64_t>(), t.index({1, 2, 3}).item<int64_t>());
  EXPECT_EQ(vec(t.permute({-1, 0, 1}).sizes()), (Ints{4, 2, 3}));
  // .T on a 3-D tensor reverses all dims (as PyTorch 1.13, which only warns).
  EXPECT_EQ(vec(t.T().sizes()), (Ints{4, 3, 2}));
  EXPECT_EQ(vec(t.T().strides()), (Ints{1, 4, 12}));
}

TEST(Layout, SqueezeUnsqueeze) {
  Tensor x = zeros({1, 3, 1, 4});
  EXPECT_EQ(vec(x.squeeze().sizes()), (Ints{3, 4}));
  EXPECT_EQ(vec(x.squeeze(0).sizes()), (Ints{3, 1, 4}));
  EXPECT_EQ(vec(x.squeeze(2).sizes()), (Ints{1, 3, 4}));
  EXPECT_EQ(vec(x.squeeze(1).sizes()), (Ints{1, 3, 1, 4}));  // not size 1: unchanged
  EXPECT_EQ(vec(x.squeeze(-2).sizes()), (Ints{1, 3, 4}));
  EXPECT_EQ(vec(x.squeeze({0, 2}).sizes()), (Ints{3, 4}));
  EXPECT_EQ(x.squeeze().storage().get(), x.storage().get());
  EXPECT_EQ(vec(x.squeeze().strides()), (Ints{4, 1}));

  Tensor y = arange(12).view({3, 4});
  EXPECT_EQ(vec(y.unsqueeze(0).sizes()), (Ints{1, 3, 4}));
  EXPECT_EQ(vec(y.unsqueeze(0).strides()), (Ints{12, 4, 1}));
  EXPECT_EQ(vec(y.unsqueeze(-1).sizes()), (Ints{3, 4, 1}));
  EXPECT_EQ(vec(y.unsqueeze(-1).strides()), (Ints{4, 1, 1}));
  EXPECT_EQ(vec(y.unsqueeze(1).strides()), (Ints{4, 4, 1}));
  // y[None, :] is unsqueeze(0); y[:, :, None] is unsqueeze(-1).
  Tensor a = y.index({None, Slice()});
  EXPECT_EQ(vec(a.sizes()), vec(y.unsqueeze(0).sizes()));
  EXPECT_EQ(vec(a.strides()), vec(y.unsqueeze(0).strides()));
  EXPECT_EQ(a.storage().get(), y.storage().get());
  Tensor b = y.index({Slice(), Slice(), None});
  EXPECT_EQ(vec(b.sizes()), vec(y.unsqueeze(-1).sizes()));
  EXPECT_EQ(vec(b.strides()), vec(y.unsqueeze(-1).strides()));
  EXPECT_EQ(ints(b), ints(y));
}

TEST(Layout, Flatten) {
  Tensor t = arange(24).view({2, 3, 4});
  EXPECT_EQ(vec(t.flatten().sizes()), (Ints{24}));
  EXPECT_EQ(t.flatten().storage().get(), t.storage().get());
  EXPECT_EQ(vec(t.flatten(1).sizes()), (Ints{2, 12}));
  EXPECT_EQ(vec(t.flatten(0, 1).sizes()), (Ints{6, 4}));
  EXPECT_EQ(vec(t.flatten(-2).sizes()), (Ints{2, 12}));
  EXPECT_EQ(vec(tensor(7).flatten().sizes()), (Ints{1}));
  // Flattening a transposed tensor must copy (it is not viewable).
  Tensor f = t.transpose(1, 2).flatten(1);
  EXPECT_EQ(vec(f.sizes()), (Ints{2, 12}));
  EXPECT_NE(f.storage().get(), t.storage().get());
  EXPECT_EQ(f.index({0, 1}).item<int64_t>(), 4);
}

// ── Concat / Stack ───────────────────────────────────────────────────────────────────────────

TEST(Layout, CatAndStack) {
  Tensor a = arange(12).view({3, 4}), b = arange(12, 24).view({3, 4});
  Tensor c0 = cat({a, b}, 0);
  EXPECT_EQ(vec(c0.sizes()), (Ints{6, 4}));
  EXPECT_EQ(ints(c0), ints(arange(24)));
  Tensor c1 = cat({a, b}, 1);
  EXPECT_EQ(vec(c1.sizes()), (Ints{3, 8}));
  EXPECT_EQ(ints(c1.index({1})), (Ints{4, 5, 6, 7, 16, 17, 18, 19}));
  EXPECT_EQ(vec(cat({a, b}, -1).sizes()), (Ints{3, 8}));
  Tensor s = stack({a, b}, 0);
  EXPECT_EQ(vec(s.sizes()), (Ints{2, 3, 4}));
  EXPECT_EQ(ints(s), ints(arange(24)));
  Tensor s1 = stack({a, b}, 1);
  EXPECT_EQ(vec(s1.sizes()), (Ints{3, 2, 4}));
  EXPECT_EQ(ints(s1.index({0})), (Ints{0, 1, 2, 3, 12, 13, 14, 15}));
  EXPECT_EQ(vec(stack({a, b}, -1).sizes()), (Ints{3, 4, 2}));
  // cat copies: the result does not alias its inputs.
  EXPECT_NE(c0.storage().get(), a.storage().get());
  // Mixed dtypes promote (torch.cat type promotion).
  EXPECT_EQ(cat({a, zeros({1, 4})}, 0).dtype(), kFloat32);
}

// ── Expand / Repeat: t = (1, 3) ──────────────────────────────────────────────────────────────

TEST(Layout, ExpandIsAViewWithZeroStride) {
  Tensor u = tensor({{1, 2, 3}});
  Tensor e = u.expand({4, 3});
  EXPECT_EQ(vec(e.sizes()), (Ints{4, 3}));
  EXPECT_EQ(vec(e.strides()), (Ints{0, 1}));
  EXPECT_EQ(e.storage().get(), u.storage().get());
  EXPECT_EQ(e.data_ptr(), u.data_ptr());
  EXPECT_EQ(ints(e), (Ints{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}));
  Tensor k = u.expand({4, -1});  // -1 keeps the size
  EXPECT_EQ(vec(k.sizes()), (Ints{4, 3}));
  EXPECT_EQ(vec(k.strides()), (Ints{0, 1}));
  // New leading dims.
  Tensor l = tensor({1, 2, 3}).expand({2, 4, 3});
  EXPECT_EQ(vec(l.strides()), (Ints{0, 0, 1}));
  // PyTorch gives a new leading dim of size 1 the stride of a contiguous layout, not 0.
  EXPECT_EQ(vec(zeros({3}).expand({1, 3}).strides()), (Ints{3, 1}));
  EXPECT_EQ(vec(zeros({3}).expand({2, 1, 3}).strides()), (Ints{0, 3, 1}));
  EXPECT_EQ(vec(zeros({3}).expand({1, 1, 3}).strides()), (Ints{3, 3, 1}));
  EXPECT_EQ(vec(tensor(5.0).expand({1}).strides()), (Ints{0}));
  EXPECT_EQ(vec(tensor(5.0).expand({1, 1}).strides()), (Ints{0, 0}));
  // Writing through the base is seen by every expanded row.
  u.index_put_({0, 1}, 20);
  EXPECT_EQ(e.index({3, 1}).item<int64_t>(), 20);
}

TEST(Layout, RepeatCopiesAndTiles) {
  Tensor u = tensor({{1, 2, 3}});
  Tensor r = u.repeat({4, 1});
  EXPECT_EQ(vec(r.sizes()), (Ints{4, 3}));
  EXPECT_EQ(vec(r.strides()), (Ints{3, 1}));
  EXPECT_NE(r.storage().get(), u.storage().get());
  EXPECT_EQ(ints(r), (Ints{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3}));
  Tensor r2 = u.repeat({4, 2});
  EXPECT_EQ(vec(r2.sizes()), (Ints{4, 6}));
  for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(ints(r2.index({i})), (Ints{1, 2, 3, 1, 2, 3}));
  // Extra leading repeats and a non-contiguous input.
  Tensor m = tensor({{1, 2}, {3, 4}}).t();
  Tensor r3 = m.repeat({2, 1, 2});
  EXPECT_EQ(vec(r3.sizes()), (Ints{2, 2, 4}));
  EXPECT_EQ(ints(r3.index({1})), (Ints{1, 3, 1, 3, 2, 4, 2, 4}));
  r.index_put_({0, 0}, 100);
  EXPECT_EQ(u.index({0, 0}).item<int64_t>(), 1);
}

// ── Basic slicing on t = torch.arange(20).reshape(4, 5): views ──────────────────────────────

TEST(Layout, BasicSlicingGivesViews) {
  Tensor t = arange(20).reshape({4, 5});
  Tensor row = t.index({0});
  EXPECT_EQ(vec(row.sizes()), (Ints{5}));
  EXPECT_EQ(vec(row.strides()), (Ints{1}));
  EXPECT_EQ(row.storage_offset(), 0);
  EXPECT_EQ(ints(row), (Ints{0, 1, 2, 3, 4}));

  Tensor rows = t.index({Slice(1, 3)});
  EXPECT_EQ(vec(rows.sizes()), (Ints{2, 5}));
  EXPECT_EQ(vec(rows.strides()), (Ints{5, 1}));
  EXPECT_EQ(rows.storage_offset(), 5);
  EXPECT_EQ(ints(rows), ints(arange(5, 15)));

  Tensor col = t.index({Slice(), 2});
  EXPECT_EQ(vec(col.sizes()), (Ints{4}));
  EXPECT_EQ(vec(col.strides()), (Ints{5}));
  EXPECT_EQ(col.storage_offset(), 2);
  EXPECT_EQ(ints(col), (Ints{2, 7, 12, 17}));

  Tensor every_other = t.index({Slice(None, None, 2)});
  EXPECT_EQ(vec(every_other.sizes()), (Ints{2, 5}));
  EXPECT_EQ(vec(every_other.strides()), (Ints{10, 1}));
  EXPECT_EQ(ints(every_other), (Ints{0, 1, 2, 3, 4, 10, 11, 12, 13, 14}));

  Tensor last = t.index({Slice(), -1});
  EXPECT_EQ(vec(last.sizes()), (Ints{4}));
  EXPECT_EQ(last.storage_offset(), 4);
  EXPECT_EQ(vec(last.strides()), (Ints{5}));
  EXPECT_EQ(ints(last), (Ints{4, 9, 14, 19}));

  for (const Tensor& v : {row, rows, col, every_other, last})
    EXPECT_EQ(v.storage().get(), t.storage().get());
  // Shared memory: a write through a view shows in the base.
  col.index_put_({1}, -1);
  EXPECT_EQ(t.index({1, 2}).item<int64_t>(), -1);
  last.fill_(0);
  EXPECT_EQ(ints(t.index({Slice(), 4})), (Ints{0, 0, 0, 0}));
}

TEST(Layout, SliceBoundsFollowPython) {
  Tensor t = arange(10);
  EXPECT_EQ(ints(t.index({Slice(-3, None)})), (Ints{7, 8, 9}));
  EXPECT_EQ(ints(t.index({Slice(-100, 2)})), (Ints{0, 1}));
  EXPECT_EQ(ints(t.index({Slice(5, 100)})), (Ints{5, 6, 7, 8, 9}));
  EXPECT_EQ(ints(t.index({Slice(None, -7)})), (Ints{0, 1, 2}));
  EXPECT_EQ(ints(t.index({Slice(1, 8, 3)})), (Ints{1, 4, 7}));
  EXPECT_EQ(ints(t.index({Slice(1, 9, 3)})), (Ints{1, 4, 7}));
  EXPECT_EQ(ints(t.index({Slice(1, 10, 3)})), (Ints{1, 4, 7}));
  EXPECT_EQ(ints(t.index({Slice(-2, None, 5)})), (Ints{8}));
  Tensor empty_range = t.index({Slice(8, 2)});
  EXPECT_EQ(vec(empty_range.sizes()), (Ints{0}));
  EXPECT_EQ(empty_range.storage_offset(), 8);
  EXPECT_EQ(t.index({Slice(-2, -5)}).storage_offset(), 8);
  Tensor past_end = t.index({Slice(100, None)});
  EXPECT_EQ(vec(past_end.sizes()), (Ints{0}));
  EXPECT_EQ(past_end.storage_offset(), 10);
  EXPECT_EQ(t.slice(0, 2, 6, 2).storage_offset(), 2);
  EXPECT_EQ(vec(t.slice(0, 2, 6, 2).strides()), (Ints{2}));
  EXPECT_ERROR(t.index({Slice(None, None, -1)}), "step must be");
  EXPECT_ERROR(t.index({Slice(None, None, 0)}), "step must be");
}

TEST(Layout, EllipsisAndNone) {
  Tensor t = arange(24).view({2, 3, 4});
  Tensor a = t.index({Ellipsis, 1});
  EXPECT_EQ(vec(a.sizes()), (Ints{2, 3}));
  EXPECT_EQ(vec(a.strides()), (Ints{12, 4}));
  EXPECT_EQ(a.storage_offset(), 1);
  EXPECT_EQ(vec(t.index({0, Ellipsis}).sizes()), (Ints{3, 4}));
  EXPECT_EQ(vec(t.index({Ellipsis, None}).sizes()), (Ints{2, 3, 4, 1}));
  EXPECT_EQ(vec(t.index({None, Ellipsis, 0}).sizes()), (Ints{1, 2, 3}));
  EXPECT_EQ(vec(t.index({Ellipsis}).sizes()), (Ints{2, 3, 4}));
  EXPECT_EQ(vec(t.index({1, Ellipsis, Slice(1, 3)}).sizes()), (Ints{3, 2}));
  EXPECT_EQ(t.index({1, Ellipsis, 3}).index({2}).item<int64_t>(), 23);
  EXPECT_EQ(vec(tensor(5).index({None}).sizes()), (Ints{1}));
  EXPECT_EQ(vec(tensor(5).index({Ellipsis}).sizes()), (Ints{}));
  EXPECT_ERROR(t.index({0, 0, 0, 0}), "too many indices for tensor of dimension 3");
}

TEST(Layout, BooleanScalarIndex) {
  Tensor t = arange(24).view({2, 3, 4});
  EXPECT_EQ(vec(t.index({true}).sizes()), (Ints{1, 2, 3, 4}));
  EXPECT_EQ(vec(t.index({false}).sizes()), (Ints{0, 2, 3, 4}));
  EXPECT_EQ(vec(t.index({1, true}).sizes()), (Ints{1, 3, 4}));
  EXPECT_EQ(vec(tensor(5).index({true}).sizes()), (Ints{1}));
  EXPECT_EQ(vec(tensor(5).index({false}).sizes()), (Ints{0}));
  EXPECT_EQ(ints(t.index({1, true})), ints(t.index({1})));
  // (In PyTorch a bool index is an advanced index, so t[True] is a copy, not a view.)
}

// ── Conversions, clones, copies, fills ───────────────────────────────────────────────────────

TEST(Layout, ToDtype) {
  Tensor f = tensor({1.7, -2.5, 0.0, 3.0});
  Tensor i = f.to(kInt64);
  EXPECT_EQ(i.dtype(), kInt64);
  EXPECT_EQ(ints(i), (Ints{1, -2, 0, 3}));  // truncation toward zero
  EXPECT_EQ(f.to(kBool).tolist<bool>(), (std::vector<bool>{true, true, false, true}));
  EXPECT_EQ(tensor({0, 1, 2}).to(kBool).tolist<bool>(), (std::vector<bool>{false, true, true}));
  EXPECT_EQ(tensor({true, false}).to(kFloat32).tolist<float>(), (std::vector<float>{1, 0}));
  EXPECT_EQ(tensor(300).to(kUInt8).item<int64_t>(), 44);  // wraps like a C cast
  EXPECT_EQ(tensor(-1).to(kUInt8).item<int64_t>(), 255);
  Tensor h = tensor({65504.0, 1e5, 1.0 / 3}).to(kFloat16);
  EXPECT_EQ(h.dtype(), kFloat16);
  EXPECT_EQ(h.index({0}).item<float>(), 65504.0f);
  EXPECT_TRUE(std::isinf(h.index({1}).item<float>()));
  EXPECT_EQ(h.index({2}).item<float>(), 0x1.554p-2f);
  EXPECT_EQ(tensor(1.0 / 3).to(kBFloat16).item<float>(), 0x1.56p-2f);
  EXPECT_EQ(tensor(3).to(kFloat64).item<double>(), 3.0);
  // Same dtype: no copy unless asked for.
  EXPECT_TRUE(f.to(kFloat32).is_same(f));
  Tensor c = f.to(kFloat32, /*copy=*/true);
  EXPECT_FALSE(c.is_same(f));
  EXPECT_NE(c.storage().get(), f.storage().get());
  EXPECT_TRUE(f.to(Device(kCPU)).is_same(f));
  // A transposed source keeps its layout (preserve_format).
  Tensor tt = arange(6).view({2, 3}).t().to(kFloat32);
  EXPECT_EQ(vec(tt.strides()), (Ints{1, 3}));
  EXPECT_EQ(floats(tt), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  Tensor nd = arange(12).view({3, 4}).t().index({Slice(None, None, 2)}).to(kFloat32);
  EXPECT_EQ(vec(nd.strides()), (Ints{1, 2}));
}

TEST(Layout, CloneIsIndependentAndPreservesLayout) {
  Tensor t = tensor({{1, 2, 3}, {4, 5, 6}});
  Tensor c = t.clone();
  EXPECT_NE(c.storage().get(), t.storage().get());
  EXPECT_TRUE(c.equal(t));
  c.index_put_({0, 0}, 100);
  EXPECT_EQ(t.index({0, 0}).item<int64_t>(), 1);
  // torch.preserve_format: a dense non-overlapping layout keeps its strides ...
  Tensor ct = t.T().clone();
  EXPECT_EQ(vec(ct.strides()), (Ints{1, 3}));
  EXPECT_EQ(ints(ct), (Ints{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(vec(arange(24).view({2, 3, 4}).permute({2, 0, 1}).clone().strides()), (Ints{1, 12, 4}));
  // ... and any other layout gets dense strides in the same dim order.
  Tensor nd = arange(12).view({3, 4}).t().index({Slice(None, None, 2)});  // (2, 3) strides (2, 4)
  EXPECT_EQ(vec(nd.strides()), (Ints{2, 4}));
  Tensor cnd = nd.clone();
  EXPECT_EQ(vec(cnd.strides()), (Ints{1, 2}));
  EXPECT_EQ(ints(cnd), ints(nd));
  EXPECT_EQ(vec(zeros({3}).expand({2, 3}).clone().strides()), (Ints{3, 1}));
  EXPECT_EQ(vec(zeros({3, 1}).expand({3, 4}).t().clone().strides()), (Ints{3, 1}));
  EXPECT_EQ(vec(zeros({2, 3}).t().unsqueeze(1).clone().strides()), (Ints{1, 6, 3}));
  // A slice's clone starts at offset 0 of a storage of its own size.
  Tensor s = arange(20).reshape({4, 5}).index({Slice(1, 3), Slice(1, 4)}).clone();
  EXPECT_EQ(s.storage_offset(), 0);
  EXPECT_EQ(s.storage()->nbytes(), 6 * sizeof(int64_t));
  EXPECT_EQ(ints(s), (Ints{6, 7, 8, 11, 12, 13}));
}

TEST(Layout, CopyBroadcastsAndConverts) {
  Tensor dst = zeros({2, 3});
  dst.copy_(tensor({1, 2, 3}));  // int64 -> float32, broadcast over rows
  EXPECT_EQ(floats(dst), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  dst.copy_(tensor(7.5));
  EXPECT_EQ(floats(dst), std::vector<float>(6, 7.5f));
  dst.copy_(tensor({{1.0}, {2.0}}));
  EXPECT_EQ(floats(dst), (std::vector<float>{1, 1, 1, 2, 2, 2}));
  Tensor i = zeros({3}, {.dtype = kInt32});
  i.copy_(tensor({1.9, -1.9, 2.5}));
  EXPECT_EQ(i.tolist<int32_t>(), (std::vector<int32_t>{1, -1, 2}));
  Tensor b = zeros({3}, {.dtype = kBool});
  b.copy_(tensor({0.0, 0.5, -2.0}));
  EXPECT_EQ(b.tolist<bool>(), (std::vector<bool>{false, true, true}));
  // Into a non-contiguous destination.
  Tensor base = zeros({3, 2}, {.dtype = kInt64});
  base.t().copy_(tensor({{1, 2, 3}, {4, 5, 6}}));
  EXPECT_EQ(ints(base), (Ints{1, 4, 2, 5, 3, 6}));
  EXPECT_ERROR(zeros({2, 3}).copy_(zeros({4})), "must match");
}

TEST(Layout, CopyBetweenOverlappingViews) {
  // Partly overlapping dense views: PyTorch refuses, and so does ember.
  Tensor a = arange(10);
  EXPECT_ERROR(a.index({Slice(1, None)}).copy_(a.index({Slice(None, -1)})),
               "some elements of the input tensor and the written-to tensor refer to a single "
               "memory location");
  EXPECT_EQ(ints(a), ints(arange(10)));
  Tensor sq = arange(9).view({3, 3});
  EXPECT_ERROR(sq.copy_(sq.t()), "refer to a single memory location");
  Tensor q = arange(4);
  EXPECT_ERROR(q.view({2, 2}).copy_(q.index({Slice(None, 2)})), "refer to a single memory");
  // Disjoint views of one storage.
  Tensor d = arange(10);
  d.index({Slice(None, 5)}).copy_(d.index({Slice(5, None)}));
  EXPECT_EQ(ints(d), (Ints{5, 6, 7, 8, 9, 5, 6, 7, 8, 9}));
  // Overlapping non-dense views, where PyTorch's result does not depend on its loop order.
  Tensor m = arange(9).view({3, 3});
  m.index({Slice(), 0}).copy_(m.index({0}));
  EXPECT_EQ(ints(m), (Ints{0, 1, 2, 1, 4, 5, 2, 7, 8}));
  Tensor n = arange(9).view({3, 3});
  n.index({0}).copy_(n.index({Slice(), 0}));
  EXPECT_EQ(ints(n), (Ints{0, 3, 6, 3, 4, 5, 6, 7, 8}));
  Tensor r = arange(12).view({3, 4});
  r.index({Slice(), Slice(None, 3)}).copy_(r.index({Slice(), Slice(1, None)}));
  EXPECT_EQ(ints(r), (Ints{1, 2, 3, 3, 5, 6, 7, 7, 9, 10, 11, 11}));
  Tensor e = arange(6);
  e.index({Slice(1, 3)}).copy_(e.index({Slice(0, 1)}).expand({2}));
  EXPECT_EQ(ints(e), (Ints{0, 0, 0, 3, 4, 5}));
  // The same tensor, or the same memory with the same layout: nothing to do.
  Tensor s = arange(4);
  s.copy_(s);
  s.copy_(s.view({4}));
  EXPECT_EQ(ints(s), (Ints{0, 1, 2, 3}));
  Tensor e2 = zeros({3}).expand({2, 3});
  e2.copy_(e2);  // the same tensor: nothing to do, so no internal-overlap error (as PyTorch)
  EXPECT_ERROR(e2.copy_(e2.view({2, 3})), "more than one element of the written-to tensor");
}

// ── copy_ against the element address formula, on random layouts ─────────────────────────────

namespace {

// Reads element idx of t straight from memory: storage[offset + sum(idx[d] * strides[d])].
double read_at(const Tensor& t, const std::vector<int64_t>& idx) {
  int64_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * t.strides()[d];
  const char* p = static_cast<const char*>(t.data_ptr()) + off * t.element_size();
  switch (t.dtype()) {
    case kFloat32:
      return *reinterpret_cast<const float*>(p);
    case kFloat64:
      return *reinterpret_cast<const double*>(p);
    case kInt32:
      return *reinterpret_cast<const int32_t*>(p);
    case kInt64:
      return double(*reinterpret_cast<const int64_t*>(p));
    default:
      ADD_FAILURE() << "unexpected dtype";
      return 0;
  }
}

// A view with the given sizes over a bigger buffer of `dtype` holding 0, 1, 2, ...: dims in a
// random memory order, random steps and start offsets, and (if allowed) one expanded dim.
Tensor random_view(std::mt19937& rng, const Ints& sizes, Dtype dtype, bool allow_expand) {
  const size_t n = sizes.size();
  Ints steps(n), starts(n), big(n), perm(n);
  for (size_t d = 0; d < n; ++d) {
    steps[d] = 1 + int64_t(rng() % 2);
    starts[d] = int64_t(rng() % 2);
    big[d] = starts[d] + sizes[d] * steps[d] + int64_t(rng() % 2);
    perm[d] = int64_t(d);
  }
  std::shuffle(perm.begin(), perm.end(), rng);
  Ints base_sizes(n), inverse(n);
  for (size_t d = 0; d < n; ++d) base_sizes[d] = big[size_t(perm[d])];
  for (size_t d = 0; d < n; ++d) inverse[size_t(perm[d])] = int64_t(d);
  int64_t total = 1;
  for (int64_t b : big) total *= b;
  Tensor v = arange(total).to(dtype).view(base_sizes).permute(inverse);
  for (size_t d = 0; d < n; ++d)
    v = v.slice(int64_t(d), starts[d], starts[d] + sizes[d] * steps[d], steps[d]);
  if (allow_expand && rng() % 3 == 0) {
    const int64_t d = int64_t(rng() % n);
    if (sizes[size_t(d)] > 0) v = v.narrow(d, 0, 1).expand(sizes);
  }
  return v;
}

}  // namespace

TEST(Layout, CopyMatchesTheAddressFormulaOnRandomLayouts) {
  std::mt19937 rng(1234);
  const std::vector<Ints> shapes = {{7},       {5, 3},     {4, 1, 6},    {2, 3, 4, 5}, {1, 1, 9},
                                    {3, 4, 1}, {300, 200}, {40, 30, 50}, {0, 3},       {6, 0, 2}};
  const Dtype dtypes[] = {kInt64, kFloat64, kFloat32, kInt32};
  for (int trial = 0; trial < 60; ++trial) {
    const Ints& sizes = shapes[size_t(trial) % shapes.size()];
    const Dtype src_dtype = dtypes[rng() % 4], dst_dtype = dtypes[rng() % 4];
    Tensor src = random_view(rng, sizes, src_dtype, /*allow_expand=*/true);
    Tensor dst = random_view(rng, sizes, dst_dtype, /*allow_expand=*/false);
    // Sentinels everywhere in dst's buffer, so stray writes show.
    Tensor buffer(make_intrusive<TensorImpl>(
        dst.storage(), dst.dtype(),
        IntArrayRef({int64_t(dst.storage()->nbytes()) / dst.element_size()}), IntArrayRef({1}), 0));
    buffer.fill_(-1);
    dst.copy_(src);
    SCOPED_TRACE("trial " + std::to_string(trial));
    std::vector<int64_t> idx(sizes.size(), 0);
    int64_t checked = 0, mismatches = 0;
    if (dst.numel() > 0) {
      for (;;) {
        ++checked;
        mismatches += read_at(dst, idx) != read_at(src, idx);
        size_t d = sizes.size();
        while (d > 0 && ++idx[d - 1] == sizes[d - 1]) idx[--d] = 0;
        if (d == 0) break;
      }
    }
    EXPECT_EQ(checked, dst.numel());
    EXPECT_EQ(mismatches, 0);
    // Exactly numel elements of the buffer were written (all sources are >= 0).
    std::vector<double> all = buffer.tolist<double>();
    EXPECT_EQ(std::count(all.begin(), all.end(), -1.0), int64_t(all.size()) - dst.numel());
    // fill_ through the same view touches exactly those elements.
    dst.fill_(-2);
    all = buffer.tolist<double>();
    EXPECT_EQ(std::count(all.begin(), all.end(), -2.0), dst.numel());
    EXPECT_EQ(std::count(all.begin(), all.end(), -1.0), int64_t(all.size()) - dst.numel());
  }
}

TEST(Layout, CopyIntoExpandedTensorThrows) {
  Tensor e = zeros({3}).expand({2, 3});
  EXPECT_ERROR(e.copy_(ones({2, 3})),
               "more than one element of the written-to tensor refers to a single memory "
               "location");
}

TEST(Layout, FillAndZero) {
  Tensor t = zeros({2, 3});
  t.fill_(3.14);
  EXPECT_EQ(floats(t), std::vector<float>(6, 3.14f));
  t.zero_();
  EXPECT_EQ(floats(t), std::vector<float>(6, 0.0f));
  t.fill_(tensor(2));
  EXPECT_EQ(floats(t), std::vector<float>(6, 2.0f));
  EXPECT_ERROR(t.fill_(tensor({1, 2})), "0-dimension");
  // Through a strided view: only those elements change.
  Tensor m = zeros({3, 4}, {.dtype = kInt64});
  m.index({Slice(), 1}).fill_(5);
  EXPECT_EQ(ints(m), (Ints{0, 5, 0, 0, 0, 5, 0, 0, 0, 5, 0, 0}));
  Tensor b = zeros({2}, {.dtype = kBool});
  b.fill_(2);
  EXPECT_EQ(b.tolist<bool>(), (std::vector<bool>{true, true}));
  Tensor i = zeros({2}, {.dtype = kInt32});
  i.fill_(-2.7);
  EXPECT_EQ(i.tolist<int32_t>(), (std::vector<int32_t>{-2, -2}));
  // PyTorch fills an expanded tensor without complaint (every element gets the same value).
  Tensor base = zeros({3});
  base.expand({2, 3}).fill_(1);
  EXPECT_EQ(floats(base), (std::vector<float>{1, 1, 1}));
  base.expand({2, 3}).zero_();
  EXPECT_EQ(floats(base), (std::vector<float>{0, 0, 0}));
  Tensor scalar = tensor(1.0);
  scalar.fill_(9);
  EXPECT_EQ(scalar.item<double>(), 9.0);
}

TEST(Layout, Item) {
  EXPECT_EQ(tensor(42).item<int64_t>(), 42);
  EXPECT_EQ(tensor(42).item().kind(), Scalar::Kind::Int);
  EXPECT_EQ(tensor(2.5).item<float>(), 2.5f);
  EXPECT_EQ(tensor(2.5).item().kind(), Scalar::Kind::Float);
  EXPECT_EQ(tensor(2.5).item<int>(), 2);
  EXPECT_EQ(tensor(true).item<bool>(), true);
  EXPECT_EQ(tensor(true).item().kind(), Scalar::Kind::Bool);
  EXPECT_EQ(tensor({{7}}).item<int64_t>(), 7);  // any one-element tensor
  EXPECT_EQ(tensor(0.5, kFloat16).item<double>(), 0.5);
  EXPECT_EQ(arange(10).index({Slice(3, 4)}).item<int64_t>(), 3);  // offset honoured
  EXPECT_ERROR(tensor({1, 2}).item(), "a Tensor with 2 elements cannot be converted to Scalar");
  EXPECT_ERROR(Tensor().item(), "undefined");
}

TEST(Layout, DataPtrChecksTheType) {
  Tensor f = zeros({3});
  EXPECT_NE(f.data_ptr<float>(), nullptr);
  EXPECT_ERROR(f.data_ptr<double>(), "[data_ptr]");
  EXPECT_ERROR(f.data_ptr<int32_t>(), "float32");
  EXPECT_ERROR(arange(3).data_ptr<float>(), "int64");
  EXPECT_ERROR(Tensor().data_ptr<float>(), "undefined");
  // data_ptr points at the first element, storage offset included.
  Tensor t = arange(10);
  EXPECT_EQ(t.index({Slice(3, None)}).data_ptr<int64_t>(), t.data_ptr<int64_t>() + 3);
  EXPECT_EQ(*t.index({Slice(3, None)}).data_ptr<int64_t>(), 3);
  const Tensor& ct = t;
  const int64_t* cp = ct.data_ptr<const int64_t>();
  EXPECT_EQ(cp[4], 4);
}

// ── The version counter ──────────────────────────────────────────────────────────────────────

TEST(Layout, VersionCounter) {
  Tensor t = zeros({4});
  EXPECT_EQ(t._version(), 0u);
  Tensor v = t.view({2, 2});
  const uint32_t v0 = t._version();
  t.fill_(1);
  EXPECT_EQ(t._version(), v0 + 1);
  EXPECT_EQ(v._version(), t._version());  // shared by views
  v.zero_();
  EXPECT_EQ(t._version(), v0 + 2);
  t.index_put_({0}, 5);
  EXPECT_EQ(v._version(), v0 + 3);
  t.copy_(ones({4}));
  EXPECT_EQ(t._version(), v0 + 4);
  t.copy_(t);  // PyTorch counts even a copy onto itself
  EXPECT_EQ(t._version(), v0 + 5);
  t.index({Slice(1, 3)}).copy_(tensor({7.0, 8.0}));
  EXPECT_EQ(v._version(), v0 + 6);
  EXPECT_EQ(t.detach()._version(), t._version());
  // Reads and views do not count.
  (void)t.index({1}).item<float>();
  (void)t.t().contiguous();
  (void)t.clone();
  EXPECT_EQ(t._version(), v0 + 6);
  // A copy has its own counter.
  Tensor c = t.clone();
  c.fill_(0);
  EXPECT_EQ(t._version(), v0 + 6);
}

TEST(Layout, FreshTensorsStartAtVersionZero) {
  Tensor x = arange(6.0).view({2, 3}).t();
  for (const Tensor& t :
       {zeros({2}), ones({2}), full({2}, 3), eye(3), tensor({1, 2}), arange(3), linspace(0, 1, 3),
        empty({2}), zeros_like(x), ones_like(x), full_like(x, 2), x.clone(), x.contiguous(),
        x.to(kInt64), x.reshape({-1}), cat({x, x}), stack({x, x}), x.repeat({2, 1})})
    EXPECT_EQ(t._version(), 0u);
}

// ── Handle semantics ─────────────────────────────────────────────────────────────────────────

TEST(Layout, CopyingAHandleSharesData) {
  Tensor a = zeros({3});
  Tensor b = a;  // like Python's b = a
  EXPECT_TRUE(b.is_same(a));
  EXPECT_EQ(b.impl(), a.impl());
  b.fill_(2);
  EXPECT_EQ(floats(a), (std::vector<float>{2, 2, 2}));
  Tensor c;
  EXPECT_FALSE(c.defined());
  c = a;
  EXPECT_TRUE(c.defined());
  EXPECT_TRUE(c.is_same(a));
  // A view is another tensor object over the same storage.
  Tensor v = a.view({3});
  EXPECT_FALSE(v.is_same(a));
  EXPECT_EQ(v.storage().get(), a.storage().get());
  // The storage lives as long as any handle or view does.
  Tensor survivor;
  {
    Tensor tmp = arange(5);
    survivor = tmp.index({Slice(2, None)});
  }
  EXPECT_EQ(ints(survivor), (Ints{2, 3, 4}));
  // Moving leaves the source undefined.
  Tensor m = std::move(c);
  EXPECT_FALSE(c.defined());  // NOLINT(bugprone-use-after-move): moved-from handles are empty
  EXPECT_TRUE(m.is_same(a));
  EXPECT_EQ(a.impl_ptr().use_count(), 4);  // a, b, m, and v (a view remembers its base)
}

TEST(Layout, FillChecksTheValueFitsTheDtype) {
  // PyTorch's checked_convert: out-of-range values are errors, not silent wraps ...
  EXPECT_ERROR(zeros({2}, {.dtype = kUInt8}).fill_(300),
               "[fill_] value 300 cannot be converted to type uint8 without overflow");
  EXPECT_ERROR(zeros({2}, {.dtype = kUInt8}).fill_(-1.5), "cannot be converted to type uint8");
  EXPECT_ERROR(zeros({2}, {.dtype = kInt8}).fill_(-129), "cannot be converted to type int8");
  EXPECT_ERROR(zeros({2}, {.dtype = kInt8}).fill_(127.9), "cannot be converted to type int8");
  EXPECT_ERROR(zeros({2}, {.dtype = kInt32}).fill_(int64_t(1) << 31), "type int32");
  EXPECT_ERROR(zeros({2}, {.dtype = kInt64}).fill_(NAN), "type int64");
  EXPECT_ERROR(zeros({2}, {.dtype = kFloat16}).fill_(1e6), "type float16");
  EXPECT_ERROR(zeros({2}, {.dtype = kFloat16}).fill_(100000), "type float16");
  EXPECT_ERROR(zeros({2}, {.dtype = kBFloat16}).fill_(1e39), "type bfloat16");
  EXPECT_ERROR(zeros({2}).fill_(1e39), "type float32");
  Tensor u = zeros({2}, {.dtype = kUInt8});
  EXPECT_ERROR(u.index_put_({0}, 300), "cannot be converted to type uint8");
  // ... except that negative integers wrap into uint8, infinities and NaN go into floating
  // dtypes, and anything goes into bool.
  u.fill_(-1);
  EXPECT_EQ(ints(u), (Ints{255, 255}));
  Tensor h = zeros({1}, {.dtype = kFloat16});
  h.fill_(INFINITY);
  EXPECT_TRUE(std::isinf(h.item<float>()));
  h.fill_(NAN);
  EXPECT_TRUE(std::isnan(h.item<float>()));
  h.fill_(65504);
  EXPECT_EQ(h.item<float>(), 65504.f);
  Tensor b = zeros({1}, {.dtype = kBool});
  b.fill_(5);
  EXPECT_TRUE(b.item<bool>());
  Tensor i8 = zeros({1}, {.dtype = kInt8});
  i8.fill_(-128);
  EXPECT_EQ(i8.item<int64_t>(), -128);
  i8.fill_(-128.5 + 0.5);
  EXPECT_EQ(i8.item<int64_t>(), -128);
}
