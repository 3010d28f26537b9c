// Losses of nn.functional. cross_entropy and nll_loss run one fused row kernel (Note [Fused
// cross entropy]); the pointwise losses are one-line functors on the elementwise front end; the
// rest are short compositions of public ops, written as PyTorch 1.13 writes them.
#include "ops/loss.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "backend/family_kernel.h"
#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/index_ops.h"
#include "ember/math.h"
#include "ember/nn/functional/layers.h"
#include "ember/reduce.h"
#include "ember/shape.h"
#include "ops/elementwise.h"
#include "ops/nn_grad.h"
#include "ops/op_prelude.h"
#include "ops/opmath.h"

namespace ember::nn::functional {
namespace {

using backend::Backend;

enum class Reduction { None, Mean, Sum, BatchMean };

Reduction parse_reduction(const std::string& r, const char* op, bool batchmean = false) {
  if (r == "mean") return Reduction::Mean;
  if (r == "sum") return Reduction::Sum;
  if (r == "none") return Reduction::None;
  if (batchmean && r == "batchmean") return Reduction::BatchMean;
  fail(op, r, " is not a valid value for reduction");
}

Tensor reduce_loss(const Tensor& loss, Reduction r) {
  if (r == Reduction::Mean) return loss.mean();
  if (r == Reduction::Sum) return loss.sum();
  return loss;
}

// PyTorch's names for dtypes in "expected scalar type Long but found Int".
const char* aten_name(Dtype t) {
  static const char* names[kNumDtypes] = {"Bool", "Byte", "Char",     "Short", "Int",
                                          "Long", "Half", "BFloat16", "Float", "Double"};
  return names[int(t)];
}

// The gradient of reduce_loss(loss) brought back to the elementwise loss: grad itself for
// "none", broadcast (a 0-d grad broadcasts) and divided by the count for "mean".
Tensor unreduce_loss(const Tensor& g, Reduction r, int64_t numel) {
  return r == Reduction::Mean ? g / double(numel) : g;
}

// Elements of the broadcast of a and b (the pointwise losses' element count).
int64_t broadcast_numel(const Tensor& a, const Tensor& b) {
  return prod(IntArrayRef(broadcast_shapes(a.sizes(), b.sizes())));
}

// The class-index losses' operands as the kernels read them: positions of (N, C, S)
// (Note [Fused cross entropy] in backend/cpu/class_loss.cpp).
struct ClassRows {
  Tensor x;                // (N, C, S) in the compute dtype, contiguous
  Tensor targets;          // (N * S) int64, contiguous; the kernels check them
  Tensor w;                // (C) compute dtype, or undefined
  DimVector loss_shape;    // shape of the unreduced loss: target's
  DimVector in_shape;      // the input's shape, for the gradient
  int64_t N = 0, C = 0, S = 1;
};

// nll_loss_nd's checks and the layout.
ClassRows class_rows(const char* op, const Tensor& input, const Tensor& target,
                     const Tensor& weight) {
  const int64_t nd = input.dim();
  EMBER_CHECK(nd >= 1, op, "Expected 1 or more dimensions (got ", nd, ")");
  EMBER_CHECK(input.is_floating_point(), op, "not implemented for dtype ", input.dtype());
  if (nd != 1) {
    const int64_t tb = target.dim() >= 1 ? target.size(0) : 1;
    EMBER_CHECK(input.size(0) == tb, op, "Expected input batch_size (", input.size(0),
                ") to match target batch_size (", tb, ").");
  }
  if (nd <= 2) {
    EMBER_CHECK(target.dim() <= 1, op, "0D or 1D target tensor expected, multi-target not ",
                "supported");
    EMBER_CHECK(nd == 2 ? target.dim() == 1 : target.dim() == 0, op, "size mismatch (got input: ",
                input.sizes(), ", target: ", target.sizes(), ")");
  } else if (nd == 4) {
    EMBER_CHECK(target.dim() == 3, op, "only batches of spatial targets supported (3D tensors) ",
                "but got targets of dimension: ", target.dim());
    EMBER_CHECK(target.size(1) == input.size(2) && target.size(2) == input.size(3), op,
                "size mismatch (got input: ", input.sizes(), " , target: ", target.sizes());
  } else {
    DimVector want{input.size(0)};
    for (int64_t d = 2; d < nd; ++d) want.push_back(input.size(d));
    EMBER_CHECK(IntArrayRef(want) == target.sizes(), op, "Expected target size ", IntArrayRef(want),
                ", got ", target.sizes());
  }
  ClassRows p;
  p.C = input.size(nd == 1 ? 0 : 1);
  EMBER_CHECK(!weight.defined() || weight.numel() == p.C, op, "weight tensor should be defined ",
              "either for all ", p.C, " classes or no classes but got weight tensor of shape: ",
              weight.defined() ? weight.sizes() : IntArrayRef());
  EMBER_CHECK(target.dtype() == kInt64 || target.dtype() == kUInt8, op,
              "expected scalar type Long but found ", aten_name(target.dtype()));
  p.N = nd == 1 ? 1 : input.size(0);
  p.S = 1;
  for (int64_t d = 2; d < nd; ++d) p.S *= input.size(d);
  p.in_shape = DimVector(input.sizes());
  p.x = input.to(opmath_dtype(input.dtype())).contiguous().view({p.N, p.C, p.S});
  p.targets = target.to(kInt64).contiguous();
  if (weight.defined()) p.w = weight.to(p.x.dtype()).contiguous();
  p.loss_shape = DimVector(target.sizes());
  return p;
}

backend::LossReduction kernel_reduction(Reduction r) {
  return r == Reduction::None ? backend::LossReduction::None
         : r == Reduction::Sum ? backend::LossReduction::Sum
                               : backend::LossReduction::Mean;
}

// The loss (the kernel's class_loss), in out_dtype.
Tensor class_loss(const ClassRows& p, int64_t ignore, double ls, bool logits, Reduction red,
                  Dtype out_dtype, const char* op) {
  const auto kernel =
      backend::kernel(op, p.x.device(), &Backend::loss, &backend::LossKernels::class_loss);
  Tensor out = empty(red == Reduction::None ? IntArrayRef(p.loss_shape) : IntArrayRef(),
                     {.dtype = p.x.dtype(), .device = p.x.device()});
  kernel({op, p.x, p.targets, p.w, ignore, ls, logits, kernel_reduction(red)}, out);
  return out.to(out_dtype);
}

// d(loss)/d(input) (the kernel's class_loss_backward), in out_dtype.
Tensor class_grad(const ClassRows& p, const Tensor& grad_out, int64_t ignore, double ls,
                  bool logits, Reduction red, Dtype out_dtype, const char* op) {
  const auto kernel = backend::kernel(op, p.x.device(), &Backend::loss,
                                      &backend::LossKernels::class_loss_backward);
  Tensor gx = empty({p.N, p.C, p.S}, {.dtype = p.x.dtype(), .device = p.x.device()});
  const Tensor grad = red == Reduction::None ? grad_out.to(p.x.dtype()).contiguous() : grad_out;
  kernel({op, p.x, p.targets, p.w, ignore, ls, logits, kernel_reduction(red)}, gx, grad);
  return gx.view(p.in_shape).to(out_dtype);
}

// The class weight (C) shaped to broadcast along the class dim `cdim` of an input of rank `dim`.
Tensor class_weight_view(const Tensor& weight, int64_t dim, int64_t cdim) {
  DimVector shape(size_t(dim), 1);
  shape[size_t(cdim)] = weight.numel();
  return weight.view(shape);
}

// Class probabilities: -Σ_c w_c p'_c log_softmax(x)_c with p' = p (1 - ls) + ls / C.
struct ProbTerms {
  int64_t cdim, C;
  Tensor target, wview;  // smoothed target; weight shaped to broadcast along cdim (or undefined)
};

ProbTerms prob_terms(const Tensor& input, const Tensor& target, const Tensor& weight, double ls) {
  const char* op = "cross_entropy";
  EMBER_CHECK(target.is_floating_point(), op, "Expected floating point type for target with ",
              "class probabilities, got ", aten_name(target.dtype()));
  ProbTerms t;
  t.cdim = input.dim() == 1 ? 0 : 1;
  t.C = input.size(t.cdim);
  EMBER_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == t.C), op,
              "cross_entropy: weight tensor should be defined either for all ", t.C,
              " classes or no classes but got weight tensor of shape: ",
              weight.defined() ? weight.sizes() : IntArrayRef());
  EMBER_CHECK(ls <= 1.0, op, "label_smoothing must be between 0.0 and 1.0. Got: ", ls);
  t.target = ls > 0 ? target * (1 - ls) + ls / double(t.C) : target;
  if (weight.defined()) t.wview = class_weight_view(weight, input.dim(), t.cdim);
  return t;
}

