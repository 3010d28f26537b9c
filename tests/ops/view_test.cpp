// View ops: PyTorch's viewability rule, every view op's shape, strides, offset and values, the
// joining ops built on them, and every error message (a CPU-only build's CUDA errors are in
// tests/backend/no_cuda_test.cpp).
// Expected values are PyTorch 1.13's.
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "test_support.h"

using namespace ember;
using namespace ember::indexing;

namespace {

using Ints = std::vector<int64_t>;

Ints vec(IntArrayRef a) { return a.vec(); }
Ints ints(const Tensor& t) { return t.tolist<int64_t>(); }

// Sizes, strides, offset and storage identity of a view of `base`.
void expect_view(const Tensor& v, const Tensor& base, const Ints& sizes, const Ints& strides,
                 int64_t offset) {
  EXPECT_EQ(vec(v.sizes()), sizes);
  EXPECT_EQ(vec(v.strides()), strides);
  EXPECT_EQ(v.storage_offset(), offset);
  EXPECT_EQ(v.storage().get(), base.storage().get());
}

}  // namespace

// ── view's viewability rule ─────────────────────────────────────────────────────────────────

TEST(View, TransposedCannotBeFlattenedByView) {
  Tensor t = arange(6).view({2, 3}).t();
  EXPECT_ERROR(t.view({-1}),
               "[view] view size is not compatible with input tensor's size and "
               "stride (at least one dimension spans across two contiguous "
               "subspaces). Use .reshape(...) instead.");
  EXPECT_ERROR(t.view({6}), "Use .reshape(...) instead");
  Tensor r = t.reshape({-1});
  EXPECT_NE(r.storage().get(), t.storage().get());  // reshape copies
  EXPECT_TRUE(r.is_contiguous());
  EXPECT_EQ(ints(r), (Ints{0, 3, 1, 4, 2, 5}));
}

TEST(View, NonContiguousViewsThatArePossible) {
  // A (4, 6) tensor's [:, :3]: sizes (4, 3), strides (6, 1).
  Tensor base = arange(24).view({4, 6});
  Tensor a = base.index({Slice(), Slice(None, 3)});
  EXPECT_EQ(vec(a.strides()), (Ints{6, 1}));
  EXPECT_FALSE(a.is_contiguous());
  expect_view(a.view({2, 2, 3}), base, {2, 2, 3}, {12, 6, 1}, 0);
  expect_view(a.view({4, 3, 1}), base, {4, 3, 1}, {6, 1, 1}, 0);
  expect_view(a.view({4, 1, 3}), base, {4, 1, 3}, {6, 3, 1}, 0);
  EXPECT_EQ(ints(a.view({2, 2, 3}).index({1, 0})), (Ints{12, 13, 14}));
  EXPECT_ERROR(a.view({12}), "Use .reshape(...) instead");
  EXPECT_EQ(vec(a.reshape({12}).strides()), (Ints{1}));
  EXPECT_EQ(ints(a.reshape({12})), (Ints{0, 1, 2, 6, 7, 8, 12, 13, 14, 18, 19, 20}));
  // A permuted tensor: (3, 2, 4) strides (4, 12, 1).
  Tensor p = arange(24).view({2, 3, 4}).permute({1, 0, 2});
  EXPECT_EQ(vec(p.strides()), (Ints{4, 12, 1}));
  EXPECT_ERROR(p.view({3, 8}), "Use .reshape(...) instead");
  EXPECT_ERROR(p.view({6, 4}), "Use .reshape(...) instead");
  EXPECT_EQ(vec(p.view({3, 2, 2, 2}).strides()), (Ints{4, 12, 2, 1}));
  // A transposed matrix, (4, 3) strides (1, 4): splitting a dim or adding size-1 dims works.
  Tensor c = arange(12).view({3, 4}).t();
  EXPECT_EQ(vec(c.view({4, 3, 1}).strides()), (Ints{1, 4, 4}));
  EXPECT_EQ(vec(c.view({4, 1, 3}).strides()), (Ints{1, 12, 4}));
  EXPECT_EQ(vec(c.view({2, 2, 3}).strides()), (Ints{2, 1, 4}));
  EXPECT_EQ(ints(c.view({2, 2, 3}).index({1, 1})), (Ints{3, 7, 11}));
  // Expanded (stride 0) dims.
  Tensor e = zeros({3}).expand({2, 3});
  EXPECT_ERROR(e.view({6}), "Use .reshape(...) instead");
  EXPECT_EQ(vec(e.view({2, 1, 3}).strides()), (Ints{0, 3, 1}));
  EXPECT_EQ(vec(e.view({1, 2, 3}).strides()), (Ints{0, 0, 1}));
  // 0-d and empty tensors.
  EXPECT_EQ(vec(tensor(3).view({1, 1}).strides()), (Ints{1, 1}));
  // (t.view({}) would pick view(Dtype) with Dtype{} == kBool; see the report of this suite.)
  EXPECT_EQ(vec(tensor(3).view(IntArrayRef()).sizes()), (Ints{}));
  EXPECT_EQ(vec(zeros({1, 1}).view(IntArrayRef()).sizes()), (Ints{}));
  EXPECT_EQ(vec(zeros({0, 3}).view({3, 0}).strides()), (Ints{1, 1}));
  EXPECT_EQ(vec(zeros({0}).view({-1}).sizes()), (Ints{0}));
}

