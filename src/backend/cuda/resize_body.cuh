// The resizing kernels' work (resize_launch.h), for the device (resize.cu) and the CPU emulation
// (resize_emulation.cpp) alike. The index maps and weights are backend/cpu/resize.cpp's, computed
// per element instead of tabled per axis; the backward passes are gathers (Note [Resize backward
// as a gather]).
//
// Note [Resize backward as a gather]
// The CPU's backward kernels scatter: each grad element adds its share into the input elements
// its output read, outputs in row-major order, rounding to the storage type after each add. On
// the device a scatter would need atomics, whose order (and so, for float16/bfloat16 and any
// rounding, whose result) varies from run to run. Here a thread owns one grad_input element and
// walks the outputs that read it in that same row-major order, adding the same products in the
// same order: the result is the CPU's, bit for bit, and the same on every run. The outputs that
// read input index i along an axis are found without scanning the axis: interpolate's source
// index grows with the output index (so two binary searches bound them), and pad's are the
// at most one output of the copied middle plus the pads' outputs, whose maps are tested one by
// one.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "backend/cuda/block.cuh"
#include "backend/cuda/copy_body.cuh"
#include "backend/cuda/resize_launch.h"

namespace ember::cuda::kernels {

/// The source indices and weights of output o along one axis (A: the op's math type).
template <class A>
struct AxisPoint {
  int64_t i0, i1;
  A w0, w1;  // linear only
};

/// backend/cpu/resize.cpp's axis_map for output o of axis k (0: H, 1: W): PyTorch's nearest_idx
/// (with its shortcuts for x1 and x2), nearest-exact's index and the linear source index and
/// lambda, in float for the nearest modes and in A for linear, as there.
template <class A>
EMBER_HOST_DEVICE AxisPoint<A> axis_point(const ResizeLaunch& l, int k, int64_t o) {
  const int64_t in = l.in[k], out = l.out[k];
  const double s = l.scale[k];
  if (l.mode != ResizeLaunch::linear) {
    const float sc = s > 0 ? float(1.0 / s) : float(in) / float(out);
    int64_t i;
    if (l.mode == ResizeLaunch::nearest_exact)
      i = int64_t(floorf(float((double(o) + 0.5) * double(sc))));
    else if (out == in)
      i = o;
    else if (out == 2 * in)
      i = o >> 1;
    else
      i = int64_t(floorf(math::mul_rn(float(o), sc)));
    if (l.mode == ResizeLaunch::nearest_exact || (out != in && out != 2 * in))
      i = i < in - 1 ? i : in - 1;
    return {i, i, A(1), A(0)};
  }
  if (out == in) return {o, o, A(1), A(0)};  // compute_source_index_and_lambda: a plain copy
  const A ratio = l.align_corners ? (out > 1 ? A(in - 1) / A(out - 1) : A(0))
                  : s > 0         ? A(1.0 / s)
                                  : A(in) / A(out);
  A real =
      l.align_corners ? math::mul_rn(ratio, A(o)) : math::mul_rn(ratio, A(o) + A(0.5)) - A(0.5);
  if (!l.align_corners && real < A(0)) real = A(0);
  const int64_t i0 = int64_t(real);
  A l1 = real - A(i0);
  l1 = l1 < A(0) ? A(0) : l1 > A(1) ? A(1) : l1;
  return {i0, i0 + (i0 < in - 1 ? 1 : 0), A(1) - l1, l1};
}

/// The first output of axis k whose source index i0 is >= target (out when none): i0 grows with
/// the output index in every mode.
template <class A>
EMBER_HOST_DEVICE int64_t first_output_from(const ResizeLaunch& l, int k, int64_t target) {
  return first_where(l.out[k], [&](int64_t o) { return axis_point<A>(l, k, o).i0 >= target; });
}

template <class S>
struct ResizeBody {
  using A = opmath_t<S>;

  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const ResizeLaunch& l) {
    const S* src = reinterpret_cast<const S*>(l.src);
    S* dst = reinterpret_cast<S*>(l.dst);
    const int64_t H = l.in[0], W = l.in[1], Ho = l.out[0], Wo = l.out[1];
    const bool linear = l.mode == ResizeLaunch::linear;
    if (l.pass == ResizeLaunch::forward_pass) {
      grid_stride(b, l.P * Ho * Wo, [&](int64_t e) {
        const int64_t ow = e % Wo, oh = e / Wo % Ho, p = e / (Ho * Wo);
        const AxisPoint<A> h = axis_point<A>(l, 0, oh), w = axis_point<A>(l, 1, ow);
        const S* r0 = src + (p * H + h.i0) * W;
        if (!linear) {
          dst[e] = r0[w.i0];
          return;
        }
        // Width first, then height, as the CPU's (PyTorch's separable Interpolate<2>).
        const A t0 = math::mul_rn(A(r0[w.i0]), w.w0) + math::mul_rn(A(r0[w.i1]), w.w1);
        if (l.dims == 1) {
          dst[e] = S(t0);
          return;
        }
        const S* r1 = src + (p * H + h.i1) * W;
        const A t1 = math::mul_rn(A(r1[w.i0]), w.w0) + math::mul_rn(A(r1[w.i1]), w.w1);
        dst[e] = S(math::mul_rn(t0, h.w0) + math::mul_rn(t1, h.w1));
      });
      return;
    }
    // Backward (Note [Resize backward as a gather]): the outputs reading row ih have i0 == ih,
    // or, linear, i1 == ih, so i0 in {ih - 1, ih}.
    grid_stride(b, l.P * H * W, [&](int64_t e) {
      const int64_t iw = e % W, ih = e / W % H, p = e / (H * W);
      const int64_t back = linear ? 1 : 0;
      const int64_t oh0 = first_output_from<A>(l, 0, ih - back),
                    oh1 = first_output_from<A>(l, 0, ih + 1);
      const int64_t ow0 = first_output_from<A>(l, 1, iw - back),
                    ow1 = first_output_from<A>(l, 1, iw + 1);
      const S* g = src + p * Ho * Wo;
      S v = S(A(0));
      for (int64_t oh = oh0; oh < oh1; ++oh) {
        const AxisPoint<A> h = axis_point<A>(l, 0, oh);
        const A h0 = l.dims == 1 ? A(1) : h.w0;
        for (int64_t ow = ow0; ow < ow1; ++ow) {
          const AxisPoint<A> w = axis_point<A>(l, 1, ow);
          const A gv = A(g[oh * Wo + ow]);
          if (!linear) {
            if (h.i0 == ih && w.i0 == iw) v = S(A(v) + gv);
            continue;
          }
          // The CPU's terms in its order: row i0 (weight h0), then row i1 (h1, 2-D only), each
          // column i0 then i1; a term adds h * w * grad.
          auto add = [&](A hw, A ww) { v = S(A(v) + math::mul_rn(math::mul_rn(hw, ww), gv)); };
          if (h.i0 == ih) {
            if (w.i0 == iw) add(h0, w.w0);
            if (w.i1 == iw) add(h0, w.w1);
          }
          if (l.dims == 2 && h.i1 == ih) {
            if (w.i0 == iw) add(h.w1, w.w0);
            if (w.i1 == iw) add(h.w1, w.w1);
          }
        }
      }
      dst[e] = v;
    });
  }
};