// Note [Cross entropy double backward]
// The fused kernel's gradient (class_loss_backward) is, per position,
// grad_c = (α softmax_c - β_c) s with α = a + b Σw, β_c = b w_c + a [c = t], a = (1 - ls) w[t],
// b = ls / C (both 0 where t is ignored), and s the reduction's scale: g, or g / Σ w[t] for "mean". α and β do not depend on
// the input, so with create_graph the same formula in differentiable ops is the gradient, and
// the double backward differentiates only softmax and the (linear) dependence on g.
Tensor cross_entropy_grad_composite(const Tensor& grad_out, const Tensor& input,
                                    const Tensor& target, const CrossEntropyFuncOptions& o,
                                    Reduction red) {
  const int64_t cdim = input.dim() == 1 ? 0 : 1, C = input.size(cdim);
  const double ls = o.label_smoothing;
  const Dtype dt = input.dtype();
  const Tensor keep = target != o.ignore_index;
  const Tensor t = where(keep, target, 0);
  const Tensor kept = keep.to(dt);
  const Tensor wt = o.weight.defined() ? take(o.weight, t) * kept : kept;
  const Tensor a = wt * (1 - ls), b = kept * (ls / double(C));
  const double wsum = o.weight.defined() ? o.weight.sum().item<double>() : double(C);
  Tensor smooth = b.unsqueeze(cdim);  // b w_c
  if (o.weight.defined()) smooth = smooth * class_weight_view(o.weight, input.dim(), cdim);
  const Tensor at_target = zeros_like(input).scatter(cdim, t.unsqueeze(cdim), 1.0);
  const Tensor beta = smooth + a.unsqueeze(cdim) * at_target;
  const Tensor alpha = (a + b * wsum).unsqueeze(cdim);
  Tensor scale = red == Reduction::None ? grad_out.unsqueeze(cdim) : grad_out;
  if (red == Reduction::Mean) scale = scale / wt.sum().item<double>();
  return ((softmax(input, cdim) * alpha - beta) * scale).to(dt);
}

}  // namespace

