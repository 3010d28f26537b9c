// Convolution front ends: conv1d/conv2d, conv_transpose1d/2d and their backward kernels. Each
// checks its arguments with PyTorch's messages, then normalises to one 2-D problem — batched,
// contiguous, in the operands' dtype (the CPU kernels widen float16/bfloat16 to float32 as they
// go: no float32 copies here), conv1d as a height-1 conv2d — for the kernels of the operands'
// device (backend/conv_kernels.h).
#include <array>
#include <string>
#include <vector>

#include "autograd/function.h"
#include "backend/family_kernel.h"
#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/nn/functional/conv.h"
#include "ember/reduce.h"

namespace ember::nn::functional {
namespace {

// One int per spatial dim from an int or a list, with PyTorch's message for a bad length.
std::vector<int64_t> expand_param(const IntOrList& v, int dims, const char* op, const char* name) {
  const auto& x = v.values();
  EMBER_CHECK(x.size() == 1 || x.size() == size_t(dims), op, "expected ", name,
              " to be a single integer value or a list of ", dims,
              " values to match the convolution dimensions, but got ", name, "=",
              IntArrayRef(x));
  return x.size() == 1 ? std::vector<int64_t>(size_t(dims), x[0]) : x;
}

// Kernel `entry` of the device of `t` (the problem's operands share it: the op's scope checked).
template <class Fn>
Fn conv_kernel(const char* op, const Tensor& t, Fn backend::ConvKernels::*entry) {
  return backend::kernel(op, t.device(), &backend::Backend::conv, entry);
}

// Sizes as PyTorch prints them in "(8 x 8)".
std::string per_channel(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? " x " : "") + std::to_string(v[i]);
  return s + ")";
}

// A conv or conv_transpose call reduced to the kernel's terms.
struct ConvProblem {
  Tensor input, weight, bias;  // (N, C, H, W), (O, C / g, kH, kW) or transposed, (O); contiguous
  backend::Conv2dParams p;
  int64_t out_h = 0, out_w = 0;
  bool batched = true;
  int dims = 2;
};

// Adds the missing batch dim and turns a 1-D problem into a height-1 2-D one.
Tensor to_2d(const Tensor& t, int dims, bool add_batch) {
  Tensor r = add_batch ? t.unsqueeze(0) : t;
  return dims == 1 ? r.unsqueeze(2) : r;
}

// The checks shared by conv and conv_transpose: ranks, dtypes, groups, stride/dilation > 0.
void check_common(const char* op, int dims, const Tensor& input, const Tensor& weight,
                  const Tensor& bias, int64_t groups) {
  const int64_t nd = input.dim();
  EMBER_CHECK(nd == dims + 1 || nd == dims + 2, op, "Expected ", dims + 1, "D (unbatched) or ",
              dims + 2, "D (batched) input to ", op, ", but got input of size: ", input.sizes());
  EMBER_CHECK(weight.dim() == dims + 2, op, "Expected ", dims + 2, "-dimensional weight for ",
              nd, "-dimensional input ", input.sizes(), ", but got ", weight.dim(),
              "-dimensional weight of size ", weight.sizes(), " instead");
  EMBER_CHECK(input.dtype() == weight.dtype(), op, "Input type (", input.dtype(),
              ") and weight type (", weight.dtype(), ") should be the same");
  EMBER_CHECK(!bias.defined() || bias.dtype() == input.dtype(), op, "Input type (",
              input.dtype(), ") and bias type (", bias.dtype(), ") should be the same");
  EMBER_CHECK(is_floating_point(input.dtype()), op, "not implemented for dtype ", input.dtype(),
              " (expected a floating point input)");
  EMBER_CHECK(groups > 0, op, "non-positive groups is not supported");
  EMBER_CHECK(weight.size(0) % groups == 0, op, "Given groups=", groups,
              ", expected weight to be divisible by ", groups,
              " at dimension 0, but got weight of size [", weight.sizes(), "] instead");
}

void check_positive(const char* op, const std::vector<int64_t>& v, const char* what) {
  for (int64_t x : v) EMBER_CHECK(x > 0, op, "non-positive ", what, " is not supported");
}

void check_bias(const char* op, const Tensor& bias, const Tensor& weight, int64_t channels) {
  EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == channels), op,
              "Given weight of size ", weight.sizes(), ", expected bias to be 1-dimensional with ",
              channels, " elements, but got bias of size ", bias.sizes(), " instead");
}

