// CPU kernels of the resizing family (src/ops/resize.cpp; backend/resize_kernels.h):
// interpolate (nearest, nearest-exact, linear, bilinear) and reflect/replicate/circular pad with
// their backward kernels. Both reduce to per-axis index maps computed once — with PyTorch's own
// float arithmetic for source indices and weights (UpSample.h) and its reflect/replicate
// formulas (negative padding crops) — then one loop over the output planes.
#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/cpu/kernels.h"
#include "core/dispatch.h"
#include "core/parallel.h"

namespace ember::cpu {
namespace {

using backend::PadMode;
using backend::PadParams;
using backend::ResizeMode;
using backend::ResizeParams;

// ── interpolate ─────────────────────────────────────────────────────────────

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
Axis axis_map(ResizeMode mode, bool align_corners, int64_t in, int64_t out,
              const std::optional<double>& s) {
  Axis a;
  a.i0.resize(size_t(out)), a.i1.resize(size_t(out)), a.w0.resize(size_t(out));
  a.w1.resize(size_t(out));
  for (int64_t o = 0; o < out; ++o) {
    if (mode == ResizeMode::Nearest) {  // nearest_idx, with its exact shortcuts for x1 and x2
      const float sc = scale_value<float>(s, in, out);
      a.i0[o] = out == in ? o
                : out == 2 * in ? o >> 1
                                : std::min(int64_t(std::floor(float(o) * sc)), in - 1);
    } else if (mode == ResizeMode::NearestExact) {
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

// Runs f(plane) over P planes in parallel.
template <class F>
void for_planes(int64_t P, int64_t work, const F& f) {
  parallel_for(0, P, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(work, 1)),
               [&](int64_t p0, int64_t p1) {
                 for (int64_t p = p0; p < p1; ++p) f(p);
               });
}

template <class T>
void resize_forward(const ResizeParams& r, const T* in, T* out, int64_t P) {
  using A = compute_t<T>;
  const Axis ah = axis_map<A>(r.mode, r.align_corners, r.in[0], r.out[0], r.scale[0]);
  const Axis aw = axis_map<A>(r.mode, r.align_corners, r.in[1], r.out[1], r.scale[1]);
  const int64_t W = r.in[1], in_plane = r.in[0] * W, out_plane = r.out[0] * r.out[1];
  for_planes(P, out_plane, [&](int64_t p) {
    const T* src = in + p * in_plane;
    T* dst = out + p * out_plane;
    for (int64_t oh = 0; oh < r.out[0]; ++oh) {
      const T* r0 = src + ah.i0[oh] * W;
      if (r.mode != ResizeMode::Linear) {
        for (int64_t ow = 0; ow < r.out[1]; ++ow) dst[ow] = r0[aw.i0[ow]];
      } else {
        const T* r1 = src + ah.i1[oh] * W;
        const A h0 = A(ah.w0[oh]), h1 = A(ah.w1[oh]);
        for (int64_t ow = 0; ow < r.out[1]; ++ow) {
          const A w0 = A(aw.w0[ow]), w1 = A(aw.w1[ow]);
          // Width first, then height, as PyTorch's separable Interpolate<2>; 1-D has one level.
          const A t0 = A(r0[aw.i0[ow]]) * w0 + A(r0[aw.i1[ow]]) * w1;
          dst[ow] = r.dims == 1
                        ? T(t0)
                        : T(t0 * h0 + (A(r1[aw.i0[ow]]) * w0 + A(r1[aw.i1[ow]]) * w1) * h1);
        }
      }
      dst += r.out[1];
    }
  });
}

template <class T>
void resize_backward(const ResizeParams& r, const T* grad, T* gi, int64_t P) {
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
      if (r.mode != ResizeMode::Linear) {
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

void interpolate(const Tensor& out, const Tensor& input, const ResizeParams& r) {
  dispatch<DtypeSet::Floating>(input.dtype(), "interpolate", [&]<class T>() {
    resize_forward<T>(r, input.data_ptr<T>(), out.data_ptr<T>(), input.size(0));
  });
}

void interpolate_backward(const Tensor& grad_input, const Tensor& grad, const ResizeParams& r) {
  dispatch<DtypeSet::Floating>(grad.dtype(), "interpolate_backward", [&]<class T>() {
    resize_backward<T>(r, grad.data_ptr<T>(), grad_input.data_ptr<T>(), grad.size(0));
  });
}

// ── pad ──────────────────────────────────────────────────────────────────────

// Input index of each output index along one axis (PyTorch's reflection_pad / replication_pad
// formulas, which also cover negative, cropping, pads); an unpadded axis of size 1 maps to {0}.
std::vector<int64_t> pad_map(PadMode m, int64_t in, int64_t l, int64_t r) {
  const int64_t out = in + l + r, i_start = std::max<int64_t>(0, -l);
  const int64_t o_start = std::max<int64_t>(0, l);
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

// The three axes' maps of a pad, (D, H, W).
struct PadMaps {
  std::vector<int64_t> map[3];
  explicit PadMaps(const PadParams& p) {
    for (int i = 0; i < 3; ++i) map[i] = pad_map(p.mode, p.in[i], p.left[i], p.right[i]);
  }
};

template <class T>
void pad_gather(const PadParams& pp, const T* in, T* out) {
  const PadMaps m(pp);
  const int64_t rows = pp.planes * pp.out[0] * pp.out[1], Wo = pp.out[2];
  parallel_for(0, rows, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(Wo, 1)),
               [&](int64_t r0, int64_t r1) {
                 for (int64_t r = r0; r < r1; ++r) {
                   const int64_t oh = r % pp.out[1], od = r / pp.out[1] % pp.out[0];
                   const int64_t p = r / (pp.out[1] * pp.out[0]);
                   const T* src =
                       in + ((p * pp.in[0] + m.map[0][od]) * pp.in[1] + m.map[1][oh]) * pp.in[2];
                   T* dst = out + r * Wo;
                   for (int64_t ow = 0; ow < Wo; ++ow) dst[ow] = src[m.map[2][ow]];
                 }
               });
}

// The adjoint: each output element adds into the input element it came from; per plane, so
// threads never share an element.
template <class T>
void pad_scatter(const PadParams& pp, const T* grad, T* gi) {
  using A = compute_t<T>;
  const PadMaps m(pp);
  const int64_t in_plane = pp.in[0] * pp.in[1] * pp.in[2];
  const int64_t out_plane = pp.out[0] * pp.out[1] * pp.out[2];
  for_planes(pp.planes, out_plane, [&](int64_t p) {
    T* dst = gi + p * in_plane;
    std::fill_n(dst, in_plane, T(0));
    const T* g = grad + p * out_plane;
    for (int64_t od = 0; od < pp.out[0]; ++od)
      for (int64_t oh = 0; oh < pp.out[1]; ++oh, g += pp.out[2]) {
        T* row = dst + (m.map[0][od] * pp.in[1] + m.map[1][oh]) * pp.in[2];
        for (int64_t ow = 0; ow < pp.out[2]; ++ow)
          row[m.map[2][ow]] = T(A(row[m.map[2][ow]]) + A(g[ow]));
      }
  });
}

void pad(const Tensor& out, const Tensor& input, const PadParams& p) {
  dispatch(input.dtype(), "pad", [&]<class T>() {
    pad_gather<T>(p, input.data_ptr<T>(), out.data_ptr<T>());
  });
}

void pad_backward(const Tensor& grad_input, const Tensor& grad, const PadParams& p) {
  dispatch<DtypeSet::Floating>(grad.dtype(), "pad_backward", [&]<class T>() {
    pad_scatter<T>(p, grad.data_ptr<T>(), grad_input.data_ptr<T>());
  });
}

}  // namespace

void add_resize_kernels(backend::Backend& b) {
  b.resize = {.interpolate = &interpolate,
              .interpolate_backward = &interpolate_backward,
              .pad = &pad,
              .pad_backward = &pad_backward};
}

}  // namespace ember::cpu