TEST(View, ViewAsDtype) {
  Tensor f = tensor({1.0f, -2.0f});
  Tensor bits = f.view(kInt32);
  EXPECT_EQ(bits.dtype(), kInt32);
  EXPECT_EQ(bits.storage().get(), f.storage().get());
  EXPECT_EQ(bits.tolist<int32_t>(), (std::vector<int32_t>{0x3f800000, int32_t(0xc0000000)}));
  EXPECT_ERROR(f.view(kFloat64), "[view]");
}

TEST(View, ViewSizeErrors) {
  Tensor t = arange(6);
  EXPECT_ERROR(t.view({5}), "[view] shape [5] is invalid for input of size 6");
  EXPECT_ERROR(t.view({4, -1}), "[view] shape [4, -1] is invalid for input of size 6");
  EXPECT_ERROR(t.view({-1, -1}), "[view] only one dimension can be inferred");
  EXPECT_ERROR(t.view({-2, 3}), "[view] invalid shape dimension -2");
  EXPECT_ERROR(t.reshape({7}), "[reshape] shape [7] is invalid for input of size 6");
  EXPECT_ERROR(zeros({0, 3}).view({-1, 0}),
               "cannot reshape tensor of 0 elements into shape [-1, 0] because the unspecified "
               "dimension size -1 can be any value and is ambiguous");
  EXPECT_EQ(vec(zeros({0, 3}).view({-1, 3}).sizes()), (Ints{0, 3}));
}

// ── transpose, permute, t, T, mT, movedim ───────────────────────────────────────────────────

TEST(View, TransposeFamily) {
  Tensor t = arange(24).view({2, 3, 4});
  expect_view(t.transpose(0, 2), t, {4, 3, 2}, {1, 4, 12}, 0);
  expect_view(t.transpose(-1, 1), t, {2, 4, 3}, {12, 1, 4}, 0);
  expect_view(t.swapaxes(0, 1), t, {3, 2, 4}, {4, 12, 1}, 0);
  expect_view(t.permute({1, 2, 0}), t, {3, 4, 2}, {4, 1, 12}, 0);
  expect_view(t.mT(), t, {2, 4, 3}, {12, 1, 4}, 0);
  expect_view(t.movedim(0, 2), t, {3, 4, 2}, {4, 1, 12}, 0);
  expect_view(t.movedim(-1, 0), t, {4, 2, 3}, {1, 12, 4}, 0);
  EXPECT_EQ(t.transpose(0, 2).index({3, 2, 1}).item<int64_t>(), 23);
  EXPECT_EQ(t.permute({1, 2, 0}).index({2, 1, 0}).item<int64_t>(), 9);
  Tensor v = arange(3);
  expect_view(v.t(), v, {3}, {1}, 0);
  expect_view(v.T(), v, {3}, {1}, 0);
  Tensor s = tensor(1);
  expect_view(s.t(), s, {}, {}, 0);
  EXPECT_EQ(vec(tensor(1).transpose(0, -1).sizes()), (Ints{}));
}

