// interpolate (nearest, nearest-exact, linear, bilinear) and pad (constant, reflect, replicate,
// circular) with their backward functions: PyTorch's argument handling and size checks here,
// each call reduced to planes for its device's kernels (backend/resize_kernels.h). Constant
// padding is a fill and a copy.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "backend/family_kernel.h"
#include "ember/creation.h"
#include "ember/nn/functional/conv.h"
#include "ops/nn_grad.h"

namespace ember::nn::functional {
namespace {

// ── interpolate ─────────────────────────────────────────────────────────────
using Mode = backend::ResizeMode;
using Resize = backend::ResizeParams;

// Kernel `entry` of the device of `t`.
template <class Fn>
Fn resize_kernel(const char* op, const Tensor& t, Fn backend::ResizeKernels::*entry) {
  return backend::kernel(op, t.device(), &backend::Backend::resize, entry);
}

// PyTorch's F.interpolate argument handling, then upsample_*'s size checks.
Resize resize_problem(const char* op, IntArrayRef sizes, const InterpolateFuncOptions& o) {
  Resize r;
  const int64_t nd = int64_t(sizes.size());
  const std::string& m = o.mode;
  const bool linear = m == "linear" || m == "bilinear" || m == "bicubic" || m == "trilinear";
  EMBER_CHECK(linear || !o.align_corners, op, "align_corners option can only be set with the ",
              "interpolating modes: linear | bilinear | bicubic | trilinear");
  r.align_corners = o.align_corners.value_or(false);
  const int64_t dim = nd - 2;
  EMBER_CHECK(!(!o.size.empty() && !o.scale_factor.empty()), op,
              "only one of size or scale_factor should be defined");
  EMBER_CHECK(!o.size.empty() || !o.scale_factor.empty(), op,
              "either size or scale_factor should be defined");
  EMBER_CHECK(!(o.recompute_scale_factor.value_or(false) && !o.size.empty()), op,
              "recompute_scale_factor is not meaningful with an explicit size.");
  const bool ok_mode = m == "nearest" || m == "nearest-exact" || linear || m == "area";
  EMBER_CHECK(ok_mode && nd >= 3 && nd <= 5, op, "Input Error: Only 3D, 4D and 5D input Tensors ",
              "supported (got ", nd, "D) for the modes: nearest | linear | bilinear | bicubic | ",
              "trilinear | area | nearest-exact (got ", m, ")");
  const bool supported = ((m == "nearest" || m == "nearest-exact") && (nd == 3 || nd == 4)) ||
                         (m == "linear" && nd == 3) || (m == "bilinear" && nd == 4);
  if (!supported) {
    EMBER_CHECK(!(m == "linear" && nd != 3), op, "Got ", nd, "D input, but linear mode needs 3D input");
    EMBER_CHECK(!(m == "bilinear" && nd != 4), op, "Got ", nd, "D input, but bilinear mode needs 4D input");
    fail(op, "mode '", m, "' for ", nd, "D input is not implemented");
  }
  r.dims = int(dim);
  r.mode = m == "nearest" ? Mode::Nearest : m == "nearest-exact" ? Mode::NearestExact : Mode::Linear;
  int64_t out[2] = {0, 0};  // dim is 1 or 2 from here on
  std::optional<double> scales[2];
  if (!o.size.empty()) {
    const auto& s = o.size.values();
    EMBER_CHECK(s.size() == 1 || int64_t(s.size()) == dim, op, "Input and output must have the ",
                "same number of spatial dimensions, but got input with spatial dimensions of ",
                IntArrayRef(sizes.data() + 2, size_t(dim)), " and output size of ", IntArrayRef(s),
                ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size ",
                "in (o1, o2, ...,oK) format.");
    for (int64_t d = 0; d < dim; ++d) out[d] = s.size() == 1 ? s[0] : s[d];
  } else {
    const auto& f = o.scale_factor.values();
    EMBER_CHECK(f.size() == 1 || int64_t(f.size()) == dim, op, "Input and scale_factor must have ",
                "the same number of spatial dimensions, but got input with spatial dimensions of ",
                IntArrayRef(sizes.data() + 2, size_t(dim)), " and scale_factor of shape ",
                f.size(), ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and ",
                "scale_factor in (s1, s2, ...,sK) format.");
    const bool recompute = o.recompute_scale_factor.value_or(false);
    for (int64_t d = 0; d < dim; ++d) {
      const double sf = f.size() == 1 ? f[0] : f[d];
      // Python floors for recompute_scale_factor; the C++ path truncates (the same for sf > 0).
      out[d] = recompute ? int64_t(std::floor(double(sizes[2 + d]) * sf))
                         : int64_t(double(sizes[2 + d]) * sf);
      if (!recompute) scales[d] = sf;
    }
  }
  const int off = 2 - int(dim);
  for (int64_t d = 0; d < dim; ++d) {
    r.in[off + d] = sizes[2 + d], r.out[off + d] = out[d], r.scale[off + d] = scales[d];
  }
  bool positive = true;
  for (int64_t d = 0; d < dim; ++d) positive &= sizes[2 + d] > 0 && out[d] > 0;
  if (!positive) {
    if (dim == 2)
      fail(op, "Input and output sizes should be greater than 0, but got input (H: ", r.in[0],
           ", W: ", r.in[1], ") output (H: ", r.out[0], ", W: ", r.out[1], ")");
    fail(op, "Input and output sizes should be greater than 0, but got input (W: ", r.in[1],
         ") and output (W: ", r.out[1], ")");
  }
  return r;
}

// ── pad ──────────────────────────────────────────────────────────────────────
using backend::PadMode;

// A non-constant pad of the last k = pad.size() / 2 dims, as planes (P, D, H, W) with the
// unpadded dims of size 1.
struct PadProblem {
  backend::PadParams p;
  std::vector<int64_t> out_sizes;
};

PadProblem pad_problem(const char* op, IntArrayRef sizes, IntArrayRef pad, const std::string& m) {
  PadProblem pp;
  pp.p.mode = m == "reflect" ? PadMode::Reflect : m == "replicate" ? PadMode::Replicate
                                                                   : PadMode::Circular;
  const int64_t nd = int64_t(sizes.size()), k = int64_t(pad.size()) / 2;
  EMBER_CHECK(k >= 1 && k <= 3 && (nd == k + 1 || nd == k + 2), op, "Only 2D, 3D, 4D, 5D padding with non-constant ",
              "padding are supported for now");
  pp.out_sizes = sizes.vec();
  for (int64_t d = 0; d < nd - k; ++d) pp.p.planes *= sizes[d];
  for (int64_t i = 0; i < k; ++i) {
    const int64_t dim = nd - 1 - i, in = sizes[dim], l = pad[2 * i], r = pad[2 * i + 1];
    const int64_t out = in + l + r;
    if (pp.p.mode == PadMode::Reflect)
      EMBER_CHECK(l < in && r < in, op, "Argument #4: Padding size should be less than the ",
                  "corresponding input dimension, but got: padding (", l, ", ", r,
                  ") at dimension ", dim, " of input ", sizes);
    if (pp.p.mode == PadMode::Circular) {
      EMBER_CHECK(l <= in && r <= in, op, "Padding value causes wrapping around more than once.");
      EMBER_CHECK(out >= 0 && in + std::min<int64_t>(l, 0) + std::min<int64_t>(r, 0) > 0, op,
                  "Negative padding value is resulting in an empty dimension.");
    }
    EMBER_CHECK(in > 0 && out >= 1, op, "input (", sizes, ") is too small at dimension ", dim,
                ": calculated output size ", out, " (padding ", l, ", ", r, ")");
    pp.p.in[2 - i] = in, pp.p.out[2 - i] = out, pp.out_sizes[size_t(dim)] = out;
    pp.p.left[2 - i] = l, pp.p.right[2 - i] = r;
  }
  return pp;
}

void check_pad_list(const char* op, int64_t nd, IntArrayRef pad) {
  EMBER_CHECK(pad.size() % 2 == 0, op, "Padding length must be divisible by 2");
  EMBER_CHECK(int64_t(pad.size()) <= nd * 2, op, "Padding length too large");
}

void check_pad_mode(const char* op, const PadFuncOptions& o) {
  const std::string& m = o.mode;
  EMBER_CHECK(m == "constant" || m == "reflect" || m == "replicate" || m == "circular", op,
              "Unrecognised padding mode ", m);
  EMBER_CHECK(m == "constant" || !o.value || *o.value == 0, op, "Padding mode \"", m,
              "\" doesn't take in value argument");
}

// constant_pad_nd's views: the part of `input` that survives negative pads, and the part of the
// output that positive pads leave for it.
std::pair<Tensor, Tensor> constant_views(Tensor input, Tensor output, IntArrayRef pad) {
  const int64_t nd = input.dim(), k = int64_t(pad.size()) / 2;
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = nd - 1 - i, l = pad[2 * i], r = pad[2 * i + 1];
    if (l < 0) input = input.narrow(d, -l, input.size(d) + l);
    if (r < 0) input = input.narrow(d, 0, input.size(d) + r);
    if (l > 0) output = output.narrow(d, l, output.size(d) - l);
    if (r > 0) output = output.narrow(d, 0, output.size(d) - r);
  }
  return {input, output};
}

// Sizes after padding; empty dims only when no pad is positive (then the result is a crop).
std::vector<int64_t> constant_out_sizes(const char* op, IntArrayRef sizes, IntArrayRef pad,
                                        bool allow_empty) {
  const int64_t nd = int64_t(sizes.size()), k = int64_t(pad.size()) / 2;
  std::vector<int64_t> out = sizes.vec();
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = nd - 1 - i;
    out[d] = sizes[d] + pad[2 * i] + pad[2 * i + 1];
    EMBER_CHECK(out[d] > 0 || (allow_empty && out[d] == 0), op, "The input size ", sizes[d], ", plus negative padding ",
                pad[2 * i], " and ", pad[2 * i + 1], " resulted in a negative output size, ",
                "which is invalid. Check dimension ", d, " of your input.");
  }
  return out;
}

}  // namespace