void finish(ConvProblem& c, const Tensor& input, const Tensor& weight, const Tensor& bias) {
  c.input = to_2d(input, c.dims, !c.batched).contiguous();
  c.weight = to_2d(weight, c.dims, false).contiguous();
  if (bias.defined()) c.bias = bias.contiguous();
  if (c.dims == 1) {  // height 1: stride, padding, dilation 1/0/1 in H
    c.p.stride[1] = c.p.stride[0], c.p.padding[1] = c.p.padding[0];
    c.p.dilation[1] = c.p.dilation[0];
    c.p.stride[0] = 1, c.p.padding[0] = 0, c.p.dilation[0] = 1;
  }
}

ConvProblem conv_problem(const char* op, int dims, const Tensor& input, const Tensor& weight,
                         const ConvFuncOptions& o) {
  check_common(op, dims, input, weight, o.bias, o.groups);
  ConvProblem c;
  c.dims = dims, c.batched = input.dim() == dims + 2;
  c.p.groups = o.groups;
  const auto stride = expand_param(o.stride, dims, op, "stride");
  const auto dilation = expand_param(o.dilation, dims, op, "dilation");
  check_positive(op, stride, "stride");
  check_positive(op, dilation, "dilation");
  const int64_t lead = c.batched ? 2 : 1;  // index of the first spatial dim
  const int64_t C = input.size(lead - 1);
  std::vector<int64_t> in(dims), k(dims), left(dims), right(dims);
  for (int d = 0; d < dims; ++d) in[d] = input.size(lead + d), k[d] = weight.size(2 + d);
  const std::string& mode = o.padding.mode();
  if (mode.empty()) {
    left = right = expand_param(o.padding, dims, op, "padding");
    for (int64_t x : left) EMBER_CHECK(x >= 0, op, "negative padding is not supported");
  } else if (mode == "valid") {
    left = right = std::vector<int64_t>(dims, 0);
  } else if (mode == "same") {
    for (int64_t s : stride)
      EMBER_CHECK(s == 1, op, "padding='same' is not supported for strided convolutions");
    // An odd total puts the extra element on the right, as PyTorch does; the kernels only need
    // the left padding, the right side is implied by the output size.
    for (int d = 0; d < dims; ++d) {
      const int64_t total = dilation[d] * (k[d] - 1);
      left[d] = total / 2, right[d] = total - left[d];
    }
  } else {
    fail(op, "Invalid padding string: '", mode, "'");
  }
  EMBER_CHECK(C == weight.size(1) * o.groups, op, "Given groups=", o.groups, ", weight of size ",
              weight.sizes(), ", expected input", input.sizes(), " to have ",
              weight.size(1) * o.groups, " channels, but got ", C, " channels instead");
  check_bias(op, o.bias, weight, weight.size(0));
  std::vector<int64_t> padded(dims), kernel(dims), out(dims);
  for (int d = 0; d < dims; ++d) {
    padded[d] = in[d] + left[d] + right[d];
    kernel[d] = dilation[d] * (k[d] - 1) + 1;
  }
  for (int d = 0; d < dims; ++d)
    EMBER_CHECK(padded[d] >= kernel[d], op, "Calculated padded input size per channel: ",
                per_channel(padded), ". Kernel size: ", per_channel(kernel),
                ". Kernel size can't be greater than actual input size");
  for (int d = 0; d < dims; ++d) out[d] = (padded[d] - kernel[d]) / stride[d] + 1;
  for (int d = 0; d < dims; ++d)
    c.p.stride[d] = stride[d], c.p.padding[d] = left[d], c.p.dilation[d] = dilation[d];
  c.out_h = dims == 2 ? out[0] : 1;
  c.out_w = out[dims - 1];
  finish(c, input, weight, o.bias);
  return c;
}