TEST(View, TransposeFamilyErrors) {
  Tensor t = zeros({2, 3, 4});
  EXPECT_ERROR(t.t(), "[t] t() expects a tensor with <= 2 dimensions, but self is 3D");
  EXPECT_ERROR(zeros({2}).mT(),
               "tensor.mT is only supported on matrices or batches of matrices. "
               "Got 1-D tensor.");
  EXPECT_ERROR(zeros({2, 3}).permute({0, 0}), "[permute]");
  EXPECT_ERROR(zeros({2, 3}).permute({0, 0}), "duplicate dims are not allowed");
  EXPECT_ERROR(zeros({2, 3}).permute({0}), "number of dims don't match in permute");
  EXPECT_ERROR(zeros({2, 3}).transpose(0, 2),
               "[transpose] dimension out of range (expected to be in range of [-2, 1], but got "
               "2)");
  EXPECT_ERROR(zeros({2, 3}).unsqueeze(3),
               "dimension out of range (expected to be in range of [-3, 2], but got 3)");
  EXPECT_ERROR(zeros({2, 3}).squeeze(2), "(expected to be in range of [-2, 1], but got 2)");
  EXPECT_ERROR(zeros({2, 3}).movedim(0, 5), "[movedim] dimension out of range");
  EXPECT_ERROR(zeros({3}).permute({1}), "(expected to be in range of [-1, 0], but got 1)");
}

// ── expand ──────────────────────────────────────────────────────────────────────────────────

TEST(View, ExpandErrors) {
  EXPECT_ERROR(zeros({2, 3}).expand({3, 3}),
               "[expand] the expanded size of the tensor (3) must match the existing size (2) at "
               "non-singleton dimension 0.  Target sizes: [3, 3].  Tensor sizes: [2, 3]");
  EXPECT_ERROR(zeros({2, 3}).expand({3}),
               "the number of sizes provided (1) must be greater or "
               "equal to the number of dimensions in the tensor (2)");
  EXPECT_ERROR(zeros({2, 3}).expand({-1, 2, 3}),
               "the expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
               "dimension 0");
  Tensor e = zeros({1, 3}).expand({2, -1});
  EXPECT_EQ(vec(e.sizes()), (Ints{2, 3}));
  EXPECT_EQ(vec(zeros({2, 3}).expand_as(zeros({4, 2, 3})).strides()), (Ints{0, 3, 1}));
  EXPECT_EQ(vec(broadcast_to(tensor({1, 2}), {3, 2}).strides()), (Ints{0, 1}));
}

// ── narrow, select, slice ───────────────────────────────────────────────────────────────────

TEST(View, NarrowSelect) {
  Tensor t = arange(20).view({4, 5});
  expect_view(t.narrow(1, 1, 3), t, {4, 3}, {5, 1}, 1);
  expect_view(t.narrow(0, -3, 2), t, {2, 5}, {5, 1}, 5);
  EXPECT_EQ(ints(t.narrow(1, 1, 3).index({1})), (Ints{6, 7, 8}));
  expect_view(t.narrow(0, 4, 0), t, {0, 5}, {5, 1}, 20);
  expect_view(t.select(1, 2), t, {4}, {5}, 2);
  expect_view(t.select(0, -1), t, {5}, {1}, 15);
  EXPECT_EQ(ints(t.select(1, -1)), (Ints{4, 9, 14, 19}));
  expect_view(narrow(t, 0, 1, 2), t, {2, 5}, {5, 1}, 5);
  expect_view(select(t, 0, 1), t, {5}, {1}, 5);
}

TEST(View, NarrowSelectSliceErrors) {
  Tensor t = arange(6);
  EXPECT_ERROR(zeros({2, 3}).narrow(1, 2, 3),
               "[narrow] start (2) + length (3) exceeds dimension size (3).");
  EXPECT_ERROR(t.narrow(0, 7, 0), "[narrow] start out of range");
  EXPECT_ERROR(t.narrow(0, 1, -1), "[narrow]");
  EXPECT_ERROR(tensor(1).narrow(0, 0, 1), "narrow() cannot be applied to a 0-dim tensor.");
  EXPECT_ERROR(zeros({3}).select(0, 5), "index 5 is out of bounds for dimension 0 with size 3");
  EXPECT_ERROR(zeros({3}).index({5}), "index 5 is out of bounds for dimension 0 with size 3");
  EXPECT_ERROR(zeros({3}).index({-4}), "index -4 is out of bounds for dimension 0 with size 3");
  EXPECT_ERROR(zeros({2, 3}).index({Slice(), 3}),
               "index 3 is out of bounds for dimension 1 with size 3");
  EXPECT_ERROR(tensor(1).select(0, 0), "select() cannot be applied to a 0-dim tensor.");
  EXPECT_ERROR(t.slice(0, 0, 3, 0), "step must be");
  EXPECT_ERROR(t.slice(0, 0, 3, -1), "step must be");
  EXPECT_ERROR(t.index({Slice(None, None, -2)}), "step must be");
  EXPECT_ERROR(zeros({2, 3}).index({0, 0, 0}),
               "[index] too many indices for tensor of dimension 2");
  EXPECT_ERROR(tensor(5).index({0}), "too many indices for tensor of dimension 0");
}

