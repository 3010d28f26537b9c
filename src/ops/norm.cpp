// Normalisation: batch_norm, layer_norm, group_norm, rms_norm. The fused forward sweeps and
// backward kernels are the backend's norm family (backend/norm_kernels.h); the backward formulas
// as plain functions of the saved statistics, which create_graph needs, are at the bottom.
#include "ops/norm.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <sstream>
#include <tuple>
#include <vector>

#include "backend/family_kernel.h"
#include "ember/creation.h"
#include "ember/math.h"
#include "ember/nn/functional/layers.h"
#include "ember/reduce.h"
#include "ops/op_prelude.h"
#include "ops/opmath.h"

namespace ember::nn::functional {
namespace {

using backend::Backend;
using backend::NormKernels;

// The dtype the norm kernels read the activations in and write their outputs in: a bfloat16 or
// float16 input's own (the kernels widen it run by run, Note [Reduced-precision norms] in
// backend/cpu/norm.cpp, so no float32 copy of it is made), else the compute dtype (opmath_dtype).
Dtype activation_dtype(Dtype t) { return t == kBFloat16 || t == kFloat16 ? t : opmath_dtype(t); }

// A tensor converted to `dtype` and made contiguous (no copy when it already is both).
Tensor prepare(const Tensor& t, Dtype dtype) { return t.to(dtype).contiguous(); }

void check_numel(const Tensor& t, int64_t C, const char* name) {
  EMBER_CHECK(!t.defined() || t.numel() == C, "batch_norm", name, " should contain ", C,
              " elements not ", t.numel());
}

// (M, N): rows and row length of input normalised over its trailing normalized_shape.
std::pair<int64_t, int64_t> check_layer_norm(const char* op, const Tensor& input,
                                             IntArrayRef shape, const Tensor& weight,
                                             const Tensor& bias) {
  const int64_t nd = int64_t(shape.size());
  EMBER_CHECK(nd >= 1, op, "Expected normalized_shape to be at least 1-dimensional, i.e., ",
              "containing at least one element, but got normalized_shape = ", shape);
  EMBER_CHECK(!weight.defined() || weight.sizes() == shape, op,
              "Expected weight to be of same shape as normalized_shape, but got weight of shape ",
              weight.defined() ? weight.sizes() : IntArrayRef(), " and normalized_shape = ", shape);
  EMBER_CHECK(!bias.defined() || bias.sizes() == shape, op,
              "Expected bias to be of same shape as normalized_shape, but got bias of shape ",
              bias.defined() ? bias.sizes() : IntArrayRef(), " and normalized_shape = ", shape);
  const int64_t axis = input.dim() - nd;
  bool ok = axis >= 0;
  for (int64_t i = 0; ok && i < nd; ++i) ok = input.size(axis + i) == shape[size_t(i)];
  if (!ok) {
    std::ostringstream want;
    for (int64_t s : shape) want << ", " << s;
    fail(op, "Given normalized_shape=", shape, ", expected input with shape [*", want.str(),
         "], but got input of size", input.sizes());
  }
  int64_t M = 1;
  for (int64_t i = 0; i < axis; ++i) M *= input.size(i);
  return {M, prod(shape)};
}

// The stats shape of layer_norm/rms_norm: input's leading dims, then 1 per normalised dim.
DimVector stat_shape(const Tensor& input, int64_t nd) {
  DimVector s(input.sizes());
  for (int64_t i = input.dim() - nd; i < input.dim(); ++i) s[size_t(i)] = 1;
  return s;
}

}  // namespace

// ── batch_norm ───────────────────────────────────────────────────────────
std::tuple<Tensor, Tensor, Tensor> batch_norm_forward(const Tensor& input, const Tensor& weight,
                                                      const Tensor& bias,
                                                      const Tensor& running_mean,
                                                      const Tensor& running_var, bool training,
                                                      std::optional<double> momentum, double eps) {
  const char* op = "batch_norm";
  EMBER_CHECK(input.dim() >= 2, op, "expected 2D or higher input (N, C, *), got ", input.dim(),
              "D input");
  const int64_t N = input.size(0), C = input.size(1), S = input.numel() / std::max<int64_t>(
      1, N * C);
  check_numel(weight, C, "weight");
  check_numel(bias, C, "bias");
  check_numel(running_mean, C, "running_mean");
  check_numel(running_var, C, "running_var");
  EMBER_CHECK(training || (running_mean.defined() && running_var.defined()), op,
              "running_mean must be defined in evaluation mode");
  const bool update = training && running_mean.defined() && running_var.defined();
  EMBER_CHECK(!update || momentum.has_value(), op,
              "momentum is None: pass the cumulative moving average factor ",
              "1 / num_batches_tracked as momentum");
  const Dtype cd = opmath_dtype(input.dtype());
  EMBER_CHECK(input.is_floating_point(), op, "not implemented for dtype ", input.dtype());
  const Device dev = input.device();
  const auto stats_kernel =
      backend::kernel(op, dev, &Backend::norm, &NormKernels::batch_norm_stats);
  const auto kernel = backend::kernel(op, dev, &Backend::norm, &NormKernels::batch_norm);
  const Tensor x = prepare(input, activation_dtype(input.dtype()));
  Tensor y = empty(x.sizes(), {.dtype = x.dtype(), .device = dev});
  Tensor save_mean = empty({C}, {.dtype = cd, .device = dev});
  Tensor save_invstd = empty({C}, {.dtype = cd, .device = dev});
  Tensor mean, var;  // float64 (C): the batch's statistics or the running ones
  if (training) {
    EMBER_CHECK(N * S > 1, op, "Expected more than 1 value per channel when training, got input ",
                "size ", input.sizes());
    mean = empty({C}, {.dtype = kFloat64, .device = dev});
    var = empty({C}, {.dtype = kFloat64, .device = dev});
    stats_kernel(x, mean, var);
    if (update) {
      // running = (1 - momentum) running + momentum stat, with the unbiased variance.
      const double mo = *momentum, unbias = double(N * S) / double(N * S - 1);
      Tensor rm = running_mean, rv = running_var;
      rm.copy_(running_mean.to(kFloat64) * (1.0 - mo) + mean * mo);
      rv.copy_(running_var.to(kFloat64) * (1.0 - mo) + var * (mo * unbias));
    }
  } else {
    mean = prepare(running_mean, kFloat64);
    var = prepare(running_var, kFloat64);
  }
  const Tensor w = weight.defined() ? prepare(weight, cd) : Tensor();
  const Tensor b = bias.defined() ? prepare(bias, cd) : Tensor();
  kernel(y, save_mean, save_invstd, x, w, b, mean, var, eps);
  return {y.to(input.dtype()), save_mean, save_invstd};
}

// Note [Norm autograd]
// Each norm records PyTorch's native node over (input, weight, bias) and saves its statistics;
// its backward (norm_backward, at the bottom) runs the fused kernel, or, with create_graph, the
// formula in public ops over those statistics, recomputed from the input with differentiable
// ops so that the double backward sees how they depend on it.
namespace {

// Every dim but `keep`.
DimVector dims_except(int64_t nd, int64_t keep) {
  DimVector r;
  for (int64_t d = 0; d < nd; ++d)
    if (d != keep) r.push_back(d);
  return r;
}
DimVector dims_from(int64_t nd, int64_t first) {
  DimVector r;
  for (int64_t d = first; d < nd; ++d) r.push_back(d);
  return r;
}
DimVector dims_before(int64_t first) {
  DimVector r;
  for (int64_t d = 0; d < first; ++d) r.push_back(d);
  return r;
}
// (mean, 1 / sqrt(var + eps)) over `dims`, kept, from differentiable ops.
std::pair<Tensor, Tensor> moments(const Tensor& x, IntArrayRef dims, double eps) {
  const Tensor mean = x.mean(dims, true);
  const Tensor d = x - mean;
  return {mean, ((d * d).mean(dims, true) + eps).pow(-0.5)};
}
// grad_output summed to a (C)-shaped bias over `dims`, or the whole tensor when dims is empty.
Tensor sum_over(const Tensor& g, IntArrayRef dims) { return dims.empty() ? g : g.sum(dims); }
}  // namespace

Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  BatchNormFuncOptions o) {
  autograd::Recorder rec("batch_norm", {&input, &o.weight, &o.bias});
  auto [out, save_mean, save_invstd] = batch_norm_forward(
      input, o.weight, o.bias, running_mean, running_var, o.training, o.momentum, o.eps);
  if (rec)
    rec.record("NativeBatchNormBackward0", {out}, {input, o.weight, save_mean, save_invstd},
               [training = o.training, eps = o.eps, has_bias = o.bias.defined()](
                   const Grads& g, const Saved& s) {
                 Tensor mean = s[2], invstd = s[3];
                 const DimVector red = dims_except(s[0].dim(), 1);
                 if (is_grad_enabled() && training) {  // Note [Norm autograd]
                   std::tie(mean, invstd) = moments(s[0].to(mean.dtype()), red, eps);
                   const int64_t C = s[0].size(1);
                   mean = mean.reshape({C}), invstd = invstd.reshape({C});
                 }
                 auto [gi, gw, gb] = batch_norm_backward(g[0], s[0], s[1], mean, invstd, training,
                                                         {true, s[1].defined(), has_bias});
                 if (has_bias && !gb.defined()) gb = sum_over(g[0], red);  // bias without weight
                 return TensorList{gi, gw, has_bias ? gb : Tensor()};
               });
  return out;
}