ConvProblem transpose_problem(const char* op, int dims, const Tensor& input, const Tensor& weight,
                              const ConvTransposeFuncOptions& o) {
  check_common(op, dims, input, weight, o.bias, o.groups);
  ConvProblem c;
  c.dims = dims, c.batched = input.dim() == dims + 2;
  c.p.groups = o.groups;
  const auto stride = expand_param(o.stride, dims, op, "stride");
  const auto dilation = expand_param(o.dilation, dims, op, "dilation");
  const auto padding = expand_param(o.padding, dims, op, "padding");
  const auto out_pad = expand_param(o.output_padding, dims, op, "output_padding");
  check_positive(op, stride, "stride");
  check_positive(op, dilation, "dilation");
  for (int64_t x : padding) EMBER_CHECK(x >= 0, op, "negative padding is not supported");
  for (int64_t x : out_pad) EMBER_CHECK(x >= 0, op, "negative output_padding is not supported");
  bool op_ok = true;
  for (int d = 0; d < dims; ++d)
    op_ok &= out_pad[d] < stride[d] || out_pad[d] < dilation[d];
  if (!op_ok) {
    const char* names[2][2] = {{"width", ""}, {"height", "width"}};
    std::string msg = "output padding must be smaller than either stride or dilation, but got";
    for (const auto& [label, v] : {std::pair{"output_padding", out_pad}, {"stride", stride},
                                   {"dilation", dilation}})
      for (int d = 0; d < dims; ++d)
        msg += std::string(" ") + label + "_" + names[dims - 1][d] + ": " + std::to_string(v[d]);
    fail(op, msg);
  }
  const int64_t lead = c.batched ? 2 : 1;
  const int64_t C = input.size(lead - 1);
  EMBER_CHECK(C == weight.size(0), op, "Given transposed=1, weight of size ", weight.sizes(),
              ", expected input", input.sizes(), " to have ", weight.size(0),
              " channels, but got ", C, " channels instead");
  check_bias(op, o.bias, weight, weight.size(1) * o.groups);
  std::vector<int64_t> in(dims), out(dims);
  for (int d = 0; d < dims; ++d) {
    in[d] = input.size(lead + d);
    out[d] = (in[d] - 1) * stride[d] - 2 * padding[d] + dilation[d] * (weight.size(2 + d) - 1) +
             out_pad[d] + 1;
  }
  for (int d = 0; d < dims; ++d)
    EMBER_CHECK(out[d] > 0, op, "Given input size per channel: ", per_channel(in),
                ". Calculated output size per channel: ", per_channel(out),
                ". Output size is too small");
  for (int d = 0; d < dims; ++d)
    c.p.stride[d] = stride[d], c.p.padding[d] = padding[d], c.p.dilation[d] = dilation[d];
  c.out_h = dims == 2 ? out[0] : 1;
  c.out_w = out[dims - 1];
  finish(c, input, weight, o.bias);
  return c;
}

// Back to the caller's view: drop the height-1 dim of a 1-D problem and the added batch dim.
Tensor from_2d(const ConvProblem& c, Tensor t) {
  if (c.dims == 1) t = t.squeeze(2);
  if (!c.batched) t = t.squeeze(0);
  return t;
}

// The caller's shape for a weight gradient computed in the problem's terms.
Tensor weight_from_2d(const ConvProblem& c, const Tensor& gw) {
  return c.dims == 1 ? gw.squeeze(2) : gw;
}

Tensor run_conv(const char* op, const ConvProblem& c) {
  Tensor out = empty({c.input.size(0), c.weight.size(0), c.out_h, c.out_w}, c.input.options());
  conv_kernel(op, c.input, &backend::ConvKernels::conv2d)(c.input, c.weight, c.bias, out, c.p);
  return from_2d(c, out);
}

Tensor run_transpose(const char* op, const ConvProblem& c) {
  Tensor out = empty({c.input.size(0), c.weight.size(1) * c.p.groups, c.out_h, c.out_w},
                     c.input.options());
  conv_kernel(op, c.input, &backend::ConvKernels::conv2d_adjoint)(c.input, c.weight, c.bias, out,
                                                                  c.p);
  return from_2d(c, out);
}

// grad_output in the problem's terms, checked against the size the forward would produce.
Tensor grad_2d(const char* op, const ConvProblem& c, const Tensor& grad, int64_t channels) {
  Tensor g = to_2d(grad, c.dims, !c.batched).to(c.input.dtype()).contiguous();
  const std::vector<int64_t> want = {c.input.size(0), channels, c.out_h, c.out_w};
  EMBER_CHECK(g.sizes() == IntArrayRef(want), op, "expected grad_output of the forward's output ",
              "size, got ", grad.sizes());
  return g;
}

// Which of (input, weight, bias) the backward must differentiate: PyTorch's output_mask. A
// network's first layer needs no grad_input (its input is data), a frozen layer no grad_weight,
// a layer without bias no grad_bias; the gradient not needed is returned undefined.
struct Needed {
  bool input = true, weight = true, bias = false;
};