// ── diagonal, unfold, as_strided, unflatten ─────────────────────────────────────────────────

TEST(View, Diagonal) {
  Tensor d = arange(12).view({3, 4});
  expect_view(d.diagonal(), d, {3}, {5}, 0);
  EXPECT_EQ(ints(d.diagonal()), (Ints{0, 5, 10}));
  expect_view(d.diagonal(1), d, {3}, {5}, 1);
  EXPECT_EQ(ints(d.diagonal(1)), (Ints{1, 6, 11}));
  expect_view(d.diagonal(-1), d, {2}, {5}, 4);
  EXPECT_EQ(ints(d.diagonal(-1)), (Ints{4, 9}));
  expect_view(d.diagonal(5), d, {0}, {5}, 0);
  Tensor b = arange(24).view({2, 3, 4});
  expect_view(b.diagonal(0, 1, 2), b, {2, 3}, {12, 5}, 0);
  EXPECT_EQ(ints(b.diagonal(0, 1, 2)), (Ints{0, 5, 10, 12, 17, 22}));
  expect_view(b.diagonal(0, -1, 0), b, {3, 2}, {4, 13}, 0);
  // A write through the diagonal lands in the matrix.
  Tensor z = zeros({3, 3});
  z.diagonal().fill_(1);
  EXPECT_TRUE(z.equal(eye(3)));
  EXPECT_ERROR(zeros({3, 3}).diagonal(0, 1, 1), "diagonal dimensions cannot be identical 1, 1");
  EXPECT_ERROR(zeros({3}).diagonal(), "[diagonal]");
}

TEST(View, Unfold) {
  Tensor u = arange(7).unfold(0, 3, 2);
  expect_view(u, u, {3, 3}, {2, 1}, 0);
  EXPECT_EQ(ints(u), (Ints{0, 1, 2, 2, 3, 4, 4, 5, 6}));
  Tensor m = arange(12).view({3, 4});
  expect_view(m.unfold(1, 2, 1), m, {3, 3, 2}, {4, 1, 1}, 0);
  EXPECT_EQ(ints(m.unfold(1, 2, 1).index({2, 2})), (Ints{10, 11}));
  expect_view(m.unfold(0, 2, 1), m, {2, 4, 2}, {4, 1, 4}, 0);
  EXPECT_EQ(vec(tensor(5).unfold(0, 1, 1).sizes()), (Ints{1}));
  EXPECT_ERROR(arange(5).unfold(0, 6, 1),
               "maximum size for tensor at dimension 0 is 5 but size "
               "is 6");
  EXPECT_ERROR(arange(5).unfold(0, 2, 0), "step is 0 but must be > 0");
}

TEST(View, AsStrided) {
  Tensor t = arange(10);
  Tensor s = t.as_strided({3, 3}, {2, 1}, 1);
  expect_view(s, t, {3, 3}, {2, 1}, 1);
  EXPECT_EQ(ints(s), (Ints{1, 2, 3, 3, 4, 5, 5, 6, 7}));
  expect_view(t.index({Slice(2, None)}).as_strided({2}, {3}), t, {2}, {3}, 2);
  EXPECT_ERROR(t.as_strided({3, 3}, {4, 1}, 1), "[as_strided]");
  EXPECT_ERROR(t.as_strided({3, 3}, {4}), "[as_strided]");
  EXPECT_ERROR(t.as_strided({2}, {1}, -1), "invalid storage offset -1");
  EXPECT_ERROR(t.as_strided({2, 3}, {int64_t(1) << 62, 1}), "overflowed");
  EXPECT_ERROR(t.as_strided({int64_t(1) << 62, 4}, {4, 1}), "overflowed");
  EXPECT_EQ(t.as_strided({0, 3}, {int64_t(1) << 62, 1}).numel(), 0);
}