// ── layer_norm / rms_norm ────────────────────────────────────────────────
std::tuple<Tensor, Tensor, Tensor> layer_norm_forward(const Tensor& input,
                                                      IntArrayRef normalized_shape,
                                                      const Tensor& weight, const Tensor& bias,
                                                      double eps) {
  const char* op = "layer_norm";
  // Plain variables, not a structured binding: the kernels' lambdas capture them (clang 14).
  const std::pair<int64_t, int64_t> rows =
      check_layer_norm(op, input, normalized_shape, weight, bias);
  const int64_t M = rows.first, N = rows.second;
  EMBER_CHECK(input.is_floating_point(), op, "not implemented for dtype ", input.dtype());
  const auto kernel = backend::kernel(op, input.device(), &Backend::norm, &NormKernels::layer_norm);
  const Dtype cd = opmath_dtype(input.dtype());
  const Tensor x = prepare(input, activation_dtype(input.dtype()));
  const Tensor w = weight.defined() ? prepare(weight, cd) : Tensor();
  const Tensor b = bias.defined() ? prepare(bias, cd) : Tensor();
  Tensor y = empty(x.sizes(), {.dtype = x.dtype(), .device = x.device()});
  const DimVector ss = stat_shape(input, int64_t(normalized_shape.size()));
  Tensor mean = empty(ss, {.dtype = cd, .device = x.device()});
  Tensor rstd = empty(ss, {.dtype = cd, .device = x.device()});
  kernel(y, mean, rstd, x, w, b, M, N, eps);
  return {y.to(input.dtype()), mean, rstd};
}

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, LayerNormFuncOptions o) {
  autograd::Recorder rec("layer_norm", {&input, &o.weight, &o.bias});
  auto [out, mean, rstd] = layer_norm_forward(input, normalized_shape, o.weight, o.bias, o.eps);
  if (rec)
    rec.record("NativeLayerNormBackward0", {out}, {input, o.weight, mean, rstd},
               [shape = DimVector(normalized_shape), eps = o.eps, has_bias = o.bias.defined()](
                   const Grads& g, const Saved& s) {
                 Tensor mean = s[2], rstd = s[3];
                 const int64_t axis = s[0].dim() - int64_t(shape.size());
                 if (is_grad_enabled())  // Note [Norm autograd]
                   std::tie(mean, rstd) =
                       moments(s[0].to(mean.dtype()), dims_from(s[0].dim(), axis), eps);
                 auto [gi, gw, gb] = layer_norm_backward(g[0], s[0], shape, mean, rstd, s[1],
                                                         {true, s[1].defined(), has_bias});
                 if (has_bias && !gb.defined()) gb = sum_over(g[0], dims_before(axis));
                 return TensorList{gi, gw, has_bias ? gb : Tensor()};
               });
  return out;
}