std::tuple<Tensor, Tensor, Tensor> conv_backward(const char* op, int dims, const Tensor& grad_out,
                                                 const Tensor& input, const Tensor& weight,
                                                 const ConvFuncOptions& o, Needed needed) {
  const ConvProblem c = conv_problem(op, dims, input, weight, o);
  const Tensor g = grad_2d(op, c, grad_out, c.weight.size(0));
  const Tensor gi = needed.input ? empty(c.input.sizes(), c.input.options()) : Tensor();
  const Tensor gw = needed.weight ? empty(c.weight.sizes(), c.input.options()) : Tensor();
  const Tensor gb = needed.bias ? empty({c.weight.size(0)}, g.options()) : Tensor();
  conv_kernel(op, g, &backend::ConvKernels::conv2d_backward)(
      {g, c.input, c.weight, gi, gw, gb, c.p});
  return {gi.defined() ? from_2d(c, gi) : gi, gw.defined() ? weight_from_2d(c, gw) : gw, gb};
}

// y = adjoint(x, w): grad_x is the forward conv of grad_y with w; grad_w is the weight gradient
// of that conv with x playing the output's part.
std::tuple<Tensor, Tensor, Tensor> transpose_backward(const char* op, int dims,
                                                      const Tensor& grad_output,
                                                      const Tensor& input, const Tensor& weight,
                                                      const ConvTransposeFuncOptions& options,
                                                      Needed needed) {
  const ConvProblem c = transpose_problem(op, dims, input, weight, options);
  const Tensor g = grad_2d(op, c, grad_output, c.weight.size(1) * c.p.groups);
  Tensor gi, gw;
  if (needed.input) {
    gi = empty(c.input.sizes(), c.input.options());
    conv_kernel(op, g, &backend::ConvKernels::conv2d)(g, c.weight, {}, gi, c.p);
    gi = from_2d(c, gi);
  }
  if (needed.weight) {
    gw = empty(c.weight.sizes(), c.input.options());
    conv_kernel(op, g, &backend::ConvKernels::conv2d_weight_grad)(c.input, g, gw, c.p);
    gw = weight_from_2d(c, gw);
  }
  Tensor gb = needed.bias ? g.sum({0, 2, 3}) : Tensor();
  return {gi, gw, gb};
}

// Note [Convolution double backward]
// Without create_graph the backward runs the kernels above. With it, the same gradients are
// built from differentiable ops, so a gradient penalty can differentiate them again (to any
// order: those ops are convolutions, which come back here). Both are written in the frame the
// kernels use: the input padded on the left by `padding` and cut to the `needed` elements the
// windows read (zeros where the frame leaves the input), so asymmetric 'same' padding needs no
// special case.
//   conv y = conv(x, w):   grad_x = the frame of conv_transpose(g, w) at offset padding
//                          grad_w = weight_grad(frame of x, g)
//   transposed y = conv_transpose(x, w) (x = conv(frame of y, w)):
//                          grad_x = conv(frame of g, w), grad_w = weight_grad(frame of g, x)
// weight_grad is itself a convolution: the batch becomes the summed channel dim, and stride and
// dilation trade places.

// t's last two dims re-framed: out[i] = t[start + i] for i < length, zero where that leaves t.
Tensor window_2d(const Tensor& t, std::array<int64_t, 2> start, std::array<int64_t, 2> length) {
  const int64_t h = t.size(-2), w = t.size(-1);
  return pad(t, {-start[1], start[1] + length[1] - w, -start[0], start[0] + length[0] - h});
}

// conv2d's weight gradient (O, C / g, kH, kW) from `input` (N, C, ...) framed so that the
// forward reads it with no padding, and `grad` (N, O, Ho, Wo).
Tensor weight_grad_composite(const Tensor& input, const Tensor& grad,
                             const backend::Conv2dParams& p) {
  const int64_t n = input.size(0), c = input.size(1), g = p.groups;
  const int64_t h = input.size(2), w = input.size(3);
  // (C / g, g * N, H, W): group k's input channels see that group's copy of the batch.
  const Tensor channels_by_batch =
      input.reshape({n, g, c / g, h, w}).permute({2, 1, 0, 3, 4}).reshape({c / g, g * n, h, w});
  return conv2d(channels_by_batch, grad.transpose(0, 1),
                {.stride = std::vector<int64_t>{p.dilation[0], p.dilation[1]},
                 .dilation = std::vector<int64_t>{p.stride[0], p.stride[1]},
                 .groups = g})
      .transpose(0, 1);
}

