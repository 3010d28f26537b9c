// Gradients of views, shape ops, copies and joins (src/ops/view.cpp, copy.cpp, join.cpp,
// rearrange.cpp): node names as PyTorch 1.13, gradcheck and gradgradcheck, non-contiguous
// inputs, 0-d tensors and multi-output ops.
#include "grad_table.h"

namespace ember::gradtest {
namespace {

Tensor sum_all(const std::vector<Tensor>& parts) {
  Tensor s = parts[0] * 1;
  for (size_t i = 1; i < parts.size(); ++i) s = s + parts[i] * double(i + 1);
  return s;
}

// clang-format off
const GradCase kCases[] = {
    {"view", "ViewBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return t[0].view({2, 6}); }},
    {"view_0d", "ViewBackward0", [] { return In{x({})}; },
     [](const In& t) { return t[0].view({1, 1}); }},
    {"view_as", "ViewBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return t[0].view_as(zeros({12})); }},
    {"reshape_alias", "ReshapeAliasBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return t[0].reshape({4, -1}); }},
    {"reshape_copy", "UnsafeViewBackward0", [] { return In{xt({3, 4})}; },
     [](const In& t) { return t[0].reshape({12}); }},
    {"flatten", "ReshapeAliasBackward0", [] { return In{x({2, 3, 2})}; },
     [](const In& t) { return t[0].flatten(1); }},
    {"flatten_nc", "UnsafeViewBackward0", [] { return In{xt({3, 4})}; },
     [](const In& t) { return t[0].flatten(); }},
    {"unflatten", "ViewBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return t[0].unflatten(1, {2, 2}); }},
    {"expand", "ExpandBackward0", [] { return In{x({3, 1})}; },
     [](const In& t) { return t[0].expand({2, 3, 4}); }},
    {"expand_0d", "ExpandBackward0", [] { return In{x({})}; },
     [](const In& t) { return t[0].expand({3}); }},
    {"expand_as_nc", "ExpandBackward0", [] { return In{xt({4, 1})}; },
     [](const In& t) { return t[0].expand_as(zeros({3, 4, 5})); }},
    {"unsqueeze", "UnsqueezeBackward0", [] { return In{xt({3, 4})}; },
     [](const In& t) { return t[0].unsqueeze(-2); }},
    {"unsqueeze_0d", "UnsqueezeBackward0", [] { return In{x({})}; },
     [](const In& t) { return t[0].unsqueeze(0); }},
    {"squeeze_all", "SqueezeBackward0", [] { return In{x({1, 3, 1, 2})}; },
     [](const In& t) { return t[0].squeeze(); }},
    {"squeeze_dim", "SqueezeBackward1", [] { return In{x({3, 1, 2})}; },
     [](const In& t) { return t[0].squeeze(1); }},
    {"squeeze_dim_noop", "SqueezeBackward1", [] { return In{x({3, 2})}; },
     [](const In& t) { return t[0].squeeze(1); }},
    {"squeeze_dims", "SqueezeBackward2", [] { return In{x({1, 3, 1, 2})}; },
     [](const In& t) { return t[0].squeeze(IntArrayRef({0, 2})); }},
    {"permute", "PermuteBackward0", [] { return In{x({2, 3, 4})}; },
     [](const In& t) { return t[0].permute({2, 0, 1}); }},
    {"movedim", "PermuteBackward0", [] { return In{x({2, 3, 4})}; },
     [](const In& t) { return t[0].movedim(0, 2); }},
    {"T", "PermuteBackward0", [] { return In{x({2, 3, 4})}; },
     [](const In& t) { return t[0].T(); }},
    {"transpose", "TransposeBackward0", [] { return In{x({2, 3, 4})}; },
     [](const In& t) { return t[0].transpose(0, -1); }},
    {"mT", "TransposeBackward0", [] { return In{x({2, 3, 4})}; },
     [](const In& t) { return t[0].mT(); }},
    {"t", "TBackward0", [] { return In{xt({3, 4})}; },
     [](const In& t) { return t[0].t(); }},
    {"t_1d", "TBackward0", [] { return In{x({3})}; }, [](const In& t) { return t[0].t(); }},
    {"select", "SelectBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return t[0].select(1, -1); }},
    {"select_nc", "SelectBackward0", [] { return In{xt({3, 4})}; },
     [](const In& t) { return t[0].select(0, 1); }},
    {"slice", "SliceBackward0", [] { return In{x({5, 4})}; },
     [](const In& t) { return t[0].slice(0, 1, -1); }},
    {"slice_step", "SliceBackward0", [] { return In{xt({3, 7})}; },
     [](const In& t) { return t[0].slice(1, 1, {}, 2); }},
    {"narrow", "SliceBackward0", [] { return In{x({3, 5})}; },
     [](const In& t) { return t[0].narrow(1, 1, 3); }},
    {"diagonal", "DiagonalBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return t[0].diagonal(1); }},
    {"diagonal_3d", "DiagonalBackward0", [] { return In{x({2, 3, 4})}; },
     [](const In& t) { return t[0].diagonal(-1, 2, 1); }},
    {"unfold", "UnfoldBackward0", [] { return In{x({7})}; },
     [](const In& t) { return t[0].unfold(0, 3, 2); }},
    {"unfold_gaps", "UnfoldBackward0", [] { return In{x({2, 7})}; },
     [](const In& t) { return t[0].unfold(1, 2, 3); }},
    {"as_strided", "AsStridedBackward0", [] { return In{x({3, 4})}; },
     [](const In& t) { return t[0].as_strided({2, 2}, {1, 2}, 1); }},
    {"as_strided_overlap", "AsStridedBackward0", [] { return In{x({6})}; },
     [](const In& t) { return t[0].as_strided({3, 3}, {1, 1}); }},
    {"alias", "AliasBackward0", [] { return In{x({3})}; },
     [](const In& t) { return t[0].alias(); }},
    {"split", "", [] { return In{x({5, 2})}; },
     [](const In& t) { return sum_all(t[0].split(2)); }},
    {"split_sizes", "", [] { return In{x({2, 5})}; },
     [](const In& t) { return sum_all(t[0].split_with_sizes({1, 3, 1}, 1)); }},
    {"split_one_used", "SplitBackward0", [] { return In{x({5, 2})}; },
     [](const In& t) { return t[0].split(2)[1]; }},
    {"chunk", "SplitBackward0", [] { return In{xt({3, 6})}; },
     [](const In& t) { return t[0].chunk(4, 1)[1]; }},
    {"unbind", "UnbindBackward0", [] { return In{x({3, 2})}; },
     [](const In& t) { return t[0].unbind(1)[0]; }},
    {"unbind_all", "", [] { return In{x({3, 2})}; },
     [](const In& t) { return sum_all(t[0].unbind(0)); }},
    {"contiguous", "CloneBackward0", [] { return In{xt({3, 4})}; },
     [](const In& t) { return t[0].contiguous(); }},
    {"clone", "CloneBackward0", [] { return In{xt({3, 4})}; },
     [](const In& t) { return t[0].clone(); }},
    {"to_float32_and_back",
     "ToCopyBackward0",
     [] { return In{x({3})}; },
     [](const In& t) { return t[0].to(kFloat32).to(kFloat64); },
     true,
     {.eps = 1e-3, .atol = 1e-3, .rtol = 1e-2}},
    {"copy_", "CopyBackwards", [] { return In{x({3, 4}), x({4})}; },
     [](const In& t) {
       Tensor a = t[0] * 1;
       a.copy_(t[1]);
       return a;
     }},
    {"copy_then_use", "", [] { return In{x({3, 4}), x({4})}; },
     [](const In& t) {
       Tensor a = t[0] * 1;
       a.copy_(t[1]);
       return a * t[0];
     }},
    {"cat", "CatBackward0", [] { return In{x({2, 3}), xt({4, 3}), x({1, 3})}; },
     [](const In& t) { return cat({t[0], t[1], t[2]}, 0); }},
    {"cat_skips_empty", "CatBackward0", [] { return In{x({2, 3}), x({0})}; },
     [](const In& t) { return cat({t[0], t[1]}, 1); }},
    {"stack", "StackBackward0", [] { return In{x({2, 3}), xt({2, 3})}; },
     [](const In& t) { return stack({t[0], t[1]}, 1); }},
    {"stack_0d", "StackBackward0", [] { return In{x({}), x({})}; },
     [](const In& t) { return stack({t[0], t[1]}); }},
    {"hstack", "CatBackward0", [] { return In{x({2}), x({3})}; },
     [](const In& t) { return hstack({t[0], t[1]}); }},
    {"vstack", "CatBackward0", [] { return In{x({2}), x({3, 2})}; },
     [](const In& t) { return vstack({t[0], t[1]}); }},
    {"repeat", "RepeatBackward0", [] { return In{xt({2, 3})}; },
     [](const In& t) { return t[0].repeat({2, 1, 3}); }},
    {"repeat_0d", "RepeatBackward0", [] { return In{x({})}; },
     [](const In& t) { return t[0].repeat({3}); }},
};
// clang-format on

EMBER_GRAD_TABLE(View, kCases);

TEST(ViewGrad, DetachLeavesTheGraph) {
  Tensor a = x({3});
  Tensor d = (a * 2).detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_FALSE(d.grad_fn());
}

TEST(ViewGrad, ContiguousOfContiguousIsTheInput) {
  Tensor a = x({3}) * 2;
  EXPECT_TRUE(a.contiguous().is_same(a));
  EXPECT_TRUE(a.flatten(0, 0).is_same(a));
}

TEST(ViewGrad, ViewsOfLeavesReachTheLeaf) {
  Tensor a = x({2, 3});
  Tensor v = a.t().select(0, 1);
  EXPECT_EQ(v.grad_fn()->next_functions()[0].function->name(), "TBackward0");
  v.sum().backward();
  EXPECT_EQ(a.grad().tolist<double>(), (std::vector<double>{0, 1, 0, 0, 1, 0}));
}

TEST(ViewGrad, ReshapeCopyClonesFirst) {
  Tensor a = xt({3, 4});
  Tensor r = a.reshape({12});
  EXPECT_EQ(r.grad_fn()->next_functions()[0].function->name(), "CloneBackward0");
}

TEST(ViewGrad, UnusedSplitPiecesGetZeros) {
  Tensor a = x({4});
  auto parts = a.split(1);
  parts[2].sum().backward();
  EXPECT_EQ(a.grad().tolist<double>(), (std::vector<double>{0, 0, 1, 0}));
}

TEST(ViewGrad, FillAndZeroCutTheGradient) {
  Tensor a = x({3});
  Tensor b = a * 1;
  b.fill_(2);
  EXPECT_EQ(b.grad_fn()->name(), "FillBackward2");
  (b * a).sum().backward();
  EXPECT_EQ(a.grad().tolist<double>(), (std::vector<double>{2, 2, 2}));
  Tensor c = a * 1;
  c.zero_();
  EXPECT_EQ(c.grad_fn()->name(), "ZeroBackward0");
  Tensor v = x({});
  Tensor e = a * 1;
  e.fill_(v);
  EXPECT_EQ(e.grad_fn()->name(), "FillBackward3");
  e.sum().backward();
  EXPECT_EQ(v.grad().item<double>(), 3);
}

TEST(ViewGrad, CopyIntoALeafIsRefused) {
  Tensor a = x({3});
  try {
    a.copy_(zeros({3}));
    FAIL() << "copy_ into a leaf that requires grad must fail";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a leaf Variable that requires grad"), std::string::npos)
        << e.what();
  }
}

TEST(ViewGrad, ToFloat32CastsTheGradientBack) {
  Tensor a = x({3});
  Tensor f = a.to(kFloat32);
  EXPECT_EQ(f.dtype(), kFloat32);
  f.sum().backward();
  EXPECT_EQ(a.grad().dtype(), kFloat64);
  EXPECT_EQ(a.grad().tolist<double>(), (std::vector<double>{1, 1, 1}));
}

TEST(ViewGrad, NoGradRecordsNothing) {
  Tensor a = x({2, 3});
  NoGradGuard guard;
  EXPECT_FALSE(a.view({6}).requires_grad());
  EXPECT_FALSE(a.t().grad_fn());
  EXPECT_FALSE(cat({a, a}).requires_grad());
}

}  // namespace
}  // namespace ember::gradtest