std::tuple<Tensor, Tensor> rms_norm_forward(const Tensor& input, IntArrayRef normalized_shape,
                                            const Tensor& weight, std::optional<double> eps) {
  const char* op = "rms_norm";
  const std::pair<int64_t, int64_t> rows =
      check_layer_norm(op, input, normalized_shape, weight, Tensor());
  const int64_t M = rows.first, N = rows.second;
  EMBER_CHECK(input.is_floating_point(), op, "not implemented for dtype ", input.dtype());
  const auto kernel = backend::kernel(op, input.device(), &Backend::norm, &NormKernels::rms_norm);
  const Dtype cd = opmath_dtype(input.dtype());
  const double e = eps.value_or(cd == kFloat64 ? std::numeric_limits<double>::epsilon()
                                               : double(std::numeric_limits<float>::epsilon()));
  const Tensor x = prepare(input, activation_dtype(input.dtype()));
  const Tensor w = weight.defined() ? prepare(weight, cd) : Tensor();
  Tensor y = empty(x.sizes(), {.dtype = x.dtype(), .device = x.device()});
  Tensor rstd = empty(stat_shape(input, int64_t(normalized_shape.size())),
                      {.dtype = cd, .device = x.device()});
  kernel(y, rstd, x, w, M, N, e);
  return {y.to(input.dtype()), rstd};
}