// ── cross_entropy / nll_loss ─────────────────────────────────────────────
namespace {
// The options with another class weight: autocast's redispatch passes the cast one.
template <class Options>
Options with_weight(const Options& options, const Tensor& weight) {
  Options o = options;
  o.weight = weight;
  return o;
}
}  // namespace

Tensor cross_entropy(const Tensor& input, const Tensor& target, CrossEntropyFuncOptions o) {
  const char* op = "cross_entropy";
  OpScope scope(op, {&input, &target, &o.weight});
  if (scope.autocast()) return cross_entropy(scope.cast(0), scope.cast(1), with_weight(o, scope.cast(2)));
  const Reduction red = parse_reduction(o.reduction, op);
  if (input.sizes() == target.sizes()) {
    EMBER_CHECK(o.ignore_index < 0, op, "ignore_index is not supported for floating point target");
    const ProbTerms t = prob_terms(input, target, o.weight, o.label_smoothing);
    Tensor term = log_softmax(input, t.cdim) * t.target;
    if (t.wview.defined()) term = term * t.wview;
    if (red == Reduction::None) return -term.sum(t.cdim);
    if (red == Reduction::Sum) return -term.sum();
    if (input.numel() == 0) return full({}, NAN, {.dtype = term.dtype()});
    return -term.sum() / double(input.numel() / t.C);
  }
  EMBER_CHECK(o.label_smoothing <= 1.0, op, "label_smoothing must be between 0.0 and 1.0. Got: ",
              o.label_smoothing);
  // Autograd: one NllLossBackward0 straight to the logits (PyTorch's sits on a
  // LogSoftmaxBackward0); the backward is the fused kernel, or with create_graph its
  // differentiable form (Note [Cross entropy double backward]).
  autograd::Recorder rec(op, {&input});
  const ClassRows p = class_rows(op, input, target, o.weight);
  Tensor out = class_loss(p, o.ignore_index, o.label_smoothing, true, red, input.dtype(), op);
  if (rec)
    rec.record("NllLossBackward0", {out}, {input, target, o.weight},
               [o, red](const Grads& g, const Saved& s) {
                 CrossEntropyFuncOptions oo = o;
                 oo.weight = s[2];
                 return TensorList{is_grad_enabled()
                                       ? cross_entropy_grad_composite(g[0], s[0], s[1], oo, red)
                                       : cross_entropy_backward(g[0], s[0], s[1], oo)};
               });
  return out;
}