/// The input index output j of a padded axis copies (backend/cpu/resize.cpp's pad_map:
/// PyTorch's reflection_pad / replication_pad formulas and circular wrapping, negative pads
/// cropping).
EMBER_HOST_DEVICE inline int64_t pad_source(const PadLaunch& l, int k, int64_t j) {
  const int64_t in = l.in[k], left = l.left[k], right = l.right[k];
  const int64_t i_start = left < 0 ? -left : 0, o_start = left > 0 ? left : 0;
  if (l.mode == PadLaunch::circular) {  // wraps within what negative pads leave of the input
    const int64_t n = in - i_start - (right < 0 ? -right : 0);
    return i_start + ((j - o_start) % n + n) % n;
  }
  int64_t ip;
  if (l.mode == PadLaunch::reflect)
    ip = j < left ? 2 * left - j : j < in + left ? j : 2 * (in + left - 1) - j;
  else
    ip = j < left ? left : j < in + left ? j : in + left - 1;
  return ip - o_start + i_start;
}

/// f(j) for each output j of axis k that copies input index i, in increasing j: the left pad's
/// outputs [0, a) and the right pad's [c, out) tested one by one, and the one output of the
/// copied middle [a, c) (the map is a shift there).
template <class F>
EMBER_HOST_DEVICE void each_output_of(const PadLaunch& l, int k, int64_t i, F&& f) {
  const int64_t out = l.out[k], left = l.left[k];
  const int64_t o_start = left > 0 ? left : 0, i_start = left < 0 ? -left : 0;
  const int64_t a = o_start < out ? o_start : out;
  const int64_t c = l.in[k] + left < a ? a : l.in[k] + left < out ? l.in[k] + left : out;
  for (int64_t j = 0; j < a; ++j)
    if (pad_source(l, k, j) == i) f(j);
  const int64_t m = i - i_start + o_start;
  if (m >= a && m < c && pad_source(l, k, m) == i) f(m);
  for (int64_t j = c; j < out; ++j)
    if (pad_source(l, k, j) == i) f(j);
}

