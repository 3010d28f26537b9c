// interpolate (nearest, nearest-exact, linear, bilinear) and pad (constant, reflect, replicate,
// circular) with their backward kernels. Both reduce to per-axis index maps computed once —
// with PyTorch's own float arithmetic for source indices and weights (UpSample.h) and its
// reflect/replicate formulas (negative padding crops) — then one loop over the output planes.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "backend/cpu/parallel.h"
#include "core/dispatch.h"
#include "ember/creation.h"
#include "ember/nn/functional/conv.h"
#include "ops/nn_grad.h"

namespace ember::nn::functional {
namespace {

// ── interpolate ─────────────────────────────────────────────────────────────
enum class Mode { Nearest, NearestExact, Linear };

struct Resize {
  Mode mode = Mode::Nearest;
  bool align_corners = false;
  int dims = 2;                          // spatial dims: 1 (N, C, L) or 2 (N, C, H, W)
  int64_t in[2] = {1, 1}, out[2] = {1, 1};  // (H, W); H == 1 for 1-D
  std::optional<double> scale[2];        // the user's scale factors, passed to the kernel
};

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

// compute_scales_value: 1/scale when the user gave one, else in/out, in the op's math type.
template <class A>
A scale_value(const std::optional<double>& s, int64_t in, int64_t out) {
  return s && *s > 0 ? A(1.0 / *s) : A(in) / A(out);
}

// Source index (and weights) of every output position along one axis.
struct Axis {
  std::vector<int64_t> i0, i1;
  std::vector<double> w0, w1;  // for Linear; values of the math type A, stored widened
};

template <class A>
Axis axis_map(Mode mode, bool align_corners, int64_t in, int64_t out,
              const std::optional<double>& s) {
  Axis a;
  a.i0.resize(size_t(out)), a.i1.resize(size_t(out)), a.w0.resize(size_t(out));
  a.w1.resize(size_t(out));
  for (int64_t o = 0; o < out; ++o) {
    if (mode == Mode::Nearest) {  // nearest_idx, with its exact shortcuts for x1 and x2
      const float sc = scale_value<float>(s, in, out);
      a.i0[o] = out == in ? o
                : out == 2 * in ? o >> 1
                                : std::min(int64_t(std::floor(float(o) * sc)), in - 1);
    } else if (mode == Mode::NearestExact) {
      const float sc = scale_value<float>(s, in, out);
      a.i0[o] = std::min(int64_t(std::floor(float((double(o) + 0.5) * sc))), in - 1);
    } else if (out == in) {  // compute_source_index_and_lambda: a plain copy
      a.i0[o] = a.i1[o] = o, a.w0[o] = 1, a.w1[o] = 0;
    } else {
      const A ratio = align_corners ? (out > 1 ? A(in - 1) / A(out - 1) : A(0))
                                    : scale_value<A>(s, in, out);
      A real = align_corners ? ratio * A(o) : ratio * (A(o) + A(0.5)) - A(0.5);
      if (!align_corners && real < A(0)) real = A(0);
      const int64_t i0 = int64_t(real);
      const A l1 = std::min(std::max(real - A(i0), A(0)), A(1));
      a.i0[o] = i0, a.i1[o] = i0 + (i0 < in - 1 ? 1 : 0);
      a.w1[o] = double(l1), a.w0[o] = double(A(1) - l1);
    }
  }
  return a;
}

// Runs f(plane_in, plane_out) over (P, H, W) planes in parallel.
template <class F>
void for_planes(int64_t P, int64_t work, const F& f) {
  parallel_for(0, P, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(work, 1)),
               [&](int64_t p0, int64_t p1) {
                 for (int64_t p = p0; p < p1; ++p) f(p);
               });
}

template <class T>
void resize_forward(const Resize& r, const T* in, T* out, int64_t P) {
  using A = compute_t<T>;
  const Axis ah = axis_map<A>(r.mode, r.align_corners, r.in[0], r.out[0], r.scale[0]);
  const Axis aw = axis_map<A>(r.mode, r.align_corners, r.in[1], r.out[1], r.scale[1]);
  const int64_t W = r.in[1], in_plane = r.in[0] * W, out_plane = r.out[0] * r.out[1];
  for_planes(P, out_plane, [&](int64_t p) {
    const T* src = in + p * in_plane;
    T* dst = out + p * out_plane;
    for (int64_t oh = 0; oh < r.out[0]; ++oh) {
      const T* r0 = src + ah.i0[oh] * W;
      if (r.mode != Mode::Linear) {
        for (int64_t ow = 0; ow < r.out[1]; ++ow) dst[ow] = r0[aw.i0[ow]];
      } else {
        const T* r1 = src + ah.i1[oh] * W;
        const A h0 = A(ah.w0[oh]), h1 = A(ah.w1[oh]);
        for (int64_t ow = 0; ow < r.out[1]; ++ow) {
          const A w0 = A(aw.w0[ow]), w1 = A(aw.w1[ow]);
          // Width first, then height, as PyTorch's separable Interpolate<2>; 1-D has one level.
          const A t0 = A(r0[aw.i0[ow]]) * w0 + A(r0[aw.i1[ow]]) * w1;
          dst[ow] = r.dims == 1 ? T(t0) : T(t0 * h0 + (A(r1[aw.i0[ow]]) * w0 + A(r1[aw.i1[ow]]) * w1) * h1);
        }
      }
      dst += r.out[1];
    }
  });
}

template <class T>
void resize_backward(const Resize& r, const T* grad, T* gi, int64_t P) {
  using A = compute_t<T>;
  const Axis ah = axis_map<A>(r.mode, r.align_corners, r.in[0], r.out[0], r.scale[0]);
  const Axis aw = axis_map<A>(r.mode, r.align_corners, r.in[1], r.out[1], r.scale[1]);
  const int64_t W = r.in[1], in_plane = r.in[0] * W, out_plane = r.out[0] * r.out[1];
  for_planes(P, out_plane, [&](int64_t p) {
    const T* g = grad + p * out_plane;
    T* dst = gi + p * in_plane;
    std::fill_n(dst, in_plane, T(0));
    auto add = [&](int64_t i, A v) { dst[i] = T(A(dst[i]) + v); };
    for (int64_t oh = 0; oh < r.out[0]; ++oh, g += r.out[1]) {
      const int64_t b0 = ah.i0[oh] * W, b1 = ah.i1[oh] * W;
      if (r.mode != Mode::Linear) {
        for (int64_t ow = 0; ow < r.out[1]; ++ow) add(b0 + aw.i0[ow], A(g[ow]));
        continue;
      }
      const A h0 = r.dims == 1 ? A(1) : A(ah.w0[oh]), h1 = A(ah.w1[oh]);
      for (int64_t ow = 0; ow < r.out[1]; ++ow) {
        const A v = A(g[ow]), w0 = A(aw.w0[ow]), w1 = A(aw.w1[ow]);
        add(b0 + aw.i0[ow], h0 * w0 * v);
        add(b0 + aw.i1[ow], h0 * w1 * v);
        if (r.dims == 2) {
          add(b1 + aw.i0[ow], h1 * w0 * v);
          add(b1 + aw.i1[ow], h1 * w1 * v);
        }
      }
    }
  });
}

// ── pad ──────────────────────────────────────────────────────────────────────
enum class PadMode { Reflect, Replicate, Circular };

// Input index of each output index along one padded axis (PyTorch's reflection_pad /
// replication_pad formulas, which also cover negative, cropping, pads).
std::vector<int64_t> pad_map(PadMode m, int64_t in, int64_t l, int64_t r) {
  const int64_t out = in + l + r, i_start = std::max<int64_t>(0, -l), o_start = std::max<int64_t>(0, l);
  std::vector<int64_t> map(size_t(std::max<int64_t>(out, 0)));
  for (int64_t j = 0; j < out; ++j) {
    int64_t ip;
    if (m == PadMode::Circular) {  // wraps within what negative pads leave of the input
      const int64_t n = in - i_start - std::max<int64_t>(0, -r);
      ip = i_start + ((j - o_start) % n + n) % n;
    } else if (m == PadMode::Reflect) {
      ip = j < l ? 2 * l - j : j < in + l ? j : 2 * (in + l - 1) - j;
      ip = ip - o_start + i_start;
    } else {
      ip = j < l ? l : j < in + l ? j : in + l - 1;
      ip = ip - o_start + i_start;
    }
    map[size_t(j)] = ip;
  }
  return map;
}

// A non-constant pad of the last k = pad.size() / 2 dims, as planes (P, D, H, W) with the
// unpadded dims of size 1.
struct PadProblem {
  PadMode mode = PadMode::Reflect;
  int64_t P = 1, in[3] = {1, 1, 1}, out[3] = {1, 1, 1};
  std::vector<int64_t> map[3];
  std::vector<int64_t> out_sizes;
};

PadProblem pad_problem(const char* op, IntArrayRef sizes, IntArrayRef pad, const std::string& m) {
  PadProblem pp;
  pp.mode = m == "reflect" ? PadMode::Reflect : m == "replicate" ? PadMode::Replicate
                                                                 : PadMode::Circular;
  const int64_t nd = int64_t(sizes.size()), k = int64_t(pad.size()) / 2;
  EMBER_CHECK(k >= 1 && k <= 3 && (nd == k + 1 || nd == k + 2), op, "Only 2D, 3D, 4D, 5D padding with non-constant ",
              "padding are supported for now");
  pp.out_sizes = sizes.vec();
  for (int64_t d = 0; d < nd - k; ++d) pp.P *= sizes[d];
  for (int64_t i = 0; i < k; ++i) {
    const int64_t dim = nd - 1 - i, in = sizes[dim], l = pad[2 * i], r = pad[2 * i + 1];
    const int64_t out = in + l + r;
    if (pp.mode == PadMode::Reflect)
      EMBER_CHECK(l < in && r < in, op, "Argument #4: Padding size should be less than the ",
                  "corresponding input dimension, but got: padding (", l, ", ", r,
                  ") at dimension ", dim, " of input ", sizes);
    if (pp.mode == PadMode::Circular) {
      EMBER_CHECK(l <= in && r <= in, op, "Padding value causes wrapping around more than once.");
      EMBER_CHECK(out >= 0 && in + std::min<int64_t>(l, 0) + std::min<int64_t>(r, 0) > 0, op,
                  "Negative padding value is resulting in an empty dimension.");
    }
    EMBER_CHECK(in > 0 && out >= 1, op, "input (", sizes, ") is too small at dimension ", dim,
                ": calculated output size ", out, " (padding ", l, ", ", r, ")");
    pp.in[2 - i] = in, pp.out[2 - i] = out, pp.out_sizes[size_t(dim)] = out;
    pp.map[2 - i] = pad_map(pp.mode, in, l, r);
  }
  for (int i = 0; i < 3; ++i)
    if (pp.map[i].empty()) pp.map[i] = {0};
  return pp;
}

template <class T>
void pad_gather(const PadProblem& pp, const T* in, T* out) {
  const int64_t rows = pp.P * pp.out[0] * pp.out[1], Wo = pp.out[2];
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(Wo, 1)),
               [&](int64_t r0, int64_t r1) {
                 for (int64_t r = r0; r < r1; ++r) {
                   const int64_t oh = r % pp.out[1], od = r / pp.out[1] % pp.out[0];
                   const int64_t p = r / (pp.out[1] * pp.out[0]);
                   const T* src =
                       in + ((p * pp.in[0] + pp.map[0][od]) * pp.in[1] + pp.map[1][oh]) * pp.in[2];
                   T* dst = out + r * Wo;
                   for (int64_t ow = 0; ow < Wo; ++ow) dst[ow] = src[pp.map[2][ow]];
                 }
               });
}