// PyTorch 1.13 has no rms_norm: the node is named after later versions' fused one.
Tensor rms_norm(const Tensor& input, IntArrayRef normalized_shape, RMSNormFuncOptions o) {
  autograd::Recorder rec("rms_norm", {&input, &o.weight});
  auto [out, rstd] = rms_norm_forward(input, normalized_shape, o.weight, o.eps);
  if (rec)
    rec.record("FusedRmsNormBackward0", {out}, {input, o.weight, rstd},
               [shape = DimVector(normalized_shape), eps = o.eps](const Grads& g,
                                                                  const Saved& s) {
                 Tensor rstd = s[2];
                 if (is_grad_enabled()) {  // Note [Norm autograd]
                   const Tensor x = s[0].to(rstd.dtype());
                   const double e = eps.value_or(
                       rstd.dtype() == kFloat64 ? std::numeric_limits<double>::epsilon()
                                                : double(std::numeric_limits<float>::epsilon()));
                   rstd = ((x * x).mean(dims_from(x.dim(), x.dim() - int64_t(shape.size())),
                                        true) + e).pow(-0.5);
                 }
                 auto [gi, gw] = rms_norm_backward(g[0], s[0], shape, rstd, s[1]);
                 return TensorList{gi, gw};
               });
  return out;
}

// ── group_norm ───────────────────────────────────────────────────────────
std::tuple<Tensor, Tensor, Tensor> group_norm_forward(const Tensor& input, int64_t G,
                                                      const Tensor& weight, const Tensor& bias,
                                                      double eps) {
  const char* op = "group_norm";
  EMBER_CHECK(input.dim() >= 2, op, "Expected at least 2 dimensions for input tensor but ",
              "received ", input.dim());
  const int64_t N = input.size(0), C = input.size(1);
  EMBER_CHECK(G > 0 && C % G == 0, op, "Expected number of channels in input to be divisible ",
              "by num_groups, but got input of shape ", input.sizes(), " and num_groups=", G);
  EMBER_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == C), op,
              "Expected weight to be a vector of size equal to the number of channels in ",
              "input, but got weight of shape ", weight.defined() ? weight.sizes() : IntArrayRef(),
              " and input of shape ", input.sizes());
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.numel() == C), op,
              "Expected bias to be a vector of size equal to the number of channels in ",
              "input, but got bias of shape ", bias.defined() ? bias.sizes() : IntArrayRef(),
              " and input of shape ", input.sizes());
  EMBER_CHECK(input.is_floating_point(), op, "not implemented for dtype ", input.dtype());
  const auto kernel = backend::kernel(op, input.device(), &Backend::norm, &NormKernels::group_norm);
  const Dtype cd = opmath_dtype(input.dtype());
  const Tensor x = prepare(input, activation_dtype(input.dtype()));
  const Tensor w = weight.defined() ? prepare(weight, cd) : Tensor();
  const Tensor b = bias.defined() ? prepare(bias, cd) : Tensor();
  Tensor y = empty(x.sizes(), {.dtype = x.dtype(), .device = x.device()});
  Tensor mean = empty({N, G}, {.dtype = cd, .device = x.device()});
  Tensor rstd = empty({N, G}, {.dtype = cd, .device = x.device()});
  kernel(y, mean, rstd, x, w, b, G, eps);
  return {y.to(input.dtype()), mean, rstd};
}

