// The pooling kernels' work (pool_launch.h), for the device (pool.cu) and the CPU emulation
// (pool_emulation.cpp) alike.
#pragma once

#include <cmath>
#include <cstdint>

#include "backend/cuda/block.cuh"
#include "backend/cuda/pool_launch.h"

namespace ember::cuda::kernels {

/// PyTorch's adaptive window of output i of `out` over `in`: [start, end), computed in float.
EMBER_HOST_DEVICE inline int64_t adaptive_start(int64_t i, int64_t out, int64_t in) {
  return int64_t(floorf(float(i * in) / float(out)));
}
EMBER_HOST_DEVICE inline int64_t adaptive_end(int64_t i, int64_t out, int64_t in) {
  return int64_t(ceilf(float((i + 1) * in) / float(out)));
}

template <class S>
struct MaxPoolBody {
  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const MaxPoolLaunch& l) {
    using C = opmath_t<S>;
    grid_stride(b, l.P * l.Ho * l.Wo, [&](int64_t o) {
      const int64_t ow = o % l.Wo, oh = o / l.Wo % l.Ho, plane = o / (l.Ho * l.Wo);
      const S* in = reinterpret_cast<const S*>(l.in) + plane * l.H * l.W;
      // The window's rows [ih0, ih1) and columns [iw0, iw1), dilation apart, within the plane.
      int64_t ih0 = oh * l.stride[0] - l.padding[0], iw0 = ow * l.stride[1] - l.padding[1];
      const int64_t ih1 = ih0 + (l.kernel[0] - 1) * l.dilation[0] + 1 < l.H
                              ? ih0 + (l.kernel[0] - 1) * l.dilation[0] + 1
                              : l.H;
      const int64_t iw1 = iw0 + (l.kernel[1] - 1) * l.dilation[1] + 1 < l.W
                              ? iw0 + (l.kernel[1] - 1) * l.dilation[1] + 1
                              : l.W;
      while (ih0 < 0) ih0 += l.dilation[0];
      while (iw0 < 0) iw0 += l.dilation[1];
      const bool adaptive = l.adaptive;  // then dilation is 1
      if (adaptive) {
        ih0 = adaptive_start(oh, l.Ho, l.H), iw0 = adaptive_start(ow, l.Wo, l.W);
      }
      const int64_t h1 = adaptive ? adaptive_end(oh, l.Ho, l.H) : ih1;
      const int64_t w1 = adaptive ? adaptive_end(ow, l.Wo, l.W) : iw1;
      C best = C(-INFINITY);
      int64_t best_i = ih0 * l.W + iw0;
      for (int64_t ih = ih0; ih < h1; ih += adaptive ? 1 : l.dilation[0])
        for (int64_t iw = iw0; iw < w1; iw += adaptive ? 1 : l.dilation[1]) {
          const C v = C(in[ih * l.W + iw]);
          if (v > best || v != v) {
            best = v;
            best_i = ih * l.W + iw;
          }
        }
      reinterpret_cast<S*>(l.out)[o] = S(best);
      if (l.indices) l.indices[o] = best_i;
    });
  }
};

/// An average pool's window of output (oh, ow): rows [h0, h1) and columns [w0, w1) of the
/// input, and the divisor of its sum (backend/cpu/pool.cpp's avg_window and adaptive windows).
struct AvgWindow {
  int64_t h0, h1, w0, w1;
  int64_t divisor;  // 0 for the adaptive windows, divided by each side in turn
};

EMBER_HOST_DEVICE inline AvgWindow avg_window(const AvgPoolLaunch& l, int64_t oh, int64_t ow) {
  if (l.adaptive)
    return {adaptive_start(oh, l.Ho, l.H), adaptive_end(oh, l.Ho, l.H),
            adaptive_start(ow, l.Wo, l.W), adaptive_end(ow, l.Wo, l.W), 0};
  int64_t h0 = oh * l.stride[0] - l.padding[0], w0 = ow * l.stride[1] - l.padding[1];
  int64_t h1 = h0 + l.kernel[0] < l.H + l.padding[0] ? h0 + l.kernel[0] : l.H + l.padding[0];
  int64_t w1 = w0 + l.kernel[1] < l.W + l.padding[1] ? w0 + l.kernel[1] : l.W + l.padding[1];
  const int64_t pool_size = (h1 - h0) * (w1 - w0);
  h0 = h0 > 0 ? h0 : 0, w0 = w0 > 0 ? w0 : 0;
  h1 = h1 < l.H ? h1 : l.H, w1 = w1 < l.W ? w1 : l.W;
  const int64_t d = l.divisor > 0         ? l.divisor
                    : l.count_include_pad ? pool_size
                                          : (h1 - h0) * (w1 - w0);
  return {h0, h1, w0, w1, d};
}

