// Custom autograd functions in C++ (autograd::Function<T>): gradients against the same math
// written with ops, saved tensors and saved_data, needs_input_grad, non-differentiable and dirty
// outputs, materialized gradients, tensor-list arguments, double backward, and the errors.
#include <gtest/gtest.h>

#include "ember/ember.h"

namespace ember::autograd {
namespace {

// y = x @ w^T + b, b optional: LibTorch's tutorial function, written here.
struct LinearFn : Function<LinearFn> {
  static Tensor forward(AutogradContext* ctx, Tensor x, Tensor w, Tensor b = Tensor()) {
    ctx->save_for_backward({x, w, b});
    Tensor y = x.mm(w.t());
    if (b.defined()) y = y + b.unsqueeze(0).expand_as(y);
    return y;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    variable_list s = ctx->get_saved_variables();
    const Tensor& g = grads[0];
    Tensor gb = s[2].defined() ? g.sum(0) : Tensor();
    return {g.mm(s[1]), g.t().mm(s[0]), gb};
  }
};

struct Scale : Function<Scale> {
  static Tensor forward(AutogradContext* ctx, Tensor x, double c) {
    ctx->saved_data["c"] = c;
    return x * c;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {grads[0] * ctx->saved_data["c"].to_double(), Tensor()};
  }
};

TEST(CustomFunction, GradientsEqualTheOpsAndTheNodeIsNamedAfterTheClass) {
  manual_seed(0);
  Tensor x = randn({3, 4}, {.dtype = kFloat64}).requires_grad_();
  Tensor w = randn({2, 4}, {.dtype = kFloat64}).requires_grad_();
  Tensor b = randn({2}, {.dtype = kFloat64}).requires_grad_();
  Tensor y = LinearFn::apply(x, w, b);
  EXPECT_EQ(y.grad_fn()->name(), "ember::autograd::(anonymous namespace)::LinearFn");
  (y * y).sum().backward();
  Tensor gx = x.grad().clone(), gw = w.grad().clone(), gb = b.grad().clone();
  x.mutable_grad() = Tensor(), w.mutable_grad() = Tensor(), b.mutable_grad() = Tensor();
  Tensor ref = x.mm(w.t()) + b;
  (ref * ref).sum().backward();
  EXPECT_TRUE(gx.allclose(x.grad(), 1e-12, 1e-12));
  EXPECT_TRUE(gw.allclose(w.grad(), 1e-12, 1e-12));
  EXPECT_TRUE(gb.allclose(b.grad(), 1e-12, 1e-12));
  // The optional argument left out: two arguments, two gradients.
  x.mutable_grad() = Tensor();
  LinearFn::apply(x, w).sum().backward();
  EXPECT_TRUE(x.grad().allclose(w.sum(0).expand({3, 4}), 1e-12, 1e-12));
}

TEST(CustomFunction, SavedDataAndNonTensorArguments) {
  Tensor x = ones({2}).requires_grad_();
  Scale::apply(x, 5.5).sum().backward();
  EXPECT_TRUE(x.grad().equal(full({2}, 5.5)));
}

TEST(CustomFunction, GradcheckInFloat64) {
  manual_seed(1);
  Tensor x = randn({2, 3}, {.dtype = kFloat64}).requires_grad_();
  Tensor w = randn({4, 3}, {.dtype = kFloat64}).requires_grad_();
  EXPECT_TRUE(gradcheck([](const std::vector<Tensor>& in) { return LinearFn::apply(in[0], in[1]); },
                        {x, w}));
}

struct Cube : Function<Cube> {  // backward in differentiable ops: double backward works
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    ctx->save_for_backward({x});
    return x * x * x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    Tensor x = ctx->get_saved_variables()[0];
    return {grads[0] * 3 * x * x};
  }
};

TEST(CustomFunction, DoubleBackwardThroughTheBackwardsOps) {
  Tensor x = full({1}, 2.0, {.dtype = kFloat64}).requires_grad_();
  Tensor y = Cube::apply(x);
  Tensor g = grad({y}, {x}, {.create_graph = true})[0];
  EXPECT_DOUBLE_EQ(g.item<double>(), 12.0);
  Tensor gg = grad({g}, {x})[0];
  EXPECT_DOUBLE_EQ(gg.item<double>(), 12.0);  // d(3x^2)/dx = 6x
}

struct SortWithIndices : Function<SortWithIndices> {
  static variable_list forward(AutogradContext* ctx, Tensor x) {
    auto [values, indices] = x.sort(0);
    ctx->mark_non_differentiable({indices});
    ctx->save_for_backward({indices});
    ctx->saved_data["n"] = x.size(0);
    return {values, indices};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    EXPECT_FALSE(grads[1].defined() && grads[1].ne(0).any().item<bool>());
    Tensor indices = ctx->get_saved_variables()[0];
    Tensor g = zeros({ctx->saved_data["n"].to_int()}, {.dtype = grads[0].dtype()});
    g.index_put_({indices}, grads[0]);
    return {g};
  }
};

TEST(CustomFunction, NonDifferentiableOutputsAndMaterializedGradients) {
  Tensor x = tensor({3.0, 1.0, 2.0}).requires_grad_();
  variable_list out = SortWithIndices::apply(x);
  EXPECT_TRUE(out[0].requires_grad());
  EXPECT_FALSE(out[1].requires_grad());
  (out[0] * tensor({1.0, 10.0, 100.0})).sum().backward();
  EXPECT_TRUE(x.grad().equal(tensor({100.0, 1.0, 10.0})));
}

struct AddOneInPlace : Function<AddOneInPlace> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    x.add_(1);
    ctx->mark_dirty({x});
    return x;
  }
  static variable_list backward(AutogradContext*, variable_list grads) { return {grads[0]}; }
};