Tensor group_norm(const Tensor& input, int64_t num_groups, GroupNormFuncOptions o) {
  autograd::Recorder rec("group_norm", {&input, &o.weight, &o.bias});
  auto [out, mean, rstd] = group_norm_forward(input, num_groups, o.weight, o.bias, o.eps);
  if (rec)
    rec.record("NativeGroupNormBackward0", {out}, {input, o.weight, mean, rstd},
               [G = num_groups, eps = o.eps, has_bias = o.bias.defined()](const Grads& g,
                                                                          const Saved& s) {
                 Tensor mean = s[2], rstd = s[3];
                 if (is_grad_enabled()) {  // Note [Norm autograd]
                   const int64_t N = s[0].size(0);
                   std::tie(mean, rstd) = moments(s[0].to(mean.dtype()).reshape({N, G, -1}),
                                                  {2}, eps);
                   mean = mean.reshape({N, G}), rstd = rstd.reshape({N, G});
                 }
                 auto [gi, gw, gb] = group_norm_backward(g[0], s[0], G, mean, rstd, s[1],
                                                         {true, s[1].defined(), has_bias});
                 if (has_bias && !gb.defined()) gb = sum_over(g[0], dims_except(s[0].dim(), 1));
                 return TensorList{gi, gw, has_bias ? gb : Tensor()};
               });
  return out;
}