namespace {

// PyTorch 1.13's node of upsample_<mode><d>d.vec (F.interpolate always calls the .vec overload).
const char* interpolate_node(const Resize& r, bool backward) {
  static const char* names[2][3][2] = {
      {{"UpsampleNearest1DBackward1", "UpsampleNearest2DBackward1"},
       {"UpsampleNearestExact1DBackward1", "UpsampleNearestExact2DBackward1"},
       {"UpsampleLinear1DBackward1", "UpsampleBilinear2DBackward1"}},
      {{"UpsampleNearest1DBackwardBackward1", "UpsampleNearest2DBackwardBackward1"},
       {"UpsampleNearestExact1DBackwardBackward1", "UpsampleNearestExact2DBackwardBackward1"},
       {"UpsampleLinear1DBackwardBackward1", "UpsampleBilinear2DBackwardBackward1"}}};
  return names[backward][int(r.mode)][r.dims - 1];
}

Tensor interpolate_kernel(const Tensor& input, const InterpolateFuncOptions& options);

}  // namespace

// Autograd: the backward kernel is linear in grad_output and recorded with interpolate as its
// adjoint (linear_grad), so double backward works.
Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options) {
  autograd::Recorder rec("interpolate", {&input});
  Tensor out = interpolate_kernel(input, options);
  if (rec) {
    const Resize r = resize_problem("interpolate", input.sizes(), options);
    rec.record(interpolate_node(r, false), {out}, {},
               [sizes = DimVector(input.sizes()), options, node = interpolate_node(r, true)](
                   const autograd::Grads& g, const autograd::Saved&) {
                 return autograd::TensorList{linear_grad(
                     node, g[0],
                     [&](const Tensor& g) { return interpolate_backward(g, sizes, options); },
                     [options](const Tensor& gg) { return interpolate(gg, options); })};
               });
  }
  return out;
}