// How many input elements per spatial dim the windows of `out` outputs read.
std::array<int64_t, 2> frame_size(const backend::Conv2dParams& p, const Tensor& weight_2d,
                                  int64_t out_h, int64_t out_w) {
  return {(out_h - 1) * p.stride[0] + p.dilation[0] * (weight_2d.size(2) - 1) + 1,
          (out_w - 1) * p.stride[1] + p.dilation[1] * (weight_2d.size(3) - 1) + 1};
}

// The problem's stride, dilation and groups with no padding, as conv or conv_transpose options.
template <class Options>
Options unpadded(const backend::Conv2dParams& p) {
  Options o;
  o.stride = std::vector<int64_t>{p.stride[0], p.stride[1]};
  o.dilation = std::vector<int64_t>{p.dilation[0], p.dilation[1]};
  o.groups = p.groups;
  return o;
}


std::tuple<Tensor, Tensor, Tensor> conv_backward_composite(const char* op, int dims,
                                                           const Tensor& grad_out,
                                                           const Tensor& input,
                                                           const Tensor& weight,
                                                           const ConvFuncOptions& o,
                                                           Needed needed) {
  // The problem's tensors come from differentiable reshapes and conversions, so they carry the
  // graph of input, weight and grad_out.
  const ConvProblem c = conv_problem(op, dims, input, weight, o);
  const Tensor g = grad_2d(op, c, grad_out, c.weight.size(0));
  const Tensor &x = c.input, &w = c.weight;
  const backend::Conv2dParams& p = c.p;
  Tensor gi, gw;
  if (needed.input) {
    const Tensor full = conv_transpose2d(g, w, unpadded<ConvTransposeFuncOptions>(p));
    gi = from_2d(c, window_2d(full, {p.padding[0], p.padding[1]}, {x.size(2), x.size(3)}));
  }
  if (needed.weight) {
    const Tensor x_frame = window_2d(x, {-p.padding[0], -p.padding[1]},
                                     frame_size(p, w, c.out_h, c.out_w));
    gw = weight_from_2d(c, weight_grad_composite(x_frame, g, p));
  }
  return {gi, gw, Tensor()};
}

std::tuple<Tensor, Tensor, Tensor> transpose_backward_composite(
    const char* op, int dims, const Tensor& grad_output, const Tensor& input,
    const Tensor& weight, const ConvTransposeFuncOptions& options, Needed needed) {
  const ConvProblem c = transpose_problem(op, dims, input, weight, options);
  const Tensor g = grad_2d(op, c, grad_output, c.weight.size(1) * c.p.groups);
  const Tensor &x = c.input, &w = c.weight;
  const backend::Conv2dParams& p = c.p;
  const Tensor g_frame = window_2d(g, {-p.padding[0], -p.padding[1]},
                                   frame_size(p, w, x.size(2), x.size(3)));
  return {needed.input ? from_2d(c, conv2d(g_frame, w, unpadded<ConvFuncOptions>(p))) : Tensor(),
          needed.weight ? weight_from_2d(c, weight_grad_composite(g_frame, x, p)) : Tensor(),
          Tensor()};
}

// Autograd: every convolution is PyTorch's ConvolutionBackward0 over (input, weight, bias).
// The options are kept without the bias tensor (the backward only needs to know there is one).
template <class Options>
Options without_bias(const Options& o) {
  Options r = o;
  r.bias = Tensor();
  return r;
}

// grad_bias: grad_output summed over every dim but the channel dim.
Tensor bias_grad(const Tensor& g, bool batched) {
  DimVector dims;
  for (int64_t d = 0; d < g.dim(); ++d)
    if (d != (batched ? 1 : 0)) dims.push_back(d);
  return g.sum(dims);
}

