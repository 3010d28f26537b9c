// bfloat16 convolutions with few taps per window, straight from and into NCHW.
#include "backend/cpu/conv_few_taps.h"

#if defined(__AVX512F__) && defined(__AVX512BW__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <vector>

#include "backend/buffers.h"
#include "backend/cpu/vec_bf16.h"
#include "core/parallel.h"
#include "ember/error.h"

namespace EMBER_CPU_NS {

// Note [Few-taps convolution]
// A network's first convolution reads few values per output (conv 1 -> 32, 3x3: K = 9 taps) and
// writes many (the reference CNN's: 32 planes of 28x28 per image). oneDNN's bfloat16 primitives
// do its arithmetic fast (0.12 ms forward, 0.12 ms grad_weight for a batch of 128 on two Zen 5
// cores) but only in channel-blocked layouts, and reordering the 128x32x28x28 output (forward)
// or gradient (grad_weight) between NCHW and nChw16c costs 0.39-0.41 ms each time: three times
// the convolution. The GEMM paths pay im2col and packing for a reduction of 9. These kernels
// read ember's NCHW tensors as they are: each image group is widened once into zero-padded
// float32 planes shifted by the kernel's columns (ShiftedImage, a few KiB in L1), from which
// every tap (c, i, j) is one plane at a constant offset, so a row of 16 outputs is K fused
// multiply-adds of 16 aligned loads. Forward: tiles of 4 rows by 4 output channels share each
// load and weight broadcast, and each output is rounded once after the bias and K products;
// grad_weight: a channel's taps, in groups of at most 8 so their sums stay in registers, run
// over its whole plane with two rows of accumulators, and grad_bias, when asked for, sums the
// same loaded gradient on the way. The batch is split over threads, each summing its images in
// float32; the threads' sums are added in a fixed order and rounded once, so a result depends
// on the thread count only through that float32 order.
// Stride 1 only (a stride would make the shifted rows strided); AVX-512 masks give the row
// tails. Figures: at few_taps_conv below.

#if defined(__AVX512F__) && defined(__AVX512BW__)

namespace {

constexpr int64_t kMaxFewTaps = 32;
constexpr int64_t kChannelBlock = 16;  // from here oneDNN's blocked primitives pay for reorders
constexpr int kLanes = 16;  // float32 lanes of a vector
constexpr int kOutputTile = 4;      // forward: output channels sharing each P load
constexpr int kForwardRows = 4;     // forward: rows sharing each weight broadcast
constexpr int kTapGroup = 8;        // grad_weight: taps summed in registers at once
constexpr int kWeightGradRows = 2;  // grad_weight: rows with accumulators of their own

// One image group widened to float32, zero-padded, as kw planes per channel shifted by the
// kernel's columns: plane (c, j) row r, column x holds the input's (r - ph, x + j * dw - pw), or
// 0 outside it. Output (y, x) reads tap (c, i, j) at offset[tap] + y * Wq + x. Rows are Wq wide,
// Wo rounded up to a vector, so that every tap's loads are aligned: unaligned 64-byte loads
// (a tap shifted by one column) straddle two cache lines and halved the loads' rate.
struct ShiftedImage {
  int64_t Hp, Wq;
  std::vector<int64_t> offset;  // per tap (c, i, j), in the conv weight's order

  explicit ShiftedImage(const Geometry& g)
      : Hp(g.Ho + (g.kh - 1) * g.dh), Wq((g.Wo + kLanes - 1) / kLanes * kLanes) {
    for (int64_t c = 0; c < g.Cg; ++c)
      for (int64_t i = 0; i < g.kh; ++i)
        for (int64_t j = 0; j < g.kw; ++j) offset.push_back(((c * g.kw + j) * Hp + i * g.dh) * Wq);
  }
  int64_t size(const Geometry& g) const { return g.Cg * g.kw * Hp * Wq; }