// The adjoint: each output element adds into the input element it came from; per plane, so
// threads never share an element.
template <class T>
void pad_scatter(const PadProblem& pp, const T* grad, T* gi) {
  using A = compute_t<T>;
  const int64_t in_plane = pp.in[0] * pp.in[1] * pp.in[2];
  const int64_t out_plane = pp.out[0] * pp.out[1] * pp.out[2];
  for_planes(pp.P, out_plane, [&](int64_t p) {
    T* dst = gi + p * in_plane;
    std::fill_n(dst, in_plane, T(0));
    const T* g = grad + p * out_plane;
    for (int64_t od = 0; od < pp.out[0]; ++od)
      for (int64_t oh = 0; oh < pp.out[1]; ++oh, g += pp.out[2]) {
        T* row = dst + (pp.map[0][od] * pp.in[1] + pp.map[1][oh]) * pp.in[2];
        for (int64_t ow = 0; ow < pp.out[2]; ++ow)
          row[pp.map[2][ow]] = T(A(row[pp.map[2][ow]]) + A(g[ow]));
      }
  });
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
  Tensor out = empty(shape, {.dtype = input.dtype()});
  dispatch<DtypeSet::Floating>(input.dtype(), "interpolate", [&]<class T>() {
    resize_forward<T>(r, static_cast<const T*>(x.data_ptr()), static_cast<T*>(out.data_ptr()), P);
  });
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
  Tensor gi = empty(input_sizes, {.dtype = grad_output.dtype()});
  dispatch<DtypeSet::Floating>(g.dtype(), op, [&]<class T>() {
    resize_backward<T>(r, static_cast<const T*>(g.data_ptr()), static_cast<T*>(gi.data_ptr()),
                       input_sizes[0] * input_sizes[1]);
  });
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
    Tensor out = full(sizes, options.value.value_or(0.0),
                      {.dtype = input.dtype()});
    auto [src, dst] = constant_views(input, out, pad);
    dst.copy_(src);
    return out;
  }
  const PadProblem pp = pad_problem(op, input.sizes(), pad, options.mode);
  const Tensor x = input.contiguous();
  Tensor out = empty(pp.out_sizes, {.dtype = input.dtype()});
  dispatch(input.dtype(), op, [&]<class T>() {
    pad_gather<T>(pp, static_cast<const T*>(x.data_ptr()), static_cast<T*>(out.data_ptr()));
  });
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
    Tensor gi = zeros(input_sizes, {.dtype = grad_output.dtype()});
    auto [gi_part, g_part] = constant_views(gi, grad_output, pad);
    gi_part.copy_(g_part);
    return gi;
  }
  const PadProblem pp = pad_problem(op, input_sizes, pad, options.mode);
  EMBER_CHECK(grad_output.sizes() == IntArrayRef(pp.out_sizes), op, "expected grad_output of size ",
              IntArrayRef(pp.out_sizes), ", got ", grad_output.sizes());
  const Tensor g = grad_output.contiguous();
  Tensor gi = empty(input_sizes, {.dtype = grad_output.dtype()});
  dispatch<DtypeSet::Floating>(g.dtype(), op, [&]<class T>() {
    pad_scatter<T>(pp, static_cast<const T*>(g.data_ptr()), static_cast<T*>(gi.data_ptr()));
  });
  return gi;
}

}  // namespace ember::nn::functional