Tensor cross_entropy_backward(const Tensor& grad_out, const Tensor& input, const Tensor& target,
                              const CrossEntropyFuncOptions& o) {
  const char* op = "cross_entropy_backward";
  const Reduction red = parse_reduction(o.reduction, op);
  if (input.sizes() == target.sizes()) {
    // d/dx = g (softmax Σ_c w_c p'_c - w p') along the class dim.
    const ProbTerms t = prob_terms(input, target, o.weight, o.label_smoothing);
    const Tensor wp = t.wview.defined() ? t.target * t.wview : t.target;
    Tensor g = grad_out;
    if (red == Reduction::None) g = grad_out.unsqueeze(t.cdim);
    if (red == Reduction::Mean) g = grad_out / double(input.numel() / std::max<int64_t>(t.C, 1));
    return ((softmax(input, t.cdim) * wp.sum(t.cdim, true) - wp) * g).to(input.dtype());
  }
  const ClassRows p = class_rows(op, input, target, o.weight);
  return class_grad(p, grad_out, o.ignore_index, o.label_smoothing, true, red, input.dtype(), op);
}

Tensor nll_loss(const Tensor& input, const Tensor& target, NLLLossFuncOptions o) {
  const char* op = "nll_loss";
  OpScope scope(op, {&input, &target, &o.weight});
  if (scope.autocast()) return nll_loss(scope.cast(0), scope.cast(1), with_weight(o, scope.cast(2)));
  const Reduction red = parse_reduction(o.reduction, op);
  autograd::Recorder rec(op, {&input});
  const ClassRows p = class_rows(op, input, target, o.weight);
  Tensor out = class_loss(p, o.ignore_index, 0.0, false, red, input.dtype(), op);
  // Autograd: the loss is linear in input, so its backward kernel is recorded as a linear op
  // whose adjoint is nll_loss itself (double backward works).
  if (rec)
    rec.record("NllLossBackward0", {out}, {input, target, o.weight},
               [o](const Grads& g, const Saved& s) {
                 NLLLossFuncOptions oo = o;
                 oo.weight = s[2];
                 return TensorList{linear_grad(
                     "NllLossBackwardBackward0", g[0],
                     [&](const Tensor& g) { return nll_loss_backward(g, s[0], s[1], oo); },
                     [target = s[1], oo](const Tensor& gg) { return nll_loss(gg, target, oo); })};
               });
  return out;
}

Tensor nll_loss_backward(const Tensor& grad_out, const Tensor& input, const Tensor& target,
                         const NLLLossFuncOptions& o) {
  const char* op = "nll_loss_backward";
  const Reduction red = parse_reduction(o.reduction, op);
  const ClassRows p = class_rows(op, input, target, o.weight);
  return class_grad(p, grad_out, o.ignore_index, 0.0, false, red, input.dtype(), op);
}

// ── pointwise losses ─────────────────────────────────────────────────────
namespace {
using backend::ElementwiseKernel;

Tensor pointwise(const char* op, ElementwiseKernel k, const Tensor& a, const Tensor& b,
                 const backend::ElementwiseArgs& args = {}) {
  return elementwise(op, k, Promote::Default, {a, b}, args);
}
}  // namespace

Tensor mse_loss(const Tensor& input, const Tensor& target, MSELossFuncOptions o) {
  OpScope scope("mse_loss", {&input, &target});
  if (scope.autocast()) return mse_loss(scope.cast(0), scope.cast(1), o);
  const Reduction red = parse_reduction(o.reduction, "mse_loss");
  autograd::Recorder rec("mse_loss", {&input, &target});
  Tensor out = reduce_loss(pointwise("mse_loss", ElementwiseKernel::mse_loss, input, target), red);
  if (rec)
    rec.record("MseLossBackward0", {out}, {input, target},
               [red, n = broadcast_numel(input, target)](const Grads& g, const Saved& s) {
                 const Tensor gi = (s[0] - s[1]) * 2 * unreduce_loss(g[0], red, n);
                 return TensorList{gi, gi * -1};
               });
  return out;
}