  // The planes from the image group (Cg, H, W).
  void fill(const Geometry& g, const BFloat16* image, float* P) const {
    for (int64_t c = 0; c < g.Cg; ++c)
      for (int64_t j = 0; j < g.kw; ++j) {
        const int64_t shift = j * g.dw - g.pw;  // input column of x = 0
        const int64_t x0 = std::clamp<int64_t>(-shift, 0, Wq),
                      x1 = std::clamp<int64_t>(g.W - shift, x0, Wq);
        for (int64_t r = 0; r < Hp; ++r) {
          float* row = P + ((c * g.kw + j) * Hp + r) * Wq;
          const int64_t iy = r - g.ph;
          if (iy < 0 || iy >= g.H) {
            std::fill_n(row, Wq, 0.0f);
            continue;
          }
          std::fill_n(row, x0, 0.0f);
          std::fill(row + x1, row + Wq, 0.0f);
          const BFloat16* src = image + (c * g.H + iy) * g.W + shift;
          for (int64_t x = x0; x < x1; x += kLanes) {
            const __mmask16 m = first_lanes(x1 - x);
            _mm512_mask_storeu_ps(row + x, m, widen_bf16_lanes(m, src + x));
          }
        }
      }
  }
};

// T output channels of one image: out (T planes of Ho x Wo) from P, with weights w (T rows of K
// float32) and bias b (T). Tiles of kForwardRows rows (those past Ho masked off) by 16 columns by
// T channels, so that each load and weight broadcast serves several multiply-adds.
template <int T>
void forward_channels(const Geometry& g, const ShiftedImage& s, const float* P, const float* w,
                      const float* b, BFloat16* out) {
  constexpr int R = kForwardRows;
  const int64_t K = g.K(), HWo = g.Ho * g.Wo;
  const int64_t* offset = s.offset.data();
  for (int64_t y = 0; y < g.Ho; y += R)
    for (int64_t x = 0; x < g.Wo; x += kLanes) {
      __mmask16 m[R];
      for (int r = 0; r < R; ++r) m[r] = y + r < g.Ho ? first_lanes(g.Wo - x) : __mmask16(0);
      const float* at = P + y * s.Wq + x;
      __m512 acc[R][T];
      for (int t = 0; t < T; ++t)
        for (int r = 0; r < R; ++r) acc[r][t] = _mm512_set1_ps(b[t]);
      for (int64_t k = 0; k < K; ++k) {
        __m512 v[R];
        for (int r = 0; r < R; ++r) v[r] = _mm512_maskz_loadu_ps(m[r], at + r * s.Wq + offset[k]);
        for (int t = 0; t < T; ++t) {
          const __m512 wt = _mm512_set1_ps(w[t * K + k]);
          for (int r = 0; r < R; ++r) acc[r][t] = _mm512_fmadd_ps(wt, v[r], acc[r][t]);
        }
      }
      for (int t = 0; t < T; ++t)
        for (int r = 0; r < R; ++r)
          narrow_bf16_lanes(m[r], acc[r][t], out + t * HWo + (y + r) * g.Wo + x);
    }
}

using ForwardChannels = void (*)(const Geometry&, const ShiftedImage&, const float*, const float*,
                                 const float*, BFloat16*);
template <int... T>
constexpr ForwardChannels kForwardTail[] = {&forward_channels<T>...};

// T taps of one output channel over one image: sums[t] += grad's plane (Ho x Wo) times tap
// offset[t]'s shifted plane, and *bias += the plane's sum. kWeightGradRows rows at a time, each
// with accumulators of its own, so that no sum waits on the multiply-add before it; columns
// outermost, so that the inner loop's addresses are a row index on the taps' own pointers.
template <int T>
void weight_grad_taps(const Geometry& g, const ShiftedImage& s, const float* P,
                      const int64_t* offset, const BFloat16* grad, float* sums, float* bias) {
  constexpr int R = kWeightGradRows;
  const int64_t Ho = g.Ho, Wo = g.Wo, Wq = s.Wq;
  __m512 acc[R][T], acc_bias[R];
  for (int r = 0; r < R; ++r) {
    acc_bias[r] = _mm512_setzero_ps();
    for (int t = 0; t < T; ++t) acc[r][t] = _mm512_setzero_ps();
  }
  for (int64_t x = 0; x < Wo; x += kLanes) {
    const __mmask16 m = first_lanes(Wo - x);
    const float* tap[T];
    for (int t = 0; t < T; ++t) tap[t] = P + offset[t] + x;
    auto add_row = [&](int r, int64_t y) {
      const __m512 gv = widen_bf16_lanes(m, grad + y * Wo + x);
      for (int t = 0; t < T; ++t)
        acc[r][t] = _mm512_fmadd_ps(gv, _mm512_maskz_loadu_ps(m, tap[t] + y * Wq), acc[r][t]);
      acc_bias[r] = _mm512_add_ps(acc_bias[r], gv);
    };
    int64_t y = 0;
    for (; y + R <= Ho; y += R)
      for (int r = 0; r < R; ++r) add_row(r, y + r);
    for (; y < Ho; ++y) add_row(0, y);
  }
  for (int r = 1; r < R; ++r) {
    acc_bias[0] = _mm512_add_ps(acc_bias[0], acc_bias[r]);
    for (int t = 0; t < T; ++t) acc[0][t] = _mm512_add_ps(acc[0][t], acc[r][t]);
  }
  for (int t = 0; t < T; ++t) sums[t] += hsum(Vec<float>(vfloat_t(acc[0][t])));
  if (bias) *bias += hsum(Vec<float>(vfloat_t(acc_bias[0])));
}

using WeightGradTaps = void (*)(const Geometry&, const ShiftedImage&, const float*, const int64_t*,
                                const BFloat16*, float*, float*);
template <int... T>
constexpr WeightGradTaps kWeightGradTaps[] = {&weight_grad_taps<T>...};

// Calls body(part, n0, n1, P) for the parts of the batch, one per thread (images [n0, n1)),
// each with its own padded-image buffer.
template <class F>
void for_parts(const Geometry& g, const ShiftedImage& s, int64_t parts, const F& body) {
  parallel_for(0, parts, 1, [&](int64_t p0, int64_t p1) {
    Tensor buffer = backend::new_buffer({std::max<int64_t>(s.size(g), 1)}, kFloat32);
    for (int64_t p = p0; p < p1; ++p)
      body(p, p * g.N / parts, (p + 1) * g.N / parts, buffer.data_ptr<float>());
  });
}

int64_t batch_parts(const Geometry& g) { return std::min<int64_t>(get_num_threads(), g.N); }

}  // namespace

// Figures (2-core AMD Zen 5 with AVX512-BF16, both threads, batch 128, conv 1 -> 32 at 28x28,
// padding 1, with bias; median ms, conv_bench and the same through autograd, alternating with
// the build before this kernel): forward 0.41-0.42 -> 0.26 (float32: 0.26); grad_weight with
// grad_bias 0.70-0.75 (oneDNN's primitive and its reorder, then a separate sum) -> 0.33.
bool few_taps_conv(const Geometry& g) {
  return g.sh == 1 && g.sw == 1 && g.K() <= kMaxFewTaps && g.Cg < kChannelBlock && g.N > 0 &&
         g.Ho > 0 && g.Wo > 0;
}

void few_taps_forward(const Geometry& g, const BFloat16* in, const BFloat16* w,
                      const BFloat16* bias, BFloat16* out) {
  const int64_t K = g.K(), HWo = g.Ho * g.Wo;
  const ShiftedImage s(g);
  Tensor widened = backend::new_buffer({g.O * (K + 1)}, kFloat32);  // weights, then the bias
  float* wf = widened.data_ptr<float>();
  float* bf = wf + g.O * K;
  for (int64_t i = 0; i < g.O * K; ++i) wf[i] = float(w[i]);
  for (int64_t o = 0; o < g.O; ++o) bf[o] = bias ? float(bias[o]) : 0.0f;
  for_parts(g, s, batch_parts(g), [&](int64_t, int64_t n0, int64_t n1, float* P) {
    for (int64_t n = n0; n < n1; ++n)
      for (int64_t gi = 0; gi < g.G; ++gi) {
        s.fill(g, in + (n * g.C + gi * g.Cg) * g.H * g.W, P);
        for (int64_t o = gi * g.Og, end = o + g.Og; o < end; o += kOutputTile) {
          const int64_t t = std::min<int64_t>(kOutputTile, end - o);
          kForwardTail<1, 2, 3, 4>[t - 1](g, s, P, wf + o * K, bf + o, out + (n * g.O + o) * HWo);
        }
      }
  });
}

void few_taps_weight_grad(const Geometry& g, const BFloat16* grad, const BFloat16* in,
                          BFloat16* grad_weight, BFloat16* grad_bias) {
  const int64_t K = g.K(), HWo = g.Ho * g.Wo, size = g.O * (K + 1);  // weights, then the bias
  const ShiftedImage s(g);
  const int64_t parts = batch_parts(g);
  Tensor all = backend::new_zeros({parts, size}, kFloat32);
  float* sums = all.data_ptr<float>();
  // Taps in groups of nearly equal size, at most kTapGroup (9 -> 5 + 4).
  const int64_t groups = (K + kTapGroup - 1) / kTapGroup, per_group = (K + groups - 1) / groups;
  for_parts(g, s, parts, [&](int64_t part, int64_t n0, int64_t n1, float* P) {
    float* weight_sums = sums + part * size;
    float* bias_sums = weight_sums + g.O * K;
    for (int64_t n = n0; n < n1; ++n)
      for (int64_t gi = 0; gi < g.G; ++gi) {
        s.fill(g, in + (n * g.C + gi * g.Cg) * g.H * g.W, P);
        for (int64_t o = gi * g.Og; o < (gi + 1) * g.Og; ++o)
          for (int64_t k = 0; k < K; k += per_group) {
            const int64_t t = std::min(per_group, K - k);
            float* bias_sum = grad_bias && k == 0 ? bias_sums + o : nullptr;
            kWeightGradTaps<1, 2, 3, 4, 5, 6, 7, 8>[t - 1](g, s, P, s.offset.data() + k,
                                                           grad + (n * g.O + o) * HWo,
                                                           weight_sums + o * K + k, bias_sum);
          }
      }
  });
  for (int64_t p = 1; p < parts; ++p)
    for (int64_t i = 0; i < size; ++i) sums[i] += sums[p * size + i];
  for (int64_t i = 0; i < g.O * K; ++i) grad_weight[i] = BFloat16(sums[i]);
  if (grad_bias)
    for (int64_t o = 0; o < g.O; ++o) grad_bias[o] = BFloat16(sums[g.O * K + o]);
}

#else  // below AVX-512: the other paths (conv_reduced.cpp) run

bool few_taps_conv(const Geometry&) { return false; }
void few_taps_forward(const Geometry&, const BFloat16*, const BFloat16*, const BFloat16*,
                      BFloat16*) {
  EMBER_CHECK(false, "conv2d", "internal: the few-taps kernel needs AVX-512 (few_taps_conv)");
}
void few_taps_weight_grad(const Geometry&, const BFloat16*, const BFloat16*, BFloat16*, BFloat16*) {
  EMBER_CHECK(false, "conv2d", "internal: the few-taps kernel needs AVX-512 (few_taps_conv)");
}

#endif

}  // namespace EMBER_CPU_NS