namespace {
Tensor interpolate_kernel(const Tensor& input, const InterpolateFuncOptions& options) {
  const Resize r = resize_problem("interpolate", input.sizes(), options);
  const int64_t P = input.size(0) * input.size(1);
  const Tensor x = input.contiguous();
  std::vector<int64_t> shape = {input.size(0), input.size(1)};
  if (r.dims == 2) shape.push_back(r.out[0]);
  shape.push_back(r.out[1]);
  Tensor out = empty(shape, input.options());
  resize_kernel("interpolate", x, &backend::ResizeKernels::interpolate)(
      out.view({P, r.out[0], r.out[1]}), x.view({P, r.in[0], r.in[1]}), r);
  return out;
}
}  // namespace

Tensor interpolate_backward(const Tensor& grad_output, IntArrayRef input_sizes,
                            const InterpolateFuncOptions& options) {
  const char* op = "interpolate_backward";
  const Resize r = resize_problem(op, input_sizes, options);
  std::vector<int64_t> want = {input_sizes[0], input_sizes[1]};
  if (r.dims == 2) want.push_back(r.out[0]);
  want.push_back(r.out[1]);
  EMBER_CHECK(grad_output.sizes() == IntArrayRef(want), op, "expected grad_output of size ",
              IntArrayRef(want), ", got ", grad_output.sizes());
  const Tensor g = grad_output.contiguous();
  Tensor gi = empty(input_sizes, grad_output.options());
  const int64_t P = input_sizes[0] * input_sizes[1];
  resize_kernel(op, g, &backend::ResizeKernels::interpolate_backward)(
      gi.view({P, r.in[0], r.in[1]}), g.view({P, r.out[0], r.out[1]}), r);
  return gi;
}