Tensor l1_loss(const Tensor& input, const Tensor& target, L1LossFuncOptions o) {
  OpScope scope("l1_loss", {&input, &target});
  if (scope.autocast()) return l1_loss(scope.cast(0), scope.cast(1), o);
  const Reduction red = parse_reduction(o.reduction, "l1_loss");
  return reduce_loss((input - target).abs(), red);
}

Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, SmoothL1LossFuncOptions o) {
  const char* op = "smooth_l1_loss";
  OpScope scope(op, {&input, &target});
  if (scope.autocast()) return smooth_l1_loss(scope.cast(0), scope.cast(1), o);
  const Reduction red = parse_reduction(o.reduction, op);
  EMBER_CHECK(o.beta >= 0, op, "smooth_l1_loss does not support negative values for beta.");
  if (o.beta == 0) return l1_loss(input, target, {.reduction = o.reduction});
  autograd::Recorder rec(op, {&input, &target});
  Tensor out = reduce_loss(
      pointwise(op, ElementwiseKernel::smooth_l1_loss, input, target, {.real = {o.beta}}), red);
  // d/dx = z / beta inside |z| < beta, sign(z) outside (PyTorch's smooth_l1_loss_backward).
  if (rec)
    rec.record("SmoothL1LossBackward0", {out}, {input, target},
               [red, beta = o.beta, n = broadcast_numel(input, target)](const Grads& g,
                                                                        const Saved& s) {
                 // The branch masks are constants (written with mul so that the double backward
                 // only needs arithmetic).
                 const Tensor z = s[0] - s[1];
                 const Tensor in = (z.abs() < beta).to(z.dtype());
                 const Tensor gi =
                     (z * in / beta + z.sign() * (1 - in)) * unreduce_loss(g[0], red, n);
                 return TensorList{gi, gi * -1};
               });
  return out;
}