template <class S>
struct AvgPoolBody {
  using C = opmath_t<S>;

  /// v / the window's divisor (the adaptive windows: / rows / columns, as PyTorch).
  EMBER_HOST_DEVICE static C divided(C v, const AvgWindow& w) {
    return w.divisor ? v / C(w.divisor) : v / C(w.h1 - w.h0) / C(w.w1 - w.w0);
  }

  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const AvgPoolLaunch& l) {
    const S* in = reinterpret_cast<const S*>(l.in);
    S* out = reinterpret_cast<S*>(l.out);
    if (l.pass == AvgPoolLaunch::forward_pass) {
      grid_stride(b, l.P * l.Ho * l.Wo, [&](int64_t o) {
        const int64_t ow = o % l.Wo, oh = o / l.Wo % l.Ho, plane = o / (l.Ho * l.Wo);
        const AvgWindow w = avg_window(l, oh, ow);
        if (w.h0 >= w.h1 || w.w0 >= w.w1) {  // a window entirely in the padding
          out[o] = S(C(0));
          return;
        }
        C sum = C(0);
        for (int64_t ih = w.h0; ih < w.h1; ++ih)
          for (int64_t iw = w.w0; iw < w.w1; ++iw) sum += C(in[(plane * l.H + ih) * l.W + iw]);
        out[o] = S(divided(sum, w));
      });
      return;
    }
    // The outputs whose windows can hold input row ih: a fixed window's oh lie in
    // [(ih + pad - kernel) / stride, (ih + pad) / stride]; adaptive windows are scanned (their
    // starts and ends grow with the output index).
    grid_stride(b, l.P * l.H * l.W, [&](int64_t e) {
      const int64_t iw = e % l.W, ih = e / l.W % l.H, plane = e / (l.H * l.W);
      int64_t oh0 = 0, oh1 = l.Ho, ow0 = 0, ow1 = l.Wo;
      if (!l.adaptive) {
        const int64_t lo_h = ih + l.padding[0] - l.kernel[0] + 1,
                      lo_w = iw + l.padding[1] - l.kernel[1] + 1;
        oh0 = lo_h > 0 ? (lo_h + l.stride[0] - 1) / l.stride[0] : 0;
        ow0 = lo_w > 0 ? (lo_w + l.stride[1] - 1) / l.stride[1] : 0;
        oh1 = (ih + l.padding[0]) / l.stride[0] + 1 < l.Ho ? (ih + l.padding[0]) / l.stride[0] + 1
                                                           : l.Ho;
        ow1 = (iw + l.padding[1]) / l.stride[1] + 1 < l.Wo ? (iw + l.padding[1]) / l.stride[1] + 1
                                                           : l.Wo;
      }
      S v = S(C(0));
      for (int64_t oh = oh0; oh < oh1; ++oh)
        for (int64_t ow = ow0; ow < ow1; ++ow) {
          const AvgWindow w = avg_window(l, oh, ow);
          if (ih < w.h0 || ih >= w.h1 || iw < w.w0 || iw >= w.w1) continue;
          v = S(C(v) + divided(C(in[(plane * l.Ho + oh) * l.Wo + ow]), w));
        }
      out[e] = v;
    });
  }
};

/// The bodies of each launch (launch.cuh): the four floating types.
template <class F>
bool with_body(const AvgPoolLaunch& l, F&& f) {
  return with_floating_type(l.type,
                            [&](auto s) { f(Tag<AvgPoolBody<typename decltype(s)::type>>{}); });
}
template <class F>
bool with_body(const MaxPoolLaunch& l, F&& f) {
  return with_floating_type(l.type,
                            [&](auto s) { f(Tag<MaxPoolBody<typename decltype(s)::type>>{}); });
}

}  // namespace ember::cuda::kernels
