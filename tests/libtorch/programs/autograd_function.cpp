// LibTorch's custom autograd functions and the autograd spellings around them: Function<T> with
// AutogradContext (save_for_backward, get_saved_variables, saved_data with IValue, needs_input_grad,
// mark_non_differentiable), variable_list, autograd::grad with create_graph, NoGradGuard,
// AutoGradMode, Tensor::data(), operator[], accessor<T, N>().
#include <torch/torch.h>

#include <cstdio>

using namespace torch::autograd;

// y = scale * x * w + shift, with backward written by hand.
struct ScaledProduct : public Function<ScaledProduct> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x, torch::Tensor w,
                               double scale, int64_t shift) {
    ctx->save_for_backward({x, w});
    ctx->saved_data["scale"] = scale;
    ctx->saved_data["shift"] = shift;
    return x * w * scale + shift;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    auto saved = ctx->get_saved_variables();
    const double scale = ctx->saved_data["scale"].toDouble();
    auto g = grad_outputs[0] * scale;
    torch::Tensor grad_x = ctx->needs_input_grad(0) ? g * saved[1] : torch::Tensor();
    torch::Tensor grad_w = ctx->needs_input_grad(1) ? g * saved[0] : torch::Tensor();
    return {grad_x, grad_w, torch::Tensor(), torch::Tensor()};
  }
};

// Returns the sorted values and their (non-differentiable) indices.
struct SortWithIndices : public Function<SortWithIndices> {
  static variable_list forward(AutogradContext* ctx, torch::Tensor x) {
    auto sorted = x.sort();
    auto values = std::get<0>(sorted), indices = std::get<1>(sorted);
    ctx->mark_non_differentiable({indices});
    ctx->save_for_backward({indices});
    return {values, indices};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    auto indices = ctx->get_saved_variables()[0];
    auto grad = torch::zeros_like(grad_outputs[0]);
    grad.scatter_(0, indices, grad_outputs[0]);
    return {grad};
  }
};

int main() {
  torch::manual_seed(3);
  auto x = torch::randn({4}, torch::requires_grad());
  auto w = torch::randn({4}, torch::TensorOptions().requires_grad(true));
  auto y = ScaledProduct::apply(x, w, 0.5, 2);
  std::printf("forward: %.5f, node %s\n", y.sum().item<float>(), y.grad_fn()->name().c_str());
  y.sum().backward();
  std::printf("grad x: %.5f %.5f\n", x.grad()[0].item<float>(), x.grad().sum().item<float>());
  std::printf("grad w: %.5f\n", w.grad().sum().item<float>());

  auto v = torch::randn({5}, torch::requires_grad());
  auto outputs = SortWithIndices::apply(v);
  std::printf("sorted: first %.5f, indices need grad %d, index 0 = %lld\n",
              outputs[0][0].item<float>(), outputs[1].requires_grad(),
              static_cast<long long>(outputs[1][0].item<int64_t>()));
  (outputs[0] * torch::arange(5, torch::kFloat)).sum().backward();
  auto g = v.grad().accessor<float, 1>();
  std::printf("grad v: %.1f %.1f %.1f %.1f %.1f\n", g[0], g[1], g[2], g[3], g[4]);

  // Second order: d/dx of (dy/dx)^2 through autograd::grad with create_graph.
  auto a = torch::randn({3}, torch::requires_grad());
  auto b = (a * a * a).sum();
  auto first = torch::autograd::grad({b}, {a}, /*grad_outputs=*/{}, /*retain_graph=*/true,
                                     /*create_graph=*/true)[0];
  first.pow(2).sum().backward();
  std::printf("second order: %.5f\n", a.grad().sum().item<float>());

  {
    torch::NoGradGuard no_grad;
    std::printf("no grad: %d\n", (a * 2).requires_grad());
  }
  {
    torch::AutoGradMode enable(false);
    std::printf("grad mode off: %d\n", (a * 2).requires_grad());
  }
  auto p = torch::ones({2, 2}, torch::requires_grad());
  p.data().mul_(3);
  std::printf("data(): %.1f, requires_grad %d, data().requires_grad %d\n",
              p.sum().item<float>(), p.requires_grad(), p.data().requires_grad());

  auto m = torch::arange(6, torch::kFloat).view({2, 3});
  auto acc = m.accessor<float, 2>();
  acc[1][1] = 40;
  std::printf("accessor: %.1f, sizes %lld x %lld, m[1][1] = %.1f\n", acc[0][2],
              static_cast<long long>(acc.size(0)), static_cast<long long>(acc.size(1)),
              m[1][1].item<float>());
  return 0;
}