TEST(View, Unflatten) {
  Tensor m = arange(12).view({3, 4});
  expect_view(m.unflatten(1, {2, 2}), m, {3, 2, 2}, {4, 2, 1}, 0);
  EXPECT_EQ(vec(m.unflatten(1, {2, -1}).sizes()), (Ints{3, 2, 2}));
  EXPECT_EQ(vec(m.unflatten(-2, {1, 3}).sizes()), (Ints{1, 3, 4}));
  EXPECT_ERROR(zeros({6}).unflatten(0, {4, -1}), "[unflatten]");
}

// ── split family, unbind ────────────────────────────────────────────────────────────────────

TEST(View, SplitChunkUnbind) {
  Tensor t = arange(10);
  auto parts = t.split(3);
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(ints(parts[0]), (Ints{0, 1, 2}));
  EXPECT_EQ(ints(parts[3]), (Ints{9}));
  for (size_t i = 0; i < parts.size(); ++i) {
    EXPECT_EQ(parts[i].storage_offset(), int64_t(3 * i));
    EXPECT_EQ(parts[i].storage().get(), t.storage().get());
  }
  auto sized = t.split_with_sizes({2, 3, 5});
  ASSERT_EQ(sized.size(), 3u);
  EXPECT_EQ(ints(sized[1]), (Ints{2, 3, 4}));
  EXPECT_EQ(ints(sized[2]), (Ints{5, 6, 7, 8, 9}));
  EXPECT_EQ(ints(t.split(IntArrayRef({4, 6}))[1]), (Ints{4, 5, 6, 7, 8, 9}));
  auto cols = arange(12).view({3, 4}).split(3, 1);
  ASSERT_EQ(cols.size(), 2u);
  expect_view(cols[1], cols[0], {3, 1}, {4, 1}, 3);
  EXPECT_EQ(split(t, 5).size(), 2u);
  EXPECT_EQ(t.split(20).size(), 1u);

  auto sizes_of = [](const std::vector<Tensor>& v) {
    Ints s;
    for (const Tensor& x : v) s.push_back(x.size(0));
    return s;
  };
  EXPECT_EQ(sizes_of(t.chunk(4)), (Ints{3, 3, 3, 1}));
  EXPECT_EQ(sizes_of(t.chunk(6)), (Ints{2, 2, 2, 2, 2}));
  EXPECT_EQ(sizes_of(arange(5).chunk(3)), (Ints{2, 2, 1}));
  EXPECT_EQ(sizes_of(zeros({0}).chunk(3)), (Ints{0, 0, 0}));
  EXPECT_EQ(sizes_of(chunk(t, 2)), (Ints{5, 5}));
  // A huge count: as many chunks as elements (no overflow in ceil(size / chunks)); of an empty
  // dimension, refused instead of building that many views.
  EXPECT_EQ(sizes_of(arange(6).chunk(std::numeric_limits<int64_t>::max())),
            (Ints{1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(zeros({0}).chunk(int64_t(1) << 20).size(), size_t(1) << 20);
  EXPECT_THROW(zeros({0, 3}).chunk(int64_t(538986352990)), Error);

  auto u = arange(6).view({2, 3}).unbind(1);
  ASSERT_EQ(u.size(), 3u);
  EXPECT_EQ(ints(u[0]), (Ints{0, 3}));
  EXPECT_EQ(ints(u[2]), (Ints{2, 5}));
  EXPECT_EQ(vec(u[1].strides()), (Ints{3}));
  EXPECT_EQ(unbind(arange(6).view({2, 3})).size(), 2u);

  EXPECT_ERROR(arange(5).split_with_sizes({2, 2}),
               "split_with_sizes expects split_sizes to sum exactly to 5 (input tensor's size at "
               "dimension 0), but got split_sizes=[2, 2]");
  EXPECT_ERROR(zeros({2, 3}).split(0), "split_size can only be 0 if dimension size is 0");
  EXPECT_ERROR(zeros({2, 3}).chunk(0), "chunk expects `chunks` to be greater than 0, got: 0");
  EXPECT_ERROR(tensor(1).unbind(), "[unbind]");
}

// ── cat, stack, hstack, vstack ──────────────────────────────────────────────────────────────

TEST(View, HstackVstack) {
  EXPECT_EQ(ints(hstack({arange(3), arange(2)})), (Ints{0, 1, 2, 0, 1}));
  Tensor h = hstack({zeros({2, 1}, {.dtype = kInt64}), ones({2, 2}, {.dtype = kInt64})});
  EXPECT_EQ(vec(h.sizes()), (Ints{2, 3}));
  EXPECT_EQ(ints(h), (Ints{0, 1, 1, 0, 1, 1}));
  Tensor v = vstack({arange(3), arange(3, 6)});
  EXPECT_EQ(vec(v.sizes()), (Ints{2, 3}));
  EXPECT_EQ(ints(v), (Ints{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(vec(vstack({zeros({2, 3}), zeros({1, 3})}).sizes()), (Ints{3, 3}));
  EXPECT_EQ(vec(hstack({tensor(1), tensor(2)}).sizes()), (Ints{2}));
  EXPECT_EQ(vec(vstack({tensor(1), tensor(2)}).sizes()), (Ints{2, 1}));
}

TEST(View, CatStackEdgesAndErrors) {
  // Legacy rule: 1-D empty tensors are skipped.
  EXPECT_EQ(vec(cat({zeros({2, 3}), zeros({0})}).sizes()), (Ints{2, 3}));
  EXPECT_EQ(vec(cat({zeros({0, 3}), zeros({2, 3})}).sizes()), (Ints{2, 3}));
  EXPECT_EQ(ints(cat({arange(3).index({Slice(None, None, 2)}), arange(2)})), (Ints{0, 2, 0, 1}));
  EXPECT_EQ(ints(concat({arange(2), arange(1)})), (Ints{0, 1, 0}));
  EXPECT_ERROR(cat({zeros({2, 3}), zeros({2, 2})}),
               "[cat] sizes of tensors must match except in dimension 0. Expected size 3 but got "
               "size 2 for tensor number 1 in the list.");
  EXPECT_ERROR(cat({zeros({2}), zeros({2, 2})}), "tensors must have same number of dimensions");
  EXPECT_ERROR(cat({zeros({2, 3}), tensor(1.0)}),
               "zero-dimensional tensor (at position 1) cannot be concatenated");
  EXPECT_ERROR(cat({}), "[cat] expected a non-empty list of Tensors");
  EXPECT_ERROR(cat({zeros({2, 3})}, 2), "dimension out of range");
  EXPECT_ERROR(stack({zeros({2, 3}), zeros({2, 2})}),
               "[stack] stack expects each tensor to be equal size, but got [2, 3] at entry 0 "
               "and [2, 2] at entry 1");
  EXPECT_ERROR(stack({}), "[stack]");
  EXPECT_EQ(vec(stack({tensor(1), tensor(2)}).sizes()), (Ints{2}));
  EXPECT_ERROR(zeros({2, 3}).repeat({2}),
               "number of dimensions of repeat dims can not be smaller "
               "than number of dimensions of tensor");
}

// ── copy_ into an overlapping destination ───────────────────────────────────────────────────

TEST(View, CopyIntoExpandedTensorIsInternalOverlap) {
  EXPECT_ERROR(zeros({3}).expand({2, 3}).copy_(ones({2, 3})),
               "[copy_] unsupported operation: more than one element of the written-to tensor "
               "refers to a single memory location. Please clone() the tensor before performing "
               "the operation.");
}

// ── Squeeze / flatten edge cases ────────────────────────────────────────────────────────────

TEST(View, FlattenErrors) {
  EXPECT_ERROR(zeros({2, 3}).flatten(1, 0), "[flatten]");
  EXPECT_ERROR(zeros({2, 3}).flatten(2), "dimension out of range");
}

// ── Devices ─────────────────────────────────────────────────────────────────────────────────

TEST(View, DeviceParsing) {
  Device d("cuda:1");
  EXPECT_TRUE(d.is_cuda());
  EXPECT_EQ(d.index(), 1);
  EXPECT_EQ(d.str(), "cuda:1");
  EXPECT_EQ(Device("cuda").index(), -1);
  EXPECT_TRUE(Device("cpu").is_cpu());
  EXPECT_EQ(Device(kCUDA, 0).str(), "cuda:0");
  EXPECT_EQ(Device("cuda:1"), Device(kCUDA, 1));
  EXPECT_ERROR(Device("tpu"), "[device]");
  EXPECT_ERROR(Device("cuda:x"), "invalid device string: 'cuda:x'");
  EXPECT_ERROR(Device("cuda:"), "invalid device string");
  EXPECT_ERROR(Device("cuda:-1"), "invalid device string");
}