Tensor huber_loss(const Tensor& input, const Tensor& target, HuberLossFuncOptions o) {
  const char* op = "huber_loss";
  OpScope scope(op, {&input, &target});
  if (scope.autocast()) return huber_loss(scope.cast(0), scope.cast(1), o);
  const Reduction red = parse_reduction(o.reduction, op);
  EMBER_CHECK(o.delta > 0, op, "huber_loss does not support non-positive values for delta.");
  autograd::Recorder rec(op, {&input, &target});
  Tensor out = reduce_loss(
      pointwise(op, ElementwiseKernel::huber_loss, input, target, {.real = {o.delta}}), red);
  // d/dx = z inside |z| < delta, delta sign(z) outside (PyTorch's huber_loss_backward).
  if (rec)
    rec.record("HuberLossBackward0", {out}, {input, target},
               [red, delta = o.delta, n = broadcast_numel(input, target)](const Grads& g,
                                                                          const Saved& s) {
                 const Tensor z = s[0] - s[1];
                 const Tensor in = (z.abs() < delta).to(z.dtype());
                 const Tensor gi =
                     (z * in + z.sign() * (1 - in) * delta) * unreduce_loss(g[0], red, n);
                 return TensorList{gi, gi * -1};
               });
  return out;
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            BinaryCrossEntropyFuncOptions o) {
  const char* op = "binary_cross_entropy";
  OpScope scope(op, {&input, &target, &o.weight});
  if (scope.autocast())
    return binary_cross_entropy(scope.cast(0), scope.cast(1), with_weight(o, scope.cast(2)));
  const Reduction red = parse_reduction(o.reduction, op);
  EMBER_CHECK(input.sizes() == target.sizes(), op, "Using a target size (", target.sizes(),
              ") that is different to the input size (", input.sizes(), ") is deprecated. ",
              "Please ensure they have the same size.");
  // !(0 <= x <= 1) also catches NaN, as PyTorch's check does. (The flag is read on the host:
  // item() takes a CPU tensor.)
  EMBER_CHECK(!logical_not(logical_and(input >= 0, input <= 1)).any().cpu().item<bool>(), op,
              "all elements of input should be between 0 and 1");
  autograd::Recorder rec(op, {&input, &target});
  // -(t log x + (1 - t) log(1 - x)) with each log clamped at -100, as PyTorch's CPU kernel.
  Tensor loss = pointwise(op, ElementwiseKernel::binary_cross_entropy, input, target);
  if (o.weight.defined()) loss = loss * o.weight.expand(broadcast_shapes(target.sizes(),
                                                                         o.weight.sizes()));
  Tensor out = reduce_loss(loss, red);
  // PyTorch's binary_cross_entropy_backward: g w (x - t) / max((1 - x) x, 1e-12); the target's
  // gradient is g w (log(1 - x) - log(x)) (binary_cross_entropy_target_backward). The weight
  // gets none (not differentiable in PyTorch either).
  if (rec)
    rec.record("BinaryCrossEntropyBackward0", {out}, {input, target, o.weight},
               [red, n = input.numel()](const Grads& g, const Saved& s) {
                 Tensor scale = unreduce_loss(g[0], red, n);
                 if (s[2].defined()) scale = scale * s[2];
                 const Tensor& x = s[0];
                 const Tensor gi = (x - s[1]) / ((1 - x) * x).clamp_min(1e-12) * scale;
                 const Tensor gt = ((1 - x).log() - x.log()) * scale;
                 return TensorList{gi, gt};
               });
  return out;
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        BinaryCrossEntropyWithLogitsFuncOptions o) {
  const char* op = "binary_cross_entropy_with_logits";
  OpScope scope(op, {&input, &target, &o.weight, &o.pos_weight});
  if (scope.autocast()) {
    BinaryCrossEntropyWithLogitsFuncOptions cast = with_weight(o, scope.cast(2));
    cast.pos_weight = scope.cast(3);
    return binary_cross_entropy_with_logits(scope.cast(0), scope.cast(1), cast);
  }
  const Reduction red = parse_reduction(o.reduction, op);
  EMBER_CHECK(input.sizes() == target.sizes(), op, "Target size (", target.sizes(),
              ") must be the same as input size (", input.sizes(), ")");
  autograd::Recorder rec(op, {&input, &target});
  // Stable in x: log(1 + e^-x) through m = max(-x, 0); pos_weight scales the positive term by
  // lw = 1 + (pos_weight - 1) t.
  Tensor loss;
  if (o.pos_weight.defined()) {
    const Tensor lw = (o.pos_weight - 1) * target + 1;
    loss = elementwise(op, ElementwiseKernel::binary_cross_entropy_with_logits_weighted,
                       Promote::Default, {input, target, lw});
  } else {
    loss = pointwise(op, ElementwiseKernel::binary_cross_entropy_with_logits, input, target);
  }
  if (o.weight.defined()) loss = loss * o.weight;
  Tensor out = reduce_loss(loss, red);
  // PyTorch 1.13's binary_cross_entropy_with_logits_backward and _target_backward:
  //   d/dx = (pw t + 1 - t) sigmoid(x) - pw t   (pw = 1 without pos_weight: sigmoid(x) - t)
  //   d/dt = log_sigmoid(-x) - pw log_sigmoid(x) (without pos_weight: -x)
  // times g and the weight (and / numel for "mean"); weight and pos_weight get no gradient.
  if (rec)
    rec.record("BinaryCrossEntropyWithLogitsBackward0", {out},
               {input, target, o.weight, o.pos_weight},
               [red, n = input.numel()](const Grads& g, const Saved& s) {
                 Tensor scale = unreduce_loss(g[0], red, n);
                 if (s[2].defined()) scale = scale * s[2];
                 const Tensor &x = s[0], &t = s[1], &pw = s[3];
                 Tensor gi, gt;
                 if (pw.defined()) {
                   const Tensor pt = pw * t;
                   gi = (pt + 1 - t) * x.sigmoid() - pt;
                   // log_sigmoid(x) = -softplus(-x), written stably: min(x, 0) - log1p(e^-|x|).
                   const Tensor ls_pos = minimum(x, zeros_like(x)) - (-x.abs()).exp().log1p();
                   const Tensor ls_neg = ls_pos - x;  // log_sigmoid(-x)
                   gt = ls_neg - ls_pos * pw;
                 } else {
                   gi = x.sigmoid() - t;
                   gt = -x;
                 }
                 return TensorList{gi * scale, gt * scale};
               });
  return out;
}