namespace {
Tensor pad_kernel(const Tensor& input, IntArrayRef pad, const PadFuncOptions& options);

// PyTorch 1.13's node: constant_pad_nd, reflection/replication_pad{1,2,3}d by the number of
// padded dims; circular padding is a composite of slices there (CopySlices).
const char* pad_node(const PadFuncOptions& o, size_t pad_len, bool backward) {
  if (o.mode == "circular") return backward ? "CopySlicesBackward" : "CopySlices";
  if (o.mode == "constant") return backward ? "ConstantPadNdBackwardBackward0" : "ConstantPadNdBackward0";
  static const char* names[2][2][3] = {
      {{"ReflectionPad1DBackward0", "ReflectionPad2DBackward0", "ReflectionPad3DBackward0"},
       {"ReplicationPad1DBackward0", "ReplicationPad2DBackward0", "ReplicationPad3DBackward0"}},
      {{"ReflectionPad1DBackwardBackward0", "ReflectionPad2DBackwardBackward0",
        "ReflectionPad3DBackwardBackward0"},
       {"ReplicationPad1DBackwardBackward0", "ReplicationPad2DBackwardBackward0",
        "ReplicationPad3DBackwardBackward0"}}};
  const size_t k = std::min<size_t>(std::max<size_t>(pad_len / 2, 1), 3) - 1;
  return names[backward][o.mode == "replicate"][k];
}

// The name PyTorch's F.pad reaches for the mode and the number of padded dims (the profiler and
// autocast's table see it: reflection and replication padding run in float32 under CPU
// autocast); constant and circular padding are "pad".
const char* pad_op_name(const std::string& mode, size_t pad_size) {
  static constexpr const char* kReflection[] = {"reflection_pad1d", "reflection_pad2d",
                                                "reflection_pad3d"};
  static constexpr const char* kReplication[] = {"replication_pad1d", "replication_pad2d",
                                                 "replication_pad3d"};
  const size_t dims = pad_size / 2;
  if (dims < 1 || dims > 3) return "pad";
  if (mode == "reflect") return kReflection[dims - 1];
  if (mode == "replicate") return kReplication[dims - 1];
  return "pad";
}
}  // namespace

