// Pooling front ends: max_pool1d/2d (optionally with indices), avg_pool1d/2d, adaptive
// avg/max pools and the backward kernels. Each checks its arguments with PyTorch's messages and
// output-size rules (ceil_mode included), then runs its device's kernel (backend/pool_kernels.h)
// on contiguous planes (P, H, W). The 1-D pools are the 2-D ones on a height-1 view.
#include <algorithm>
#include <string>
#include <vector>

#include "backend/family_kernel.h"
#include "core/op_entry.h"
#include "ember/creation.h"
#include "ember/index_ops.h"
#include "ember/nn/functional/conv.h"
#include "ops/nn_grad.h"
#include "ops/op_prelude.h"

namespace ember::nn::functional {
namespace {

// Kernel `entry` of the device of `t` (a pool's operands share it: the op's scope checked).
template <class Fn>
Fn pool_kernel(const char* op, const Tensor& t, Fn backend::PoolKernels::*entry) {
  return backend::kernel(op, t.device(), &backend::Backend::pool, entry);
}

// Python's floor division, for output sizes whose numerator can be negative.
int64_t div_floor(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// PyTorch's pooling_output_shape: in ceil mode the last window must start inside the input or
// the left padding.
int64_t pool_out(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil) {
  int64_t out = div_floor(in + 2 * pad - dil * (k - 1) - 1 + (ceil ? stride - 1 : 0), stride) + 1;
  if (ceil && (out - 1) * stride >= in + pad) --out;
  return out;
}

// An int-or-list with 1 or `dims` values, expanded; `what` is PyTorch's phrase for the rule.
std::vector<int64_t> expand(const IntOrList& v, int dims, const char* op, const char* name,
                            const char* what) {
  const auto& x = v.values();
  EMBER_CHECK(x.size() == 1 || x.size() == size_t(dims), op, op, ": ", name, " must ", what,
              ", got ", IntArrayRef(x));
  return x.size() == 1 ? std::vector<int64_t>(size_t(dims), x[0]) : x;
}

// A pooling call in the kernel's terms: planes (P, H, W) and the output's shape.
struct PoolProblem {
  Tensor planes;                 // (P, H, W) contiguous
  backend::Pool2dParams p;
  std::vector<int64_t> out_shape;  // the caller's leading dims + spatial output dims
  int64_t out_h = 1, out_w = 1;
};

// Checks rank and non-empty spatial dims; dims = 1 or 2 spatial dims.
void check_input(const char* op, const Tensor& input, int dims) {
  const int64_t nd = input.dim();
  EMBER_CHECK(nd == dims + 1 || nd == dims + 2, op, op, ": Expected ", dims + 1, "D or ", dims + 2,
              "D (batch mode) tensor with optional 0 dim batch size for input, but got:",
              input.sizes());
  for (int64_t d = nd - dims - 1; d < nd; ++d)
    EMBER_CHECK(input.size(d) > 0, op, op, ": Expected ", dims + 1, "D or ", dims + 2,
                "D (batch mode) tensor with optional 0 dim batch size for input, but got:",
                input.sizes());
}

// (..., H, W) -> (P, H, W); a 1-D problem is (..., L) -> (P, 1, L).
Tensor to_planes(const Tensor& input, int dims) {
  const int64_t nd = input.dim();
  const int64_t H = dims == 2 ? input.size(nd - 2) : 1, W = input.size(nd - 1);
  return input.reshape({-1, H, W}).contiguous();
}

std::vector<int64_t> leading(const Tensor& input, int dims) {
  const auto s = input.sizes();
  return {s.begin(), s.end() - dims};
}

// kernel/stride/padding/dilation for max (dilation) or avg (dilation 1) pooling.
PoolProblem window_problem(const char* op, const Tensor& input, int dims, const IntOrList& kernel,
                           const IntOrList& stride_in, const IntOrList& padding,
                           const IntOrList& dilation_in, bool ceil_mode) {
  const char* one = dims == 2 ? "either be a single int, or a tuple of two ints"
                              : "either be a single int, or a tuple of one int";
  const char* opt = dims == 2 ? "either be omitted, a single int, or a tuple of two ints"
                              : "either be omitted, a single int, or a tuple of one int";
  const auto k = expand(kernel, dims, op, "kernel_size", one);
  const auto st = stride_in.empty() ? k : expand(stride_in, dims, op, "stride", opt);
  const auto pad = expand(padding, dims, op, "padding", one);
  const auto dil = expand(dilation_in, dims, op, "dilation", one);
  check_input(op, input, dims);
  for (int d = 0; d < dims; ++d) {
    EMBER_CHECK(k[d] > 0, op, "kernel size should be greater than zero, but got ", IntArrayRef(k));
    EMBER_CHECK(st[d] != 0, op, "stride should not be zero");
    EMBER_CHECK(st[d] > 0, op, "stride should be greater than zero, but got ", IntArrayRef(st));
    EMBER_CHECK(dil[d] > 0, op, "dilation should be greater than zero, but got ",
                IntArrayRef(dil));
    EMBER_CHECK(pad[d] >= 0, op, "pad must be non-negative, but got pad: ", pad[d]);
    EMBER_CHECK(pad[d] <= k[d] / 2, op, "pad should be at most half of kernel size, but got pad=",
                pad[d], " and kernel_size=", k[d]);
  }
  PoolProblem pp;
  const int64_t nd = input.dim();
  std::vector<int64_t> in(dims), out(dims);
  for (int d = 0; d < dims; ++d) {
    in[d] = input.size(nd - dims + d);
    out[d] = pool_out(in[d], k[d], pad[d], st[d], dil[d], ceil_mode);
  }
  bool ok = true;
  for (int64_t o : out) ok &= o >= 1;
  if (!ok) {
    const int64_t C = input.size(nd - dims - 1);
    if (dims == 2)
      fail(op, "Given input size: (", C, "x", in[0], "x", in[1], "). Calculated output size: (", C,
           "x", out[0], "x", out[1], "). Output size is too small");
    fail(op, "Given input size: (", C, "x", in[0], "). Calculated output size: (", C, "x", out[0],
         "). Output size is too small");
  }
  // Spatial params in (H, W) order; a 1-D problem has a height-1 window with stride 1.
  const int off = 2 - dims;
  for (int d = 0; d < dims; ++d) {
    pp.p.kernel[off + d] = k[d], pp.p.stride[off + d] = st[d];
    pp.p.padding[off + d] = pad[d], pp.p.dilation[off + d] = dil[d];
  }
  pp.planes = to_planes(input, dims);
  pp.out_shape = leading(input, dims);
  for (int64_t o : out) pp.out_shape.push_back(o);
  pp.out_h = dims == 2 ? out[0] : 1;
  pp.out_w = out[dims - 1];
  return pp;
}

std::tuple<Tensor, Tensor> max_pool(const char* op, int dims, const Tensor& input,
                                    const IntOrList& kernel, const MaxPoolFuncOptions& o,
                                    bool with_indices) {
  PoolProblem pp = window_problem(op, input, dims, kernel, o.stride, o.padding, o.dilation,
                                  o.ceil_mode);
  const int64_t P = pp.planes.size(0);
  Tensor out = empty({P, pp.out_h, pp.out_w}, input.options());
  Tensor idx = with_indices
                   ? empty({P, pp.out_h, pp.out_w}, {.dtype = kInt64, .device = input.device()})
                   : Tensor();
  pool_kernel(op, input, &backend::PoolKernels::max_pool2d)(pp.planes, out, idx, pp.p);
  return {out.view(pp.out_shape), with_indices ? idx.view(pp.out_shape) : Tensor()};
}

Tensor avg_pool(const char* op, int dims, const Tensor& input, const IntOrList& kernel,
                const AvgPoolFuncOptions& o) {
  EMBER_CHECK(!o.divisor_override || *o.divisor_override != 0, op, "divisor must be not zero");
  PoolProblem pp = window_problem(op, input, dims, kernel, o.stride, o.padding, 1, o.ceil_mode);
  Tensor out = empty({pp.planes.size(0), pp.out_h, pp.out_w}, input.options());
  pool_kernel(op, input, &backend::PoolKernels::avg_pool2d)(pp.planes, out, pp.p,
                                                             o.count_include_pad,
                                                             o.divisor_override.value_or(0));
  return out.view(pp.out_shape);
}

// Adaptive pools: output sizes >= 0, input 2D/3D (1-D) or 3D/4D (2-D) with non-empty spatial dims.
struct AdaptiveProblem {
  Tensor planes;
  std::vector<int64_t> out_shape;
  int64_t out_h = 1, out_w = 1;
};

AdaptiveProblem adaptive_problem(const char* op, const Tensor& input, int dims,
                                 const IntOrList& output_size) {
  const auto& os = output_size.values();
  EMBER_CHECK(os.size() == 1 || os.size() == size_t(dims), op, op, ": output_size must be ",
              dims, ", got ", IntArrayRef(os));
  const int64_t nd = input.dim();
  EMBER_CHECK(nd == dims + 1 || nd == dims + 2, op, op, "(): Expected ", dims + 1, "D or ",
              dims + 2, "D tensor, but got ", input.sizes());
  for (int64_t d = nd - dims; d < nd; ++d)
    EMBER_CHECK(input.size(d) > 0, op, op,
                "(): Expected input to have non-zero size for non-batch dimensions, but input has "
                "sizes ",
                input.sizes(), " with dimension ", d, " being empty");
  AdaptiveProblem ap;
  ap.out_shape = leading(input, dims);
  for (int d = 0; d < dims; ++d) {
    const int64_t o = os.size() == 1 ? os[0] : os[d];
    EMBER_CHECK(o >= 0, op, op, ": elements of output_size must be greater than or equal to 0 ",
                "but received ", IntArrayRef(os));
    ap.out_shape.push_back(o);
  }
  ap.out_h = dims == 2 ? ap.out_shape[ap.out_shape.size() - 2] : 1;
  ap.out_w = ap.out_shape.back();
  ap.planes = to_planes(input, dims);
  return ap;
}

std::tuple<Tensor, Tensor> adaptive_max(const char* op, int dims, const Tensor& input,
                                        const IntOrList& output_size, bool with_indices) {
  const AdaptiveProblem ap = adaptive_problem(op, input, dims, output_size);
  const int64_t P = ap.planes.size(0);
  Tensor out = empty({P, ap.out_h, ap.out_w}, input.options());
  Tensor idx = with_indices
                   ? empty({P, ap.out_h, ap.out_w}, {.dtype = kInt64, .device = input.device()})
                   : Tensor();
  pool_kernel(op, input, &backend::PoolKernels::adaptive_max_pool2d)(ap.planes, out, idx);
  return {out.view(ap.out_shape), with_indices ? idx.view(ap.out_shape) : Tensor()};
}

Tensor adaptive_avg(const char* op, int dims, const Tensor& input, const IntOrList& output_size) {
  const AdaptiveProblem ap = adaptive_problem(op, input, dims, output_size);
  Tensor out = empty({ap.planes.size(0), ap.out_h, ap.out_w}, input.options());
  pool_kernel(op, input, &backend::PoolKernels::adaptive_avg_pool2d)(ap.planes, out);
  return out.view(ap.out_shape);
}

// grad_output checked against the forward's output shape, as planes (P, Ho, Wo).
Tensor grad_planes(const char* op, const Tensor& grad, IntArrayRef want, int64_t ho, int64_t wo) {
  EMBER_CHECK(grad.sizes() == want, op, "expected grad_output of size ", want, ", got ",
              grad.sizes());
  return grad.reshape({-1, ho, wo}).contiguous();
}

// ── autograd ──────────────────────────────────────────────────────────────
// Each pool records PyTorch's node (the 2-D name also for the 1-D pools, which PyTorch runs as
// the 2-D op between unsqueeze and squeeze). The backward kernels are linear in grad_output, so
// they are recorded in turn (linear_grad) with the forward as their adjoint: double backward
// works. A max pool's gradient is zero almost everywhere in the input, as in PyTorch.

// grad (out shape) scattered to the flat argmax indices (out shape) of planes of `sizes`.
Tensor max_grad(const char* node, const Tensor& grad, const Tensor& idx, const DimVector& sizes,
                int dims) {
  return linear_grad(
      node, grad,
      [&](const Tensor& g) {
        const int64_t nd = int64_t(sizes.size());
        int64_t P = 1, plane = 1, out_plane = 1;
        for (int64_t d = 0; d < nd; ++d) (d < nd - dims ? P : plane) *= sizes[size_t(d)];
        for (int64_t d = nd - dims; d < nd; ++d) out_plane *= idx.size(d);
        // Planes as (rows, last dim), so that a kernel sees the windows' rows (a 1-d pool's
        // planes are one row; a 3-d pool's rows run through its depth; 1 where a plane is empty).
        const int64_t W = std::max<int64_t>(sizes[size_t(nd - 1)], 1),
                      Wo = std::max<int64_t>(idx.size(nd - 1), 1);
        const Tensor gp = g.reshape({P, out_plane / Wo, Wo}).contiguous();
        Tensor gi = empty({P, plane / W, W}, g.options());
        pool_kernel(node, g, &backend::PoolKernels::max_pool_backward)(
            gp, idx.reshape({P, out_plane / Wo, Wo}).contiguous(), gi);
        return gi.view(sizes);
      },
      [idx, dims, out = DimVector(idx.sizes())](const Tensor& gg) {
        // The adjoint of the scatter: read gg at the indices.
        const int64_t nd = gg.dim();
        int64_t plane = 1;
        for (int64_t d = nd - dims; d < nd; ++d) plane *= gg.size(d);
        const Tensor flat = gg.reshape({-1, plane});
        return flat.gather(1, idx.reshape({flat.size(0), -1})).reshape(out);
      });
}

std::tuple<Tensor, Tensor> max_pool_autograd(const char* op, int dims, const Tensor& input,
                                             const IntOrList& kernel, const MaxPoolFuncOptions& o,
                                             bool with_indices) {
  autograd::Recorder rec(op, {&input});
  auto [out, idx] = max_pool(op, dims, input, kernel, o, with_indices || bool(rec));
  if (rec)
    rec.record("MaxPool2DWithIndicesBackward0", {out}, {idx},
               [sizes = DimVector(input.sizes()), dims](const Grads& g, const Saved& s) {
                 return TensorList{max_grad("MaxPool2DWithIndicesBackwardBackward0", g[0], s[0],
                                            sizes, dims)};
               });
  return {out, with_indices ? idx : Tensor()};
}

std::tuple<Tensor, Tensor> adaptive_max_autograd(const char* op, int dims, const Tensor& input,
                                                 const IntOrList& output_size, bool with_indices) {
  autograd::Recorder rec(op, {&input});
  auto [out, idx] = adaptive_max(op, dims, input, output_size, with_indices || bool(rec));
  if (rec)
    rec.record("AdaptiveMaxPool2DBackward0", {out}, {idx},
               [sizes = DimVector(input.sizes()), dims](const Grads& g, const Saved& s) {
                 return TensorList{max_grad("AdaptiveMaxPool2DBackwardBackward0", g[0], s[0],
                                            sizes, dims)};
               });
  return {out, with_indices ? idx : Tensor()};
}

Tensor avg_grad(const Tensor& grad, const DimVector& sizes, Dtype dtype, int dims,
                const IntOrList& kernel, const AvgPoolFuncOptions& o) {
  return linear_grad(
      "AvgPool2DBackwardBackward0", grad,
      [&](const Tensor& g) {
        const char* op = "avg_pool2d_backward";
        const Tensor like = empty(sizes, {.dtype = dtype, .device = g.device()});
        PoolProblem pp = window_problem(op, like, dims, kernel, o.stride, o.padding, 1,
                                        o.ceil_mode);
        const Tensor gp = grad_planes(op, g, pp.out_shape, pp.out_h, pp.out_w);
        Tensor gi = empty(pp.planes.sizes(), g.options());
        pool_kernel(op, g, &backend::PoolKernels::avg_pool2d_backward)(
            gp, gi, pp.p, o.count_include_pad, o.divisor_override.value_or(0));
        return gi.view(sizes);
      },
      [dims, kernel, o](const Tensor& gg) {
        return dims == 2 ? avg_pool2d(gg, kernel, o) : avg_pool1d(gg, kernel, o);
      });
}

Tensor avg_pool_autograd(const char* op, int dims, const Tensor& input, const IntOrList& kernel,
                         const AvgPoolFuncOptions& o) {
  autograd::Recorder rec(op, {&input});
  Tensor out = avg_pool(op, dims, input, kernel, o);
  if (rec)
    rec.record("AvgPool2DBackward0", {out}, {},
               [sizes = DimVector(input.sizes()), dt = input.dtype(), dims, kernel, o](
                   const Grads& g, const Saved&) {
                 return TensorList{avg_grad(g[0], sizes, dt, dims, kernel, o)};
               });
  return out;
}

Tensor adaptive_avg_grad(const Tensor& grad, const DimVector& sizes, int dims) {
  return linear_grad(
      "AdaptiveAvgPool2DBackwardBackward0", grad,
      [&](const Tensor& g) {
        const char* op = "adaptive_avg_pool2d_backward";
        const int64_t nd = g.dim();
        const Tensor like = empty(sizes, g.options());
        const IntOrList os = dims == 2 ? IntOrList({g.size(nd - 2), g.size(nd - 1)})
                                       : IntOrList(g.size(nd - 1));
        const AdaptiveProblem ap = adaptive_problem(op, like, dims, os);
        const Tensor gp = grad_planes(op, g, ap.out_shape, ap.out_h, ap.out_w);
        Tensor gi = empty(ap.planes.sizes(), g.options());
        pool_kernel(op, g, &backend::PoolKernels::adaptive_avg_pool2d_backward)(gp, gi);
        return gi.view(sizes);
      },
      [dims, out = DimVector(grad.sizes())](const Tensor& gg) {
        const int64_t nd = int64_t(out.size());
        return dims == 2 ? adaptive_avg_pool2d(gg, {out[size_t(nd - 2)], out[size_t(nd - 1)]})
                         : adaptive_avg_pool1d(gg, out[size_t(nd - 1)]);
      });
}

Tensor adaptive_avg_autograd(const char* op, int dims, const Tensor& input,
                             const IntOrList& output_size) {
  autograd::Recorder rec(op, {&input});
  Tensor out = adaptive_avg(op, dims, input, output_size);
  if (rec)
    rec.record("AdaptiveAvgPool2DBackward0", {out}, {},
               [sizes = DimVector(input.sizes()), dims](const Grads& g, const Saved&) {
                 return TensorList{adaptive_avg_grad(g[0], sizes, dims)};
               });
  return out;
}

}  // namespace

Tensor max_pool1d(const Tensor& input, IntOrList kernel_size, const MaxPoolFuncOptions& options) {
  return std::get<0>(max_pool_autograd("max_pool1d", 1, input, kernel_size, options, false));
}

Tensor max_pool2d(const Tensor& input, IntOrList kernel_size, const MaxPoolFuncOptions& options) {
  return std::get<0>(max_pool_autograd("max_pool2d", 2, input, kernel_size, options, false));
}

std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, IntOrList kernel_size,
                                                   const MaxPoolFuncOptions& options) {
  return max_pool_autograd("max_pool1d", 1, input, kernel_size, options, true);
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntOrList kernel_size,
                                                   const MaxPoolFuncOptions& options) {
  return max_pool_autograd("max_pool2d", 2, input, kernel_size, options, true);
}

Tensor avg_pool1d(const Tensor& input, IntOrList kernel_size, const AvgPoolFuncOptions& options) {
  return avg_pool_autograd("avg_pool1d", 1, input, kernel_size, options);
}

Tensor avg_pool2d(const Tensor& input, IntOrList kernel_size, const AvgPoolFuncOptions& options) {
  return avg_pool_autograd("avg_pool2d", 2, input, kernel_size, options);
}

Tensor adaptive_avg_pool1d(const Tensor& input, IntOrList output_size) {
  return adaptive_avg_autograd("adaptive_avg_pool1d", 1, input, output_size);
}

Tensor adaptive_avg_pool2d(const Tensor& input, IntOrList output_size) {
  return adaptive_avg_autograd("adaptive_avg_pool2d", 2, input, output_size);
}

Tensor adaptive_max_pool1d(const Tensor& input, IntOrList output_size) {
  return std::get<0>(adaptive_max_autograd("adaptive_max_pool1d", 1, input, output_size, false));
}

Tensor adaptive_max_pool2d(const Tensor& input, IntOrList output_size) {
  return std::get<0>(adaptive_max_autograd("adaptive_max_pool2d", 2, input, output_size, false));
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                            IntOrList output_size) {
  return adaptive_max_autograd("adaptive_max_pool1d", 1, input, output_size, true);
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            IntOrList output_size) {
  return adaptive_max_autograd("adaptive_max_pool2d", 2, input, output_size, true);
}

Tensor max_pool2d_backward(const Tensor& grad_output, const Tensor& input, const Tensor& indices) {
  const char* op = "max_pool2d_backward";
  OpScope scope(op, {&grad_output, &input, &indices});
  check_input(op, input, 2);
  EMBER_CHECK(indices.dtype() == kInt64 && indices.dim() == input.dim(), op,
              "expected int64 indices with the input's rank, got ", indices.dtype(), " ",
              indices.sizes());
  const int64_t nd = input.dim();
  const Tensor g = grad_planes(op, grad_output, indices.sizes(), indices.size(nd - 2),
                               indices.size(nd - 1));
  const Tensor planes = to_planes(input, 2);
  EMBER_CHECK(g.size(0) == planes.size(0), op, "expected indices with the input's leading dims ",
              "(", input.sizes(), "), got ", indices.sizes());
  Tensor gi = empty(planes.sizes(), grad_output.options());
  pool_kernel(op, g, &backend::PoolKernels::max_pool_backward)(
      g, indices.reshape({-1, g.size(1), g.size(2)}).contiguous(), gi);
  return gi.view(input.sizes());
}

Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& input, IntOrList kernel_size,
                           const AvgPoolFuncOptions& o) {
  const char* op = "avg_pool2d_backward";
  OpScope scope(op, {&grad_output, &input});
  PoolProblem pp = window_problem(op, input, 2, kernel_size, o.stride, o.padding, 1, o.ceil_mode);
  const Tensor g = grad_planes(op, grad_output, pp.out_shape, pp.out_h, pp.out_w);
  Tensor gi = empty(pp.planes.sizes(), grad_output.options());
  pool_kernel(op, g, &backend::PoolKernels::avg_pool2d_backward)(
      g, gi, pp.p, o.count_include_pad, o.divisor_override.value_or(0));
  return gi.view(input.sizes());
}

Tensor adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& input) {
  const char* op = "adaptive_avg_pool2d_backward";
  OpScope scope(op, {&grad_output, &input});
  const int64_t nd = grad_output.dim();
  EMBER_CHECK(nd == input.dim() && nd >= 2, op, "expected grad_output with the input's rank, got ",
              grad_output.sizes(), " for input ", input.sizes());
  const AdaptiveProblem ap = adaptive_problem(
      op, input, 2, {grad_output.size(nd - 2), grad_output.size(nd - 1)});
  const Tensor g = grad_planes(op, grad_output, ap.out_shape, ap.out_h, ap.out_w);
  Tensor gi = empty(ap.planes.sizes(), grad_output.options());
  pool_kernel(op, g, &backend::PoolKernels::adaptive_avg_pool2d_backward)(g, gi);
  return gi.view(input.sizes());
}

}  // namespace ember::nn::functional
