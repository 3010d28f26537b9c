// The convolution's column kernels' work (conv_launch.h), for the device (conv.cu) and the CPU
// emulation (conv_emulation.cpp) alike.
#pragma once

#include <cstdint>

#include "backend/cuda/block.cuh"
#include "backend/cuda/conv_launch.h"

namespace ember::cuda::kernels {

template <class S>
struct Im2colBody {
  using C = opmath_t<S>;

  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const Im2colLaunch& l) {
    const int64_t kh = l.kernel[0], kw = l.kernel[1], Cg = l.C / l.groups;
    const S* in = reinterpret_cast<const S*>(l.in);
    S* out = reinterpret_cast<S*>(l.out);
    if (l.pass == Im2colLaunch::im2col) {
      // Element e of (N, C, kh, kw, Ho, Wo): consecutive threads write consecutive x.
      grid_stride(b, l.N * l.C * kh * kw * l.Ho * l.Wo, [&](int64_t e) {
        const int64_t x = e % l.Wo, y = e / l.Wo % l.Ho, j = e / (l.Wo * l.Ho) % kw;
        const int64_t i = e / (l.Wo * l.Ho * kw) % kh, c = e / (l.Wo * l.Ho * kw * kh) % l.C;
        const int64_t n = e / (l.Wo * l.Ho * kw * kh * l.C);
        const int64_t ih = y * l.stride[0] - l.padding[0] + i * l.dilation[0];
        const int64_t iw = x * l.stride[1] - l.padding[1] + j * l.dilation[1];
        const int64_t g = c / Cg, k = (c % Cg * kh + i) * kw + j;
        out[n * l.col_stride[0] + g * l.col_stride[1] + k * l.col_stride[2] + y * l.Wo + x] =
            ih >= 0 && ih < l.H && iw >= 0 && iw < l.W ? in[((n * l.C + c) * l.H + ih) * l.W + iw]
                                                       : S(C(0));
      });
      return;
    }
    const S* bias = reinterpret_cast<const S*>(l.bias);
    grid_stride(b, l.N * l.C * l.H * l.W, [&](int64_t e) {
      const int64_t w = e % l.W, h = e / l.W % l.H, c = e / (l.W * l.H) % l.C;
      const int64_t n = e / (l.W * l.H * l.C);
      const S* col = in + n * l.col_stride[0] + c / Cg * l.col_stride[1];
      C sum = C(0);
      // Tap (i, j) reads this element for output (y, x) when h = y * stride - padding + i *
      // dilation, i.e. when h + padding - i * dilation is a multiple of the stride in [0, Ho).
      for (int64_t i = 0; i < kh; ++i) {
        const int64_t yy = h + l.padding[0] - i * l.dilation[0];
        if (yy < 0 || yy % l.stride[0] != 0 || yy / l.stride[0] >= l.Ho) continue;
        for (int64_t j = 0; j < kw; ++j) {
          const int64_t xx = w + l.padding[1] - j * l.dilation[1];
          if (xx < 0 || xx % l.stride[1] != 0 || xx / l.stride[1] >= l.Wo) continue;
          const int64_t k = (c % Cg * kh + i) * kw + j;
          sum += C(col[k * l.col_stride[2] + yy / l.stride[0] * l.Wo + xx / l.stride[1]]);
        }
      }
      if (bias) sum += C(bias[c]);
      out[e] = S(sum);
    });
  }
};

/// The bodies of a launch (launch.cuh): the four floating types.
template <class F>
bool with_body(const Im2colLaunch& l, F&& f) {
  return with_floating_type(l.type,
                            [&](auto s) { f(Tag<Im2colBody<typename decltype(s)::type>>{}); });
}

}  // namespace ember::cuda::kernels