// Autograd: the backward kernel (a crop, or a scatter of the reflected/replicated elements) is
// linear in grad_output and recorded with pad (value 0) as its adjoint, so double backward works.
Tensor pad(const Tensor& input, IntArrayRef pad, const PadFuncOptions& options) {
  autograd::Recorder rec(pad_op_name(options.mode, pad.size()), {&input});
  if (rec.autocast()) return nn::functional::pad(rec.cast(0), pad, options);
  Tensor out = pad_kernel(input, pad, options);
  if (rec) {
    PadFuncOptions o = options;
    o.value.reset();  // the gradient does not depend on the fill value
    rec.record(pad_node(o, pad.size(), false), {out}, {},
               [sizes = DimVector(input.sizes()), p = DimVector(pad), o,
                node = pad_node(o, pad.size(), true)](const autograd::Grads& g,
                                                      const autograd::Saved&) {
                 return autograd::TensorList{linear_grad(
                     node, g[0], [&](const Tensor& g) { return pad_backward(g, sizes, p, o); },
                     [p, o](const Tensor& gg) { return nn::functional::pad(gg, p, o); })};
               });
  }
  return out;
}

namespace {
Tensor pad_kernel(const Tensor& input, IntArrayRef pad, const PadFuncOptions& options) {
  const char* op = "pad";
  check_pad_list(op, input.dim(), pad);
  check_pad_mode(op, options);
  if (options.mode == "constant") {
    bool any_positive = false;
    for (int64_t v : pad) any_positive |= v > 0;
    const auto sizes = constant_out_sizes(op, input.sizes(), pad, !any_positive);
    if (!any_positive) return constant_views(input, input, pad).first.clone();
    Tensor out = full(sizes, options.value.value_or(0.0), input.options());
    auto [src, dst] = constant_views(input, out, pad);
    dst.copy_(src);
    return out;
  }
  const PadProblem pp = pad_problem(op, input.sizes(), pad, options.mode);
  const Tensor x = input.contiguous();
  Tensor out = empty(pp.out_sizes, input.options());
  resize_kernel(op, x, &backend::ResizeKernels::pad)(out, x, pp.p);
  return out;
}
}  // namespace

Tensor pad_backward(const Tensor& grad_output, IntArrayRef input_sizes, IntArrayRef pad,
                    const PadFuncOptions& options) {
  const char* op = "pad_backward";
  check_pad_list(op, int64_t(input_sizes.size()), pad);
  check_pad_mode(op, options);
  if (options.mode == "constant") {
    // The output has sizes + left + right in the padded dims, whatever the signs.
    std::vector<int64_t> want = input_sizes.vec();
    for (size_t i = 0; i < pad.size() / 2; ++i)
      want[want.size() - 1 - i] += pad[2 * i] + pad[2 * i + 1];
    EMBER_CHECK(grad_output.sizes() == IntArrayRef(want), op, "expected grad_output of size ",
                IntArrayRef(want), ", got ", grad_output.sizes());
    Tensor gi = zeros(input_sizes, grad_output.options());
    auto [gi_part, g_part] = constant_views(gi, grad_output, pad);
    gi_part.copy_(g_part);
    return gi;
  }
  const PadProblem pp = pad_problem(op, input_sizes, pad, options.mode);
  EMBER_CHECK(grad_output.sizes() == IntArrayRef(pp.out_sizes), op, "expected grad_output of size ",
              IntArrayRef(pp.out_sizes), ", got ", grad_output.sizes());
  const Tensor g = grad_output.contiguous();
  Tensor gi = empty(input_sizes, grad_output.options());
  resize_kernel(op, g, &backend::ResizeKernels::pad_backward)(gi, g, pp.p);
  return gi;
}

}  // namespace ember::nn::functional
