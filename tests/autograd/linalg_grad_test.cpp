// Gradients of the matrix products (src/ops/linalg.cpp) and einsum (src/ops/einsum.cpp): the
// primitives' nodes (MmBackward0, BmmBackward0, AddmmBackward0, ...), matmul over every rank
// combination and batch broadcasting, linear, with non-contiguous and broadcast operands.
#include "grad_table.h"

namespace ember::gradtest {
namespace {

// 3-d leaf of shape `shape` whose last two dims are transposed in memory.
Tensor xbt(IntArrayRef shape) {
  Tensor base = x({shape[0], shape[2], shape[1]}).detach();
  return base.transpose(1, 2).requires_grad_();
}

const GradCase kCases[] = {
    // ── primitives ──
    {"mm", "MmBackward0", [] { return In{x({3, 4}), x({4, 5})}; },
     [](const In& t) { return mm(t[0], t[1]); }},
    {"mm_transposed", "MmBackward0", [] { return In{xt({3, 4}), xt({4, 2})}; },
     [](const In& t) { return mm(t[0], t[1]); }},
    {"mm_constant_rhs", "MmBackward0", [] { return In{x({3, 4}), c({4, 2})}; },
     [](const In& t) { return mm(t[0], t[1]); }},
    {"bmm", "BmmBackward0", [] { return In{x({2, 3, 4}), x({2, 4, 5})}; },
     [](const In& t) { return bmm(t[0], t[1]); }},
    {"bmm_transposed", "BmmBackward0", [] { return In{xbt({2, 3, 4}), xbt({2, 4, 2})}; },
     [](const In& t) { return bmm(t[0], t[1]); }},
    {"mv", "MvBackward0", [] { return In{x({3, 4}), x({4})}; },
     [](const In& t) { return mv(t[0], t[1]); }},
    {"mv_transposed", "MvBackward0", [] { return In{xt({3, 4}), x({4})}; },
     [](const In& t) { return mv(t[0], t[1]); }},
    {"dot", "DotBackward0", [] { return In{x({5}), x({5})}; },
     [](const In& t) { return dot(t[0], t[1]); }},
    {"vdot", "VdotBackward0", [] { return In{x({5}), x({5})}; },
     [](const In& t) { return vdot(t[0], t[1]); }},
    {"addmm", "AddmmBackward0", [] { return In{x({3, 5}), x({3, 4}), x({4, 5})}; },
     [](const In& t) { return addmm(t[0], t[1], t[2]); }},
    {"addmm_broadcast_scaled", "AddmmBackward0", [] { return In{x({5}), xt({3, 4}), x({4, 5})}; },
     [](const In& t) { return addmm(t[0], t[1], t[2], {.beta = 0.5, .alpha = -2}); }},
    {"addmm_0d_self", "AddmmBackward0", [] { return In{x({}), x({3, 4}), x({4, 2})}; },
     [](const In& t) { return addmm(t[0], t[1], t[2], {.beta = 2}); }},
    {"addmv", "AddmvBackward0", [] { return In{x({3}), x({3, 4}), x({4})}; },
     [](const In& t) { return addmv(t[0], t[1], t[2], {.beta = 0.5, .alpha = 3}); }},
    {"addmv_broadcast", "AddmvBackward0", [] { return In{x({1}), xt({3, 4}), x({4})}; },
     [](const In& t) { return addmv(t[0], t[1], t[2]); }},
    {"baddbmm", "BaddbmmBackward0", [] { return In{x({2, 3, 5}), x({2, 3, 4}), x({2, 4, 5})}; },
     [](const In& t) { return baddbmm(t[0], t[1], t[2], {.beta = -1, .alpha = 0.5}); }},
    {"baddbmm_broadcast", "BaddbmmBackward0", [] { return In{x({3, 1}), xbt({2, 3, 4}), x({2, 4, 5})}; },
     [](const In& t) { return baddbmm(t[0], t[1], t[2]); }},
    {"addbmm", "AddbmmBackward0", [] { return In{x({3, 5}), x({2, 3, 4}), x({2, 4, 5})}; },
     [](const In& t) { return addbmm(t[0], t[1], t[2], {.beta = 2, .alpha = 0.5}); }},
    {"addbmm_broadcast", "AddbmmBackward0", [] { return In{x({5}), xbt({2, 3, 4}), x({2, 4, 5})}; },
     [](const In& t) { return addbmm(t[0], t[1], t[2]); }},
    {"outer", "MulBackward0", [] { return In{x({3}), x({4})}; },
     [](const In& t) { return outer(t[0], t[1]); }},
    // ── matmul: every rank combination ──
    {"matmul_1d_1d", "DotBackward0", [] { return In{x({4}), x({4})}; },
     [](const In& t) { return matmul(t[0], t[1]); }},
    {"matmul_2d_1d", "MvBackward0", [] { return In{x({3, 4}), x({4})}; },
     [](const In& t) { return matmul(t[0], t[1]); }},
    {"matmul_1d_2d", "", [] { return In{x({4}), x({4, 3})}; },
     [](const In& t) { return matmul(t[0], t[1]); }},
    {"matmul_2d_2d", "MmBackward0", [] { return In{xt({3, 4}), x({4, 2})}; },
     [](const In& t) { return matmul(t[0], t[1]); }},
    {"matmul_3d_2d", "", [] { return In{x({2, 3, 4}), x({4, 5})}; },
     [](const In& t) { return matmul(t[0], t[1]); }},
    {"matmul_3d_1d", "", [] { return In{x({2, 3, 4}), x({4})}; },
     [](const In& t) { return matmul(t[0], t[1]); }},
    {"matmul_3d_noncontig_2d", "", [] { return In{xbt({2, 3, 4}), x({4, 5})}; },
     [](const In& t) { return matmul(t[0], t[1]); }},
    {"matmul_1d_3d", "", [] { return In{x({4}), x({2, 4, 3})}; },
     [](const In& t) { return matmul(t[0], t[1]); }},
    {"matmul_2d_3d", "", [] { return In{x({3, 4}), x({2, 4, 5})}; },
     [](const In& t) { return matmul(t[0], t[1]); }},
    {"matmul_3d_3d", "", [] { return In{x({2, 3, 4}), xbt({2, 4, 5})}; },
     [](const In& t) { return matmul(t[0], t[1]); }},
    {"matmul_batch_broadcast", "", [] { return In{x({2, 1, 3, 4}), x({3, 4, 2})}; },
     [](const In& t) { return matmul(t[0], t[1]); }},
    // ── linear ──
    {"linear_2d", "AddmmBackward0", [] { return In{x({3, 4}), x({5, 4}), x({5})}; },
     [](const In& t) { return linear(t[0], t[1], t[2]); }},
    {"linear_2d_nobias", "MmBackward0", [] { return In{xt({3, 4}), x({5, 4})}; },
     [](const In& t) { return linear(t[0], t[1]); }},
    {"linear_3d", "", [] { return In{x({2, 3, 4}), x({5, 4}), x({5})}; },
     [](const In& t) { return linear(t[0], t[1], t[2]); }},
    {"linear_1d", "", [] { return In{x({4}), x({5, 4}), x({5})}; },
     [](const In& t) { return linear(t[0], t[1], t[2]); }},
    // ── einsum (composite over permute/reshape/sum/bmm) ──
    {"einsum_mm", "", [] { return In{x({3, 4}), xt({4, 2})}; },
     [](const In& t) { return einsum("ij,jk->ik", {t[0], t[1]}); }},
    {"einsum_batch_outer", "", [] { return In{x({2, 3}), x({2, 4})}; },
     [](const In& t) { return einsum("bi,bj->bij", {t[0], t[1]}); }},
    {"einsum_trace_sum", "", [] { return In{x({3, 3})}; },
     [](const In& t) { return einsum("ii->", {t[0]}); }},
    {"einsum_three", "", [] { return In{x({2, 3}), x({3, 4}), x({4})}; },
     [](const In& t) { return einsum("ij,jk,k->i", {t[0], t[1], t[2]}); }},
    {"einsum_ellipsis", "", [] { return In{x({2, 3, 4}), x({4, 5})}; },
     [](const In& t) { return einsum("...k,kn->...n", {t[0], t[1]}); }},
};

EMBER_GRAD_TABLE(Linalg, kCases);

TEST(LinalgGrad, OnlyInputsThatRequireGradGetOne) {
  Tensor a = ones({2, 3}, {.dtype = kFloat64, .requires_grad = true});
  Tensor b = ones({3, 4}, {.dtype = kFloat64});
  mm(a, b).sum().backward();
  EXPECT_EQ(a.grad().sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(a.grad().select(0, 0).select(0, 0).item<double>(), 4);
  EXPECT_FALSE(b.grad().defined());
}

TEST(LinalgGrad, AddmmBetaZeroGivesZeroSelfGradient) {
  Tensor s = ones({2, 2}, {.dtype = kFloat64, .requires_grad = true});
  Tensor m = ones({2, 2}, {.dtype = kFloat64, .requires_grad = true});
  addmm(s, m, m, {.beta = 0}).sum().backward();
  EXPECT_EQ(s.grad().abs().sum().item<double>(), 0);
  EXPECT_EQ(m.grad().select(0, 0).select(0, 0).item<double>(), 4);
}

}  // namespace
}  // namespace ember::gradtest