struct Identity : Function<Identity> {
  static Tensor forward(AutogradContext*, Tensor x) { return x; }
  static variable_list backward(AutogradContext*, variable_list grads) { return {grads[0] * 2}; }
};

TEST(CustomFunction, DirtyInputsMoveTheirHistoryAndReturnedInputsAreAliases) {
  Tensor leaf = ones({2}).requires_grad_();
  Tensor x = leaf * 1;
  Tensor y = AddOneInPlace::apply(x);
  EXPECT_TRUE(y.is_same(x));
  EXPECT_EQ(x.grad_fn()->name(), "ember::autograd::(anonymous namespace)::AddOneInPlace");
  y.sum().backward();
  EXPECT_TRUE(leaf.grad().equal(ones({2})));

  Tensor a = ones({2}).requires_grad_();
  Tensor b = Identity::apply(a);
  EXPECT_FALSE(b.is_same(a));
  EXPECT_TRUE(a.grad_fn() == nullptr);
  b.sum().backward();
  EXPECT_TRUE(a.grad().equal(full({2}, 2.0)));
}

struct SumList : Function<SumList> {
  static Tensor forward(AutogradContext* ctx, variable_list xs, int64_t unused) {
    (void)unused;
    ctx->saved_data["count"] = int64_t(xs.size());
    EXPECT_TRUE(ctx->needs_input_grad(0));
    EXPECT_FALSE(ctx->needs_input_grad(1));
    Tensor s = xs[0];
    for (size_t i = 1; i < xs.size(); ++i) s = s + xs[i];
    return s;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    variable_list out(size_t(ctx->saved_data["count"].to_int()), grads[0]);
    out.emplace_back();  // the int64_t argument
    return out;
  }
};

TEST(CustomFunction, TensorListArgumentsCountOnePerTensor) {
  Tensor a = ones({2}).requires_grad_(), b = ones({2});
  SumList::apply(variable_list{a, b}, int64_t(7)).sum().backward();
  EXPECT_TRUE(a.grad().equal(ones({2})));
}

struct TooFewGrads : Function<TooFewGrads> {
  static Tensor forward(AutogradContext*, Tensor x, double) { return x * 2; }
  static variable_list backward(AutogradContext*, variable_list grads) { return {grads[0]}; }
};

struct GradForANumber : Function<GradForANumber> {
  static Tensor forward(AutogradContext*, Tensor x, double) { return x * 2; }
  static variable_list backward(AutogradContext*, variable_list grads) {
    return {grads[0], grads[0]};
  }
};

TEST(CustomFunction, BackwardReturningTheWrongGradientsIsAnError) {
  Tensor x = ones({2}).requires_grad_();
  try {
    TooFewGrads::apply(x, 1.0).sum().backward();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("incorrect number of gradients (expected 2, got 1)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(GradForANumber::apply(x, 1.0).sum().backward(), Error);
}

TEST(CustomFunction, WithoutGradNothingIsRecordedAndSavedTensorsStillRead) {
  struct Probe : Function<Probe> {
    static Tensor forward(AutogradContext* ctx, Tensor x) {
      EXPECT_FALSE(is_grad_enabled());
      ctx->save_for_backward({x});
      EXPECT_EQ(ctx->get_saved_variables().size(), 1u);
      return x + 1;
    }
    static variable_list backward(AutogradContext*, variable_list grads) { return grads; }
  };
  Tensor x = ones({2}).requires_grad_();
  {
    NoGradGuard no_grad;
    EXPECT_FALSE(Probe::apply(x).requires_grad());
  }
  EXPECT_TRUE(is_grad_enabled());
  EXPECT_FALSE(Probe::apply(ones({2})).requires_grad());
  EXPECT_TRUE(is_grad_enabled());
  EXPECT_TRUE(Probe::apply(x).requires_grad());
}

}  // namespace
}  // namespace ember::autograd