/// pad's forward: U the unsigned integer of the element size.
template <class U>
struct PadBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const PadLaunch& l) {
    const int64_t Do = l.out[0], Ho = l.out[1], Wo = l.out[2];
    grid_stride(b, l.planes * Do * Ho * Wo, [&](int64_t e) {
      const int64_t ow = e % Wo, oh = e / Wo % Ho, od = e / (Wo * Ho) % Do;
      const int64_t p = e / (Wo * Ho * Do);
      const int64_t s =
          ((p * l.in[0] + pad_source(l, 0, od)) * l.in[1] + pad_source(l, 1, oh)) * l.in[2] +
          pad_source(l, 2, ow);
      reinterpret_cast<U*>(l.dst)[e] = reinterpret_cast<const U*>(l.src)[s];
    });
  }
};

/// pad's backward (Note [Resize backward as a gather]): S the floating storage type.
template <class S>
struct PadBackwardBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const PadLaunch& l) {
    using C = opmath_t<S>;
    const int64_t D = l.in[0], H = l.in[1], W = l.in[2];
    const int64_t Do = l.out[0], Ho = l.out[1], Wo = l.out[2];
    grid_stride(b, l.planes * D * H * W, [&](int64_t e) {
      const int64_t iw = e % W, ih = e / W % H, id = e / (W * H) % D, p = e / (W * H * D);
      const S* g = reinterpret_cast<const S*>(l.src) + p * Do * Ho * Wo;
      S v = S(C(0));
      each_output_of(l, 0, id, [&](int64_t od) {
        each_output_of(l, 1, ih, [&](int64_t oh) {
          each_output_of(l, 2, iw,
                         [&](int64_t ow) { v = S(C(v) + C(g[(od * Ho + oh) * Wo + ow])); });
        });
      });
      reinterpret_cast<S*>(l.dst)[e] = v;
    });
  }
};

/// The bodies of each launch (launch.cuh): interpolate and pad's backward in the four floating
/// types, pad's forward by element size.
template <class F>
bool with_body(const ResizeLaunch& l, F&& f) {
  return with_floating_type(l.type,
                            [&](auto s) { f(Tag<ResizeBody<typename decltype(s)::type>>{}); });
}
template <class F>
bool with_body(const PadLaunch& l, F&& f) {
  if (l.pass == PadLaunch::forward_pass)
    return with_item_bits(l.itemsize,
                          [&](auto u) { f(Tag<PadBody<typename decltype(u)::type>>{}); });
  return with_floating_type(l.type,
                            [&](auto s) { f(Tag<PadBackwardBody<typename decltype(s)::type>>{}); });
}

}  // namespace ember::cuda::kernels
