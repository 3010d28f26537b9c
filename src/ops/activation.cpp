// Pointwise activations: sigmoid, logit, relu family, elu/selu, gelu (exact and tanh), silu,
// hardshrink, mish, softplus, hardtanh, hardsigmoid, hardswish: the front ends and gradients; each kernel is
// an ElementwiseKernel identity (the CPU's in src/backend/cpu/activation.cpp). F::prelu, at the
// bottom, is composed of where and mul.
#include "ember/activation.h"

#include <cmath>
#include <limits>

#include "ember/creation.h"
#include "ember/math.h"
#include "ember/nn/functional/layers.h"
#include "ops/elementwise.h"
#include "ops/op_prelude.h"
#include "ops/unary_op.h"

namespace ember {
namespace {

using backend::ElementwiseKernel;
using unary_op::Keep;
using unary_op::UnaryOp;
using unary_op::unary;
using unary_op::unary_;

Tensor zero_where(const Tensor& cond, const Tensor& g) { return where(cond, 0, g); }

// PyTorch's threshold_backward(grad, self, threshold): nothing passes where self <= threshold
// (so relu'(0) = 0 and a NaN lets the gradient through). One fused pass rather than a
// comparison and a where — relu's backward is a large share of a CNN's step. Differentiable in
// grad (ThresholdBackwardBackward0 applies the same mask); self's derivative is zero.
Tensor threshold_backward(const Tensor& grad, const Tensor& self, double threshold) {
  Recorder rec("threshold_backward", {&grad});
  Tensor out = elementwise("threshold_backward", ElementwiseKernel::threshold_backward,
                           Promote::Default, {grad, self}, {.real = {threshold}});
  if (rec)
    rec.record("ThresholdBackwardBackward0", {out}, {self},
               [threshold](const Grads& g, const Saved& s) {
                 return TensorList{threshold_backward(g[0], s[0], threshold)};
               });
  return out;
}

// derivatives.yaml's formulas, in differentiable ops (so double backward works).
Tensor sigmoid_grad(const Tensor& g, const Tensor& y) { return g * (1 - y) * y; }
Tensor relu_grad(const Tensor& g, const Tensor& y) { return threshold_backward(g, y, 0); }

// Activations keep their input for the backward unless said otherwise, and take floating inputs
// only (PyTorch has no integer kernels for them: "not implemented for 'Long'"), except sigmoid
// and logit, unary float ops whose integer inputs give the default float dtype.
UnaryOp activation(const char* op, const char* node, unary_op::UnaryGrad grad,
                   ElementwiseKernel kernel, backend::ElementwiseArgs args = {}) {
  return {.op = op, .inplace = nullptr, .node = node, .keep = Keep::Input,
          .grad = std::move(grad), .kernel = kernel, .args = args};
}

// The activations with an in-place form (sigmoid_, relu_): one definition for both.
const UnaryOp& sigmoid_op() {
  static const UnaryOp d{.op = "sigmoid", .inplace = "sigmoid_", .node = "SigmoidBackward0",
                         .keep = Keep::Result, .grad = sigmoid_grad,
                         .kernel = ElementwiseKernel::sigmoid, .promote = Promote::IntToFloat};
  return d;
}
const UnaryOp& relu_op() {
  static const UnaryOp d{.op = "relu", .inplace = "relu_", .node = "ReluBackward0",
                         .keep = Keep::Result, .grad = relu_grad,
                         .kernel = ElementwiseKernel::relu};
  return d;
}

}  // namespace

Tensor sigmoid(const Tensor& t) { return unary(sigmoid_op(), t); }

Tensor logit(const Tensor& t, std::optional<double> eps) {
  // logit_backward: outside [eps, 1 - eps] nothing passes; without eps, outside [0, 1] is NaN.
  auto grad = [eps](const Tensor& g, const Tensor& x) {
    const Tensor d = g / (x * (1 - x));
    if (eps) return zero_where(logical_or(x < *eps, x > 1 - *eps), d);
    return where(logical_or(x < 0, x > 1), std::numeric_limits<double>::quiet_NaN(), d);
  };
  UnaryOp d = activation("logit", "LogitBackward0", grad, ElementwiseKernel::logit,
                         {.real = {eps ? *eps : 0.0, eps ? 1 - *eps : 1.0},
                          .flag = eps.has_value()});
  d.promote = Promote::IntToFloat;
  return unary(d, t);
}

Tensor relu(const Tensor& t) {
  EMBER_CHECK(t.dtype() != kBool, "relu", "not implemented for dtype ", t.dtype());
  return unary(relu_op(), t);
}

Tensor relu6(const Tensor& t) { return hardtanh(t, 0.0, 6.0); }

Tensor leaky_relu(const Tensor& t, double negative_slope) {
  auto grad = [negative_slope](const Tensor& g, const Tensor& x) {
    return where(x > 0, g, g * negative_slope);
  };
  return unary(activation("leaky_relu", "LeakyReluBackward0", grad, ElementwiseKernel::leaky_relu,
                          {.real = {negative_slope}}),
               t);
}

Tensor elu(const Tensor& t, double alpha, double scale, double input_scale) {
  auto grad = [=](const Tensor& g, const Tensor& x) {
    return where(x <= 0, g * (input_scale * alpha * scale) * (x * input_scale).exp(), g * scale);
  };
  return unary(activation("elu", "EluBackward0", grad, ElementwiseKernel::elu,
                          {.real = {alpha * scale, scale, input_scale}}),
               t);
}

Tensor selu(const Tensor& t) {
  return elu(t, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946);
}

namespace {

// gelu_backward: exact, d/dx x*Phi(x) = Phi(x) + x*phi(x); tanh, the derivative of the
// approximation itself (PyTorch's formula).
Tensor gelu_grad(const Tensor& g, const Tensor& x, bool tanh_approx) {
  if (tanh_approx) {
    constexpr double kBeta = M_SQRT2 * M_2_SQRTPI * 0.5, kKappa = 0.044715;
    const Tensor x_sq = x * x;
    const Tensor tanh_inner = ((x + kKappa * x_sq * x) * kBeta).tanh();
    const Tensor left_derivative = 0.5 * (1 + tanh_inner);
    const Tensor right_derivative =
        0.5 * x * (1 - tanh_inner * tanh_inner) * kBeta * (1 + 3 * kKappa * x_sq);
    return g * (left_derivative + right_derivative);
  }
  constexpr double kAlpha = M_SQRT1_2, kBeta = M_2_SQRTPI * M_SQRT1_2 * 0.5;
  const Tensor cdf = 0.5 * (1 + (x * kAlpha).erf());
  const Tensor pdf = (-0.5 * x * x).exp() * kBeta;
  return g * (cdf + x * pdf);
}

}  // namespace

Tensor gelu(const Tensor& t, GeluOptions options) {
  const bool tanh_approx = options.approximate == "tanh";
  EMBER_CHECK(tanh_approx || options.approximate == "none", "gelu",
              "approximate argument must be either none or tanh, got '", options.approximate, "'");
  auto grad = [tanh_approx](const Tensor& g, const Tensor& x) {
    return gelu_grad(g, x, tanh_approx);
  };
  return unary(activation("gelu", "GeluBackward0", grad,
                          tanh_approx ? ElementwiseKernel::gelu_tanh : ElementwiseKernel::gelu),
               t);
}

Tensor silu(const Tensor& t) {
  auto grad = [](const Tensor& g, const Tensor& x) {
    const Tensor sig = x.sigmoid();
    return g * sig * (1 + x * (1 - sig));
  };
  return unary(activation("silu", "SiluBackward0", grad, ElementwiseKernel::silu), t);
}

Tensor hardshrink(const Tensor& t, double lambd) {
  // hardshrink_backward: nothing passes on [-lambd, lambd] (a NaN input lets it through).
  auto grad = [lambd](const Tensor& g, const Tensor& x) {
    return zero_where(logical_and(x >= -lambd, x <= lambd), g);
  };
  return unary(activation("hardshrink", "HardshrinkBackward0", grad, ElementwiseKernel::hardshrink,
                          {.real = {lambd}}),
               t);
}

Tensor mish(const Tensor& t) {
  auto grad = [](const Tensor& g, const Tensor& x) {
    const Tensor tsp = softplus(x).tanh();
    return g * (tsp + x * x.sigmoid() * (1 - tsp * tsp));
  };
  return unary(activation("mish", "MishBackward0", grad, ElementwiseKernel::mish), t);
}

Tensor softplus(const Tensor& t, double beta, double threshold) {
  // softplus_backward: above the threshold the identity's; else exp(bx) / (exp(bx) + 1), written
  // as sigmoid(bx) so that large inputs make no inf / inf.
  auto grad = [beta, threshold](const Tensor& g, const Tensor& x) {
    const Tensor bx = x * beta;
    return where(bx > threshold, g, g * bx.sigmoid());
  };
  return unary(activation("softplus", "SoftplusBackward0", grad, ElementwiseKernel::softplus,
                          {.real = {beta, threshold}}),
               t);
}

Tensor hardtanh(const Tensor& t, double min_val, double max_val) {
  EMBER_CHECK(t.dtype() != kUInt8 || (min_val >= 0 && max_val >= 0), "hardtanh",
              "cannot do hardtanh on an unsigned type with negative limits");
  // hardtanh_backward: nothing passes at or beyond the bounds (unlike clamp's).
  auto grad = [min_val, max_val](const Tensor& g, const Tensor& x) {
    return zero_where(logical_or(x <= min_val, x >= max_val), g);
  };
  return unary(activation("hardtanh", "HardtanhBackward0", grad, ElementwiseKernel::hardtanh,
                          {.real = {min_val, max_val}}),
               t);
}

Tensor hardsigmoid(const Tensor& t) {
  auto grad = [](const Tensor& g, const Tensor& x) {
    return where(logical_and(x > -3, x < 3), g / 6, 0);
  };
  return unary(activation("hardsigmoid", "HardsigmoidBackward0", grad,
                          ElementwiseKernel::hardsigmoid),
               t);
}

Tensor hardswish(const Tensor& t) {
  auto grad = [](const Tensor& g, const Tensor& x) {
    return where(x < -3, 0, where(x <= 3, g * (x / 3 + 0.5), g));
  };
  return unary(activation("hardswish", "HardswishBackward0", grad, ElementwiseKernel::hardswish),
               t);
}

Tensor Tensor::sigmoid() const { return ember::sigmoid(*this); }
Tensor& Tensor::sigmoid_() const { return unary_(sigmoid_op(), mut()); }
Tensor Tensor::logit(std::optional<double> eps) const { return ember::logit(*this, eps); }
Tensor Tensor::relu() const { return ember::relu(*this); }
Tensor& Tensor::relu_() const { return unary_(relu_op(), mut()); }

}  // namespace ember

namespace ember::nn::functional {

// PyTorch's prelu: x where x > 0, else weight * x, so a zero input takes the weight's branch
// (grad_input = weight * grad there, as PReluBackward0). Composed of where and mul, whose
// gradients are prelu's: grad_weight sums x * grad over the elements not above zero.
Tensor prelu(const Tensor& input, const Tensor& weight) {
  const char* op = "prelu";
  EMBER_CHECK(weight.defined() && weight.dim() <= 1, op,
              "Expected `weight` to be a scalar or 1D tensor, but got ndim = ",
              weight.defined() ? weight.dim() : 0);
  if (weight.numel() == 1) return where(input > 0, input, weight.reshape({}) * input);
  EMBER_CHECK(input.dim() > 0, op, "Not allow zero-dim input tensor.");
  const int64_t channels = input.dim() >= 2 ? input.size(1) : 1;
  EMBER_CHECK(weight.numel() == channels, op,
              "Mismatch of parameter numbers and input channel size. Found parameter numbers = ",
              weight.numel(), " and channel size = ", channels, ".");
  std::vector<int64_t> shape(size_t(input.dim()), 1);
  shape[1] = channels;
  return where(input > 0, input, weight.reshape(shape) * input);
}

}  // namespace ember::nn::functional