Tensor kl_div(const Tensor& input, const Tensor& target, KLDivFuncOptions o) {
  OpScope scope("kl_div", {&input, &target});
  if (scope.autocast()) return kl_div(scope.cast(0), scope.cast(1), o);
  const Reduction red = parse_reduction(o.reduction, "kl_div", true);
  const Tensor loss = o.log_target ? exp(target) * (target - input)
                                   : xlogy(target, target) - target * input;
  if (red == Reduction::BatchMean) {
    const Tensor s = loss.sum();
    return input.dim() == 0 ? s : s / double(input.size(0));
  }
  return reduce_loss(loss, red);
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             CosineEmbeddingLossFuncOptions o) {
  const char* op = "cosine_embedding_loss";
  OpScope scope(op, {&input1, &input2, &target});
  if (scope.autocast())
    return cosine_embedding_loss(scope.cast(0), scope.cast(1), scope.cast(2), o);
  const Reduction red = parse_reduction(o.reduction, op);
  const int64_t td = target.dim();
  EMBER_CHECK(td == 1 || td == 0, op, "0D or 1D target tensor expected, multi-target not ",
              "supported");
  if (td == 1) {
    EMBER_CHECK(input1.dim() == 2 && input2.dim() == 2, op, "1D target tensor expects 2D input ",
                "tensors, but found inputs with sizes ", input1.sizes(), " and ", input2.sizes(),
                ".");
  } else {
    EMBER_CHECK(input1.dim() == 1 && input2.dim() == 1, op, "0D target tensor expects 1D input ",
                "tensors, but found inputs with sizes ", input1.sizes(), " and ", input2.sizes(),
                ".");
  }
  constexpr double kEps = 1e-12;  // PyTorch's EPSILON
  const Tensor prod_sum = (input1 * input2).sum(td);
  const Tensor mag1 = (input1 * input1).sum(td) + kEps, mag2 = (input2 * input2).sum(td) + kEps;
  const Tensor cos = prod_sum / (mag1 * mag2).sqrt();
  const Tensor zero = zeros_like(cos);
  const Tensor pos = where(target == 1, 1 - cos, zero);
  const Tensor neg = where(target == -1, (cos - o.margin).clamp_min(0), zero);
  return reduce_loss(pos + neg, red);
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           MarginRankingLossFuncOptions o) {
  const char* op = "margin_ranking_loss";
  OpScope scope(op, {&input1, &input2, &target});
  if (scope.autocast()) return margin_ranking_loss(scope.cast(0), scope.cast(1), scope.cast(2), o);
  const Reduction red = parse_reduction(o.reduction, op);
  EMBER_CHECK(input1.dim() == input2.dim() && input1.dim() == target.dim(), op,
              "margin_ranking_loss : All input tensors should have same dimension but got ",
              "sizes: input1: ", input1.sizes(), ", input2: ", input2.sizes(), ", target: ",
              target.sizes());
  return reduce_loss((-target * (input1 - input2) + o.margin).clamp_min(0), red);
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           TripletMarginLossFuncOptions o) {
  const char* op = "triplet_margin_loss";
  OpScope scope(op, {&anchor, &positive, &negative});
  if (scope.autocast()) return triplet_margin_loss(scope.cast(0), scope.cast(1), scope.cast(2), o);
  const Reduction red = parse_reduction(o.reduction, op);
  EMBER_CHECK(anchor.dim() == positive.dim() && anchor.dim() == negative.dim(), op,
              "All inputs should have same dimension but got ", anchor.dim(), "D, ",
              positive.dim(), "D and ", negative.dim(), "D inputs.");
  const PairwiseDistanceFuncOptions d{.p = o.p, .eps = o.eps};
  const Tensor d_pos = pairwise_distance(anchor, positive, d);
  Tensor d_neg = pairwise_distance(anchor, negative, d);
  if (o.swap) d_neg = minimum(d_neg, pairwise_distance(positive, negative, d));
  return reduce_loss((d_pos - d_neg + o.margin).clamp_min(0), red);
}

}  // namespace ember::nn::functional