// Convolution and its transpose record one ConvolutionBackward0 node: `backward` runs the
// kernels, `composite` the differentiable form for create_graph (Note [Convolution double
// backward]). The bias gradient is taken here; the kernels see the options without bias.
template <class Options, class Forward, class Backward>
Tensor record_convolution(const char* op, int dims, const Tensor& input, const Tensor& weight,
                          const Options& o, const Forward& forward, Backward backward,
                          Backward composite) {
  autograd::Recorder rec(op, {&input, &weight, &o.bias});
  Tensor out = forward();
  if (rec)
    rec.record("ConvolutionBackward0", {out}, {input, weight},
               [op, dims, o = without_bias(o), backward, composite,
                needed = Needed{input.requires_grad(), weight.requires_grad(), o.bias.defined()}](
                   const autograd::Grads& g, const autograd::Saved& s) {
                 // The kernels' backward sums grad_bias (with grad_weight where a kernel can);
                 // the composite leaves it to bias_grad's differentiable sum.
                 auto [gi, gw, gb] = (is_grad_enabled() ? composite : backward)(
                     op, dims, g[0], s[0], s[1], o, needed);
                 const bool batched = s[0].dim() == dims + 2;
                 if (needed.bias && !gb.defined()) gb = bias_grad(g[0], batched);
                 return autograd::TensorList{gi, gw, gb};
               });
  return out;
}

Tensor conv_autograd(const char* op, int dims, const Tensor& input, const Tensor& weight,
                     const ConvFuncOptions& o) {
  return record_convolution(
      op, dims, input, weight, o,
      [&] { return run_conv(op, conv_problem(op, dims, input, weight, o)); }, conv_backward,
      conv_backward_composite);
}

Tensor transpose_autograd(const char* op, int dims, const Tensor& input, const Tensor& weight,
                          const ConvTransposeFuncOptions& o) {
  return record_convolution(
      op, dims, input, weight, o,
      [&] { return run_transpose(op, transpose_problem(op, dims, input, weight, o)); },
      transpose_backward, transpose_backward_composite);
}

// The options with another bias: autocast's redispatch passes the cast one.
template <class Options>
Options with_bias(const Options& options, const Tensor& bias) {
  Options o = options;
  o.bias = bias;
  return o;
}

}  // namespace

Tensor conv1d(const Tensor& input, const Tensor& weight, const ConvFuncOptions& options) {
  OpScope scope("conv1d", {&input, &weight, &options.bias});
  if (scope.autocast()) return conv1d(scope.cast(0), scope.cast(1), with_bias(options, scope.cast(2)));
  return conv_autograd("conv1d", 1, input, weight, options);
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const ConvFuncOptions& options) {
  OpScope scope("conv2d", {&input, &weight, &options.bias});
  if (scope.autocast()) return conv2d(scope.cast(0), scope.cast(1), with_bias(options, scope.cast(2)));
  return conv_autograd("conv2d", 2, input, weight, options);
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight,
                        const ConvTransposeFuncOptions& options) {
  OpScope scope("conv_transpose1d", {&input, &weight, &options.bias});
  if (scope.autocast()) return conv_transpose1d(scope.cast(0), scope.cast(1), with_bias(options, scope.cast(2)));
  return transpose_autograd("conv_transpose1d", 1, input, weight, options);
}

Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const ConvTransposeFuncOptions& options) {
  OpScope scope("conv_transpose2d", {&input, &weight, &options.bias});
  if (scope.autocast()) return conv_transpose2d(scope.cast(0), scope.cast(1), with_bias(options, scope.cast(2)));
  return transpose_autograd("conv_transpose2d", 2, input, weight, options);
}

std::tuple<Tensor, Tensor, Tensor> conv1d_backward(const Tensor& grad_output, const Tensor& input,
                                                   const Tensor& weight,
                                                   const ConvFuncOptions& options) {
  OpScope scope("conv1d_backward", {&grad_output, &input, &weight, &options.bias});
  return conv_backward("conv1d_backward", 1, grad_output, input, weight, options,
                       {.bias = options.bias.defined()});
}

std::tuple<Tensor, Tensor, Tensor> conv2d_backward(const Tensor& grad_output, const Tensor& input,
                                                   const Tensor& weight,
                                                   const ConvFuncOptions& options) {
  OpScope scope("conv2d_backward", {&grad_output, &input, &weight, &options.bias});
  return conv_backward("conv2d_backward", 2, grad_output, input, weight, options,
                       {.bias = options.bias.defined()});
}

std::tuple<Tensor, Tensor, Tensor> conv_transpose2d_backward(
    const Tensor& grad_output, const Tensor& input, const Tensor& weight,
    const ConvTransposeFuncOptions& options) {
  OpScope scope("conv_transpose2d_backward", {&grad_output, &input, &weight, &options.bias});
  return transpose_backward("conv_transpose2d_backward", 2, grad_output, input, weight, options,
                            {.bias = options.bias.defined()});
}

}  // namespace ember::nn::functional