// ── backward ─────────────────────────────────────────────────────────────
// The fused kernels where no graph is recorded through the gradients (fusable()), else written
// with public ops over the saved statistics (xhat = (x - mean) * invstd):
//   dbias = Σ dy, dweight = Σ dy xhat, and for the batch statistics
//   dx = invstd w (dy - mean(dy) - xhat mean(dy xhat)), the means over the reduced elements.
namespace {

// A gradient in the dtype of the tensor it is for.
Tensor grad_like(const Tensor& g, const Tensor& like) { return g.to(like.dtype()); }

// Whether the fused backward kernels may run: no graph is to be recorded through the gradients
// (grad mode off, as in a backward pass without create_graph, or no operand requiring grad —
// Note [Norm autograd]) and grad_out has input's dtype and shape.
bool fusable(const Tensor& grad_out, const Tensor& input,
             std::initializer_list<const Tensor*> more) {
  if (grad_out.dtype() != input.dtype() || grad_out.sizes() != input.sizes()) return false;
  if (!is_grad_enabled()) return true;
  if (grad_out.requires_grad() || input.requires_grad()) return false;
  return std::none_of(more.begin(), more.end(),
                      [](const Tensor* t) { return t->defined() && t->requires_grad(); });
}

// The fused backward kernels' outputs: grad_input in input's dtype; the parameters' gradients,
// shaped `shape`, in the compute dtype, where weight is defined and the mask asks for them.
struct FusedGrads {
  Tensor gi, gw, gb;
  FusedGrads(const Tensor& input, const Tensor& weight, IntArrayRef shape,
             std::array<bool, 3> mask) {
    const TensorOptions o{.dtype = opmath_dtype(input.dtype()), .device = input.device()};
    if (mask[0]) gi = empty(input.sizes(), {.dtype = input.dtype(), .device = input.device()});
    if (mask[1] && weight.defined()) gw = empty(shape, o);
    if (mask[2] && weight.defined()) gb = empty(shape, o);
  }
  // The gradients, the parameters' in weight's dtype.
  std::tuple<Tensor, Tensor, Tensor> result(const Tensor& weight) const {
    return {gi, gw.defined() ? grad_like(gw, weight) : gw,
            gb.defined() ? grad_like(gb, weight) : gb};
  }
};

// layer_norm's gradients (mean defined) or rms_norm's (mean undefined; no bias) from the fused
// kernel (Note [Fused row norm backward]): bfloat16/float16 input and grad_out are read as they
// are and grad_input is written in their dtype; the parameters' gradients come in weight's.
std::tuple<Tensor, Tensor, Tensor> fused_row_backward(const char* op, const Tensor& grad_out,
                                                      const Tensor& input, IntArrayRef shape,
                                                      const Tensor& mean, const Tensor& rstd,
                                                      const Tensor& weight,
                                                      std::array<bool, 3> mask) {
  const Dtype cd = opmath_dtype(input.dtype());
  const Device dev = input.device();
  const auto kernel = backend::kernel(op, dev, &Backend::norm, &NormKernels::layer_norm_backward);
  const int64_t N = prod(shape), M = N > 0 ? input.numel() / N : 0;
  const Tensor x = input.contiguous(), dy = grad_out.contiguous();
  const Tensor mu = mean.defined() ? prepare(mean, cd) : Tensor(), rs = prepare(rstd, cd);
  const Tensor w = weight.defined() ? prepare(weight, cd) : Tensor();
  const FusedGrads g(input, weight, shape, mask);
  kernel(g.gi, g.gw, g.gb, x, dy, mu, rs, w, M, N);
  return g.result(weight);
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                       const Tensor& weight,
                                                       const Tensor& save_mean,
                                                       const Tensor& save_invstd, bool training,
                                                       std::array<bool, 3> mask) {
  const Dtype cd = opmath_dtype(input.dtype());
  const int64_t C = input.size(1);
  const int64_t N = input.size(0), S = input.numel() / std::max<int64_t>(1, N * C);
  // bfloat16/float16 input and grad_out go to the kernel as they are (activation_dtype).
  if (S >= backend::kNormPlanarMin &&
      fusable(grad_out, input, {&save_mean, &save_invstd, &weight})) {
    // Note [Fused batch norm backward]
    const Device dev = input.device();
    const auto kernel = backend::kernel("batch_norm_backward", dev, &Backend::norm,
                                        &NormKernels::batch_norm_backward);
    const Tensor x = input.contiguous(), dy = grad_out.contiguous();
    const Tensor mean = prepare(save_mean, cd), invstd = prepare(save_invstd, cd);
    const Tensor w = weight.defined() ? prepare(weight, cd) : Tensor();
    const FusedGrads g(input, weight, {C}, mask);
    kernel(g.gi, g.gw, g.gb, x, dy, mean, invstd, w, training);
    return g.result(weight);
  }
  DimVector bshape(size_t(input.dim()), 1);  // (1, C, 1, ...)
  bshape[1] = C;
  DimVector red;  // every dim but 1
  for (int64_t d = 0; d < input.dim(); ++d)
    if (d != 1) red.push_back(d);
  const Tensor x = input.to(cd), dy = grad_out.to(cd);
  const Tensor mean = save_mean.to(cd).view(bshape), invstd = save_invstd.to(cd).view(bshape);
  const Tensor w = weight.defined() ? weight.to(cd).view(bshape) : ones(bshape, {.dtype = cd});
  const Tensor xhat = (x - mean) * invstd;
  const Tensor sum_dy = dy.sum(red, true), sum_dy_xhat = (dy * xhat).sum(red, true);
  Tensor gi, gw, gb;
  if (mask[0]) {
    if (training) {
      const double M = double(input.numel() / std::max<int64_t>(C, 1));
      gi = (dy - sum_dy / M - xhat * (sum_dy_xhat / M)) * (invstd * w);
    } else {
      gi = dy * (invstd * w);
    }
    gi = grad_like(gi, input);
  }
  if (mask[1] && weight.defined()) gw = grad_like(sum_dy_xhat.view({C}), weight);
  if (mask[2] && weight.defined()) gb = grad_like(sum_dy.view({C}), weight);
  return {gi, gw, gb};
}

std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                       IntArrayRef normalized_shape,
                                                       const Tensor& mean, const Tensor& rstd,
                                                       const Tensor& weight,
                                                       std::array<bool, 3> mask) {
  if (fusable(grad_out, input, {&mean, &rstd, &weight}))
    return fused_row_backward("layer_norm_backward", grad_out, input, normalized_shape, mean,
                              rstd, weight, mask);
  const Dtype cd = opmath_dtype(input.dtype());
  const int64_t nd = int64_t(normalized_shape.size()), axis = input.dim() - nd;
  DimVector inner, outer;
  for (int64_t d = 0; d < input.dim(); ++d) (d < axis ? outer : inner).push_back(d);
  const Tensor x = input.to(cd), dy = grad_out.to(cd);
  const Tensor xhat = (x - mean.to(cd)) * rstd.to(cd);
  const Tensor dyw = weight.defined() ? dy * weight.to(cd) : dy;
  Tensor gi, gw, gb;
  if (mask[0]) {
    const Tensor a = dyw.mean(inner, true), b = (dyw * xhat).mean(inner, true);
    gi = grad_like((dyw - a - xhat * b) * rstd.to(cd), input);
  }
  if (weight.defined()) {
    if (mask[1]) gw = grad_like(outer.empty() ? dy * xhat : (dy * xhat).sum(outer), weight);
    if (mask[2]) gb = grad_like(outer.empty() ? dy : dy.sum(outer), weight);
  }
  return {gi, gw, gb};
}

std::tuple<Tensor, Tensor, Tensor> group_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                       int64_t G, const Tensor& mean,
                                                       const Tensor& rstd, const Tensor& weight,
                                                       std::array<bool, 3> mask) {
  const Dtype cd = opmath_dtype(input.dtype());
  const int64_t N = input.size(0), C = input.size(1);
  if (fusable(grad_out, input, {&mean, &rstd, &weight})) {  // Note [Fused group norm backward]
    const Device dev = input.device();
    const auto kernel = backend::kernel("group_norm_backward", dev, &Backend::norm,
                                        &NormKernels::group_norm_backward);
    const Tensor w = weight.defined() ? prepare(weight, cd) : Tensor();
    const FusedGrads g(input, weight, {C}, mask);
    kernel(g.gi, g.gw, g.gb, input.contiguous(), grad_out.contiguous(), prepare(mean, cd),
           prepare(rstd, cd), w, G);
    return g.result(weight);
  }
  const Tensor x = input.to(cd).reshape({N, G, -1}), dy = grad_out.to(cd).reshape({N, G, -1});
  const Tensor mu = mean.to(cd).view({N, G, 1}), rs = rstd.to(cd).view({N, G, 1});
  const Tensor xhat = (x - mu) * rs;  // (N, G, D * S)
  DimVector wshape(size_t(input.dim()), 1);
  wshape[1] = C;
  Tensor dyw = dy;
  if (weight.defined())
    dyw = (grad_out.to(cd) * weight.to(cd).view(wshape)).reshape({N, G, -1});
  Tensor gi, gw, gb;
  if (mask[0]) {
    const Tensor a = dyw.mean(2, true), b = (dyw * xhat).mean(2, true);
    gi = grad_like(((dyw - a - xhat * b) * rs).view(input.sizes()), input);
  }
  if (weight.defined()) {
    // Per channel: sum over n and the spatial dims of dy * xhat and dy.
    const Tensor dyc = grad_out.to(cd).reshape({N, C, -1});
    const Tensor xhc = xhat.reshape({N, C, -1});
    if (mask[1]) gw = grad_like((dyc * xhc).sum({0, 2}), weight);
    if (mask[2]) gb = grad_like(dyc.sum({0, 2}), weight);
  }
  return {gi, gw, gb};
}

std::tuple<Tensor, Tensor> rms_norm_backward(const Tensor& grad_out, const Tensor& input,
                                             IntArrayRef normalized_shape, const Tensor& rstd,
                                             const Tensor& weight) {
  // y = x r w with r = (mean(x^2) + eps)^-1/2: dx = r (dyw - x r^2 mean(dyw x)).
  if (fusable(grad_out, input, {&rstd, &weight})) {
    auto [gi, gw, gb] = fused_row_backward("rms_norm_backward", grad_out, input,
                                           normalized_shape, Tensor(), rstd, weight,
                                           {true, true, false});
    return {gi, gw};
  }
  const Dtype cd = opmath_dtype(input.dtype());
  const int64_t nd = int64_t(normalized_shape.size()), axis = input.dim() - nd;
  DimVector inner, outer;
  for (int64_t d = 0; d < input.dim(); ++d) (d < axis ? outer : inner).push_back(d);
  const Tensor x = input.to(cd), dy = grad_out.to(cd), r = rstd.to(cd);
  const Tensor dyw = weight.defined() ? dy * weight.to(cd) : dy;
  const Tensor gi = grad_like(r * (dyw - x * (r * r) * (dyw * x).mean(inner, true)), input);
  Tensor gw;
  if (weight.defined()) {
    const Tensor t = dy * x * r;
    gw = grad_like(outer.empty() ? t : t.sum(outer), weight);
  }
  return {gi, gw};
}

}  // namespace ember::nn::functional
