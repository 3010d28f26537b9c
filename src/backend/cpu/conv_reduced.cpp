// float16/bfloat16 convolution on the CPU: on bfloat16 hardware oneDNN's convolution primitives
// where the channels fill its blocks (conv_onednn.cpp), else im2col in bfloat16 and oneDNN's
// bfloat16 GEMM; elsewhere the float32 kernels of conv.cpp on chunks of images widened on the
// fly, each chunk's result rounded straight into the output.
#include <omp.h>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>

#include "backend/buffers.h"
#include "backend/cpu/blas.h"
#include "backend/cpu/conv.h"
#include "backend/cpu/conv_few_taps.h"
#include "backend/cpu/conv_im2col.h"
#include "backend/cpu/conv_onednn.h"
#include "backend/cpu/conv_winograd.h"
#include "backend/cpu/half_convert.h"
#include "core/parallel.h"

namespace EMBER_CPU_NS {
namespace {

// Note [Reduced-precision convolution]
// float16/bfloat16 convolutions accumulate in float32 and round each output once, as PyTorch's
// CPU kernels do; this CPU (no AVX512-BF16/AMX) has no faster 16-bit arithmetic. Converting
// whole tensors around the float32 kernel (what src/ops/conv.cpp used to do) costs a float32
// copy of every activation, a pass over memory to write it and one to read it back: about 6% of
// a bfloat16 training step. Instead the batch goes through in chunks of images small enough
// for a core's L2 (kChunkFloats): a chunk is widened into a float32 buffer, the float32 kernel
// (im2col/flat/direct, unchanged) reads it from cache, and its output is rounded into the
// 16-bit result while still in cache. The weight and bias are widened once per call (O * K
// elements, small next to the activations). Runs of whole images go to threads exactly where
// the float32 kernels would split images (the kernel then runs single-threaded on each chunk);
// otherwise chunks run in turn and the kernel threads inside each, as it does for few images.
// The weight gradient sums the chunks' float32 partial gradients and rounds once at the end.
constexpr int64_t kChunkFloats = int64_t(1) << 18;  // 1 MiB of float32 per chunk and thread

bool is_bf16(const Tensor& t) { return t.dtype() == kBFloat16; }

// dst[0, n) = float(t's elements [begin, begin + n)); t is contiguous float16/bfloat16.
void widen(const Tensor& t, int64_t begin, int64_t n, float* dst) {
  if (is_bf16(t))
    to_float(static_cast<const BFloat16*>(t.data_ptr()) + begin, dst, n);
  else
    to_float(static_cast<const Half*>(t.data_ptr()) + begin, dst, n);
}

// t's elements [begin, begin + n) = src[0, n) rounded to t's dtype.
void round_into(const float* src, const Tensor& t, int64_t begin, int64_t n) {
  if (is_bf16(t))
    from_float(src, static_cast<BFloat16*>(t.data_ptr()) + begin, n);
  else
    from_float(src, static_cast<Half*>(t.data_ptr()) + begin, n);
}

// A float32 copy of a small operand (weight, bias); undefined stays undefined.
Tensor widened(const Tensor& t) {
  if (!t.defined()) return t;
  Tensor f = backend::new_buffer(t.sizes(), kFloat32);
  widen(t, 0, t.numel(), f.data_ptr<float>());
  return f;
}

int64_t per_image(const Tensor& t) { return t.size(0) ? t.numel() / t.size(0) : 0; }

// A float32 buffer for images [n0, n1) of the (N, C, H, W) tensor t.
Tensor float_images(const Tensor& t, int64_t n0, int64_t n1) {
  return backend::new_buffer({n1 - n0, t.size(1), t.size(2), t.size(3)}, kFloat32);
}

// Images [n0, n1) of t, widened into a fresh float32 tensor.
Tensor widened_images(const Tensor& t, int64_t n0, int64_t n1) {
  Tensor f = float_images(t, n0, n1);
  widen(t, n0 * per_image(t), f.numel(), f.data_ptr<float>());
  return f;
}

// Calls body(n0, n1) on chunks of at most kChunkFloats / floats_per_image images (at least one).
template <class F>
void for_chunks(int64_t N, int64_t floats_per_image, const F& body) {
  const int64_t chunk =
      std::clamp<int64_t>(kChunkFloats / std::max<int64_t>(floats_per_image, 1), 1,
                          std::max<int64_t>(N, 1));
  auto run = [&](int64_t b, int64_t e) {
    for (int64_t n0 = b; n0 < e; n0 += chunk) body(n0, std::min(e, n0 + chunk));
  };
  if (split_images(N))
    parallel_for(0, N, 1, run);
  else
    run(0, N);
}

// out = kernel(in, weight, bias) where in and out are (N, ...) with one image of out per image
// of in: conv2d and its adjoint.
using ImageKernel = void (*)(const Tensor& in, const Tensor& weight, const Tensor& bias,
                             const Tensor& out, const Conv2dParams& p);

void image_chunks(ImageKernel kernel, const Tensor& in, const Tensor& weight, const Tensor& bias,
                  const Tensor& out, const Conv2dParams& p) {
  const Tensor wf = widened(weight), bf = widened(bias);
  for_chunks(in.size(0), per_image(in) + per_image(out), [&](int64_t n0, int64_t n1) {
    const Tensor of = float_images(out, n0, n1);
    kernel(widened_images(in, n0, n1), wf, bf, of, p);
    round_into(of.data_ptr<float>(), out, n0 * per_image(out), of.numel());
  });
}

// Note [bfloat16 dot-product convolution]
// On a CPU with bfloat16 dot products, where bfloat16 matrix products run oneDNN's
// dnnl_gemm_bf16bf16f32 (Note [Reduced-precision GEMM] in blas.cpp), a bfloat16 convolution's
// products run there too instead of widening: im2col copies the 16-bit input as it is (half
// the bytes of a float32 col, no conversion), oneDNN multiplies the bfloat16 weights by it with
// vdpbf16ps into float32, and each output is rounded once to bfloat16 after the bias is added
// in float32. One GEMM takes several images side by side (one 14x14 image is only 196 columns,
// too short for oneDNN's blocking), up to kDotColElements elements of col; a bigger image goes
// in blocks of output rows. grad_input with stride 1 is the forward convolution of grad with
// the weights flipped in space and transposed in channels (as adjoint_as_forward in conv.cpp);
// grad_weight gathers a chunk's grad rows into one (Og, cols) matrix and accumulates
// grad @ col^T into a float32 sum per thread, rounded once at the end. Threads split the batch
// where the float32 kernels do (split_images; oneDNN then runs single-threaded inside each),
// else each GEMM is threaded. Where the channels fill oneDNN's 16-channel blocks its
// convolution primitives run instead (Note [oneDNN bfloat16 convolution] in conv_onednn.cpp,
// linked against libdnnl-dev's headers since issue 42): this path is for the other shapes. What
// the GEMM path showed on a 2-core Zen 5 (AVX512-BF16, one thread, batch 128): conv 32 -> 64 at
// 14x14 forward 4.1-4.7 ms here against 3.8-4.5 ms widened and 3.5 ms in PyTorch's primitive,
// its backward 10.5-13.2 ms against 11.2-13.4 ms widened. oneDNN's GEMM runs near the vdpbf16ps
// peak (about two thirds of the time); im2col, its own packing and the rounding are the rest.
// The float32 kernel it is measured against is Winograd (2.25x fewer multiplies), which is why
// doubling the multiply rate only draws level with it here.
// bf16_dot_conv (blas.cpp) chooses per call from the reduction length, and forward and
// grad_input keep the float32 Winograd kernel where it applies (float_path_is_winograd);
// otherwise, and for grad_input with stride > 1, the widening path above runs.
constexpr int64_t kDotColElements = int64_t(1) << 18;  // 512 KiB of bfloat16 col per thread

// How col lays out an image's output positions. With stride 1 each output row is computed Wp
// wide, Wp the padded input's width: then col's row (c, i, j) is one contiguous run of the
// padded input (Hp, Wp) from (y0 + i*dh, j*dw), copied with one memcpy instead of a short copy
// per output row (those short copies took a quarter of conv 32 -> 64 at 14x14, 14 elements
// each). The Wp - Wo extra columns of each row cost GEMM work (2 of 16 at 14x14) and are
// dropped from the output, or given zero gradient in grad_weight. Other strides: im2col.
struct ColShape {
  bool wide;
  int64_t Hp, Wp;
  int64_t row;  // columns per output row: Wp if wide, else Wo
  // The padded image group, plus the (kw - 1) * dw elements the last run reads past its end.
  int64_t padded(const Geometry& g) const { return wide ? g.Cg * Hp * Wp + (g.kw - 1) * g.dw : 0; }
};

ColShape col_shape(const Geometry& g) {
  if (g.sh != 1 || g.sw != 1) return {false, 0, 0, g.Wo};
  const int64_t Hp = std::max(g.H + 2 * g.ph, g.Ho + (g.kh - 1) * g.dh);
  const int64_t Wp = std::max(g.W + 2 * g.pw, g.Wo + (g.kw - 1) * g.dw);
  return {true, Hp, Wp, Wp};
}

// Where the float32 path takes Winograd F(2x2, 3x3), 2.25x fewer multiplies, widening to it
// beat the doubled multiply rate in the figures above (forward 0.87x, one thread), so forward
// and grad_input keep to it there; grad_weight has no Winograd path and always takes the GEMM.
bool float_path_is_winograd(const Geometry& g) {
  return g.G == 1 && g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 &&
         g.dw == 1 && winograd_wins({g.N, g.C, g.H, g.W, g.O, g.Ho, g.Wo, g.ph, g.pw});
}

const BFloat16* bf16_data(const Tensor& t) {
  return t.defined() ? static_cast<const BFloat16*>(t.data_ptr()) : nullptr;
}
BFloat16* mutable_bf16(const Tensor& t) {
  return t.defined() ? static_cast<BFloat16*>(t.data_ptr()) : nullptr;
}

// One GEMM's columns: images [n0, n1), output rows [y0, y1) of each. threaded: the batch is
// not split over threads, so the work inside a piece is.
struct Piece {
  int64_t n0, n1, y0, y1;
  bool threaded;
  int64_t len(const ColShape& s) const { return (y1 - y0) * s.row; }  // columns per image
  int64_t cols(const ColShape& s) const { return (n1 - n0) * len(s); }
};

// The buffers of one thread: col (K, cols), the padded image (wide shapes), and scratch.
struct DotBuffers {
  BFloat16* col;
  BFloat16* padded;
  void* scratch;
};

// Calls body(piece, buffers) over the batch: several whole images per piece while their col
// fits kDotColElements, else blocks of rows of one image. scratch holds `scratch_per_col`
// elements of `scratch_dtype` per column.
template <class F>
void for_dot_pieces(const Geometry& g, const ColShape& s, int64_t scratch_per_col,
                    Dtype scratch_dtype, const F& body) {
  const int64_t per_image = g.K() * g.Ho * s.row;
  const int64_t images =
      std::clamp<int64_t>(kDotColElements / std::max<int64_t>(per_image, 1), 1, g.N);
  const int64_t rows =
      images > 1
          ? g.Ho
          : std::clamp<int64_t>(kDotColElements / std::max<int64_t>(g.K() * s.row, 1), 1, g.Ho);
  const int64_t max_cols = images * rows * s.row;
  const bool split = split_images(g.N);
  auto run = [&](int64_t b, int64_t e) {
    Tensor col = backend::new_buffer({g.K() * max_cols}, kBFloat16);
    Tensor padded = backend::new_buffer({std::max<int64_t>(s.padded(g), 1)}, kBFloat16);
    Tensor scratch = backend::new_buffer({scratch_per_col * max_cols}, scratch_dtype);
    const DotBuffers bufs{static_cast<BFloat16*>(col.data_ptr()),
                          static_cast<BFloat16*>(padded.data_ptr()), scratch.data_ptr()};
    for (int64_t n0 = b; n0 < e; n0 += images)
      for (int64_t y0 = 0; y0 < g.Ho; y0 += rows)
        body(Piece{n0, std::min(e, n0 + images), y0, std::min(g.Ho, y0 + rows), !split}, bufs);
  };
  if (split)
    parallel_for(0, g.N, 1, run);
  else
    run(0, g.N);
}

// dst (Cg, Hp, Wp) = the image group src (Cg, H, W) padded with zeros, then the tail zeros.
void pad_image(const Geometry& g, const ColShape& s, const BFloat16* src, BFloat16* dst) {
  for (int64_t c = 0; c < g.Cg; ++c)
    for (int64_t r = 0; r < s.Hp; ++r, dst += s.Wp) {
      const int64_t iy = r - g.ph;
      if (iy < 0 || iy >= g.H) {
        std::fill_n(dst, s.Wp, BFloat16());
        continue;
      }
      std::fill_n(dst, g.pw, BFloat16());
      std::memcpy(dst + g.pw, src + (c * g.H + iy) * g.W, sizeof(BFloat16) * size_t(g.W));
      std::fill_n(dst + g.pw + g.W, s.Wp - g.pw - g.W, BFloat16());
    }
  std::fill_n(dst, (g.kw - 1) * g.dw, BFloat16());
}

// col (K, piece.cols) for group gi: the piece's images side by side.
void fill_col(const Geometry& g, const ColShape& s, const BFloat16* in, int64_t gi, const Piece& p,
              const DotBuffers& b) {
  const int64_t ld = p.cols(s), len = p.len(s), kk = g.kh * g.kw;
  for (int64_t n = p.n0; n < p.n1; ++n) {
    const BFloat16* image = in + (n * g.C + gi * g.Cg) * g.H * g.W;
    BFloat16* dst = b.col + (n - p.n0) * len;
    if (!s.wide) {
      im2col(g, image, dst, ld, p.y0, p.y1, p.threaded);
      continue;
    }
    pad_image(g, s, image, b.padded);
    auto rows = [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t c = r / kk, i = r % kk / g.kw, j = r % g.kw;
        std::memcpy(dst + r * ld, b.padded + (c * s.Hp + p.y0 + i * g.dh) * s.Wp + j * g.dw,
                    sizeof(BFloat16) * size_t(len));
      }
    };
    if (p.threaded)
      parallel_for(0, g.K(), std::max<int64_t>(1, kGrainSize / std::max<int64_t>(len, 1)), rows);
    else
      rows(0, g.K());
  }
}

// dst[0, n) = bfloat16(src[0, n) + bias), rounded once as BFloat16(float) does (to nearest
// even; NaN to the quiet 0x7FC0). Here rather than from_float: the runs are output rows, often
// 7..28 elements, and a call per row was a quarter of the forward at 14x14 (the scalar loop,
// with its NaN branch, does not vectorise). The dot-product path runs at the avx512 level.
void round_row(const float* src, float bias, BFloat16* dst, int64_t n) {
  int64_t i = 0;
#if defined(__AVX512F__) && defined(__AVX512BW__)
  const __m512 b = _mm512_set1_ps(bias);
  const __m512i one = _mm512_set1_epi32(1), half = _mm512_set1_epi32(0x7fff),
                qnan = _mm512_set1_epi32(0x7fc0);
  for (; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? __mmask16(0xffff) : __mmask16((1u << (n - i)) - 1);
    const __m512 v = _mm512_add_ps(_mm512_maskz_loadu_ps(m, src + i), b);
    const __m512i u = _mm512_castps_si512(v);
    const __m512i lsb = _mm512_and_si512(_mm512_maskz_srli_epi32(0xffff, u, 16), one);
    // (maskz_srli: GCC 12 warns that srli's undefined pass-through is read uninitialised.)
    __m512i r =
        _mm512_maskz_srli_epi32(0xffff, _mm512_add_epi32(u, _mm512_add_epi32(lsb, half)), 16);
    r = _mm512_mask_mov_epi32(r, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), qnan);
    _mm512_mask_cvtepi32_storeu_epi16(dst + i, m, r);
  }
#endif
  for (; i < n; ++i) dst[i].x = BFloat16::round_to_bf16(src[i] + bias);
}

void dot_forward(const Geometry& g, const BFloat16* in, const BFloat16* w, const BFloat16* bias,
                 BFloat16* out) {
  const int64_t K = g.K(), HWo = g.Ho * g.Wo;
  const ColShape s = col_shape(g);
  for_dot_pieces(g, s, g.Og, kFloat32, [&](const Piece& p, const DotBuffers& b) {
    float* acc = static_cast<float*>(b.scratch);  // (Og, cols)
    const int64_t cols = p.cols(s), len = p.len(s);
    for (int64_t gi = 0; gi < g.G; ++gi) {
      fill_col(g, s, in, gi, p, b);
      bf16_dot_gemm(false, false, g.Og, cols, K, w + gi * g.Og * K, K, b.col, cols, 0.0f, acc,
                    cols);
      for (int64_t n = p.n0; n < p.n1; ++n)
        for (int64_t o = 0; o < g.Og; ++o) {
          const float* src = acc + o * cols + (n - p.n0) * len;
          const float bo = bias ? float(bias[gi * g.Og + o]) : 0.0f;
          BFloat16* dst = out + (n * g.O + gi * g.Og + o) * HWo + p.y0 * g.Wo;
          for (int64_t y = p.y0; y < p.y1; ++y, src += s.row, dst += g.Wo)
            round_row(src, bo, dst, g.Wo);
        }
    }
  });
}

// grad_input with stride 1 as the adjoint's forward convolution (adjoint_geometry in
// conv_geometry.h); false where that does not apply (stride > 1, padding beyond the kernel's
// extent) or the float32 path would take Winograd.
bool dot_adjoint(const Geometry& g, const BFloat16* grad, const BFloat16* w, const BFloat16* bias,
                 BFloat16* out) {
  Geometry f;
  if (!adjoint_geometry(g, f)) return false;
  if (!bf16_dot_conv(f.K()) || float_path_is_winograd(f)) return false;
  Tensor flipped = backend::new_buffer({g.C * g.Og * g.kh * g.kw}, kBFloat16);
  auto* wf = static_cast<BFloat16*>(flipped.data_ptr());
  adjoint_weights(g, w, wf);
  dot_forward(f, grad, wf, bias, out);
  return true;
}

void dot_weight_grad(const Geometry& g, const BFloat16* grad, const BFloat16* in, BFloat16* gw) {
  const int64_t K = g.K(), HWo = g.Ho * g.Wo, size = g.O * K;
  const ColShape s = col_shape(g);
  const int threads = split_images(g.N) ? get_num_threads() : 1;
  Tensor sums = backend::new_zeros({threads, size}, kFloat32);
  float* all = sums.data_ptr<float>();
  for_dot_pieces(g, s, g.Og, kBFloat16, [&](const Piece& p, const DotBuffers& b) {
    auto* gg = static_cast<BFloat16*>(b.scratch);  // (Og, cols): the piece's grad rows
    float* sum = all + (p.threaded ? 0 : omp_get_thread_num()) * size;
    const int64_t cols = p.cols(s), len = p.len(s);
    for (int64_t gi = 0; gi < g.G; ++gi) {
      fill_col(g, s, in, gi, p, b);
      for (int64_t n = p.n0; n < p.n1; ++n)
        for (int64_t o = 0; o < g.Og; ++o) {
          const BFloat16* src = grad + (n * g.O + gi * g.Og + o) * HWo + p.y0 * g.Wo;
          BFloat16* dst = gg + o * cols + (n - p.n0) * len;
          for (int64_t y = p.y0; y < p.y1; ++y, src += g.Wo, dst += s.row) {
            std::memcpy(dst, src, sizeof(BFloat16) * size_t(g.Wo));
            std::fill(dst + g.Wo, dst + s.row, BFloat16());  // the wide rows' extra columns
          }
        }
      bf16_dot_gemm(false, true, g.Og, K, cols, gg, cols, b.col, cols, 1.0f, sum + gi * g.Og * K,
                    K);
    }
  });
  for (int t = 1; t < threads; ++t)
    for (int64_t i = 0; i < size; ++i) all[i] += all[t * size + i];
  from_float(all, gw, size);
}

// The oneDNN primitives' view of g (conv_onednn.h), where they take `pass` of a convolution of
// `operand`'s dtype (bfloat16 only: onednn_conv).
std::optional<OnednnConvShape> onednn_shape(const Geometry& g, OnednnConvPass pass,
                                            const Tensor& operand) {
  // An empty batch or image: the callers' own paths (grad_weight's zeros).
  if (!is_bf16(operand) || g.N * g.H * g.W * g.Ho * g.Wo == 0 || !onednn_conv(pass, g.Cg, g.Og))
    return std::nullopt;
  return OnednnConvShape{g.N,  g.C, g.H,  g.W,  g.O,  g.kh, g.kw, g.Ho,
                         g.Wo, g.G, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw};
}

}  // namespace

bool is_reduced_conv(const Tensor& t) {
  return t.dtype() == kBFloat16 || t.dtype() == kFloat16;
}

void conv2d_reduced(const Tensor& input, const Tensor& weight, const Tensor& bias,
                    const Tensor& out, const Conv2dParams& p) {
  const Geometry g = conv_geometry(input, weight, out, p);
  if (is_bf16(input) && few_taps_conv(g))
    return few_taps_forward(g, bf16_data(input), bf16_data(weight), bf16_data(bias),
                            mutable_bf16(out));
  if (const auto s = onednn_shape(g, OnednnConvPass::kForward, input);
      s && onednn_conv2d(*s, bf16_data(input), bf16_data(weight), bf16_data(bias),
                         mutable_bf16(out)))
    return;
  if (is_bf16(input) && bf16_dot_conv(g.K()) && !float_path_is_winograd(g))
    return dot_forward(g, bf16_data(input), bf16_data(weight), bf16_data(bias),
                       mutable_bf16(out));
  image_chunks(&conv2d, input, weight, bias, out, p);
}

void conv2d_adjoint_reduced(const Tensor& grad, const Tensor& weight, const Tensor& bias,
                            const Tensor& out, const Conv2dParams& p) {
  const Geometry g = conv_geometry(out, weight, grad, p);
  // oneDNN's backward_data has no bias (conv_transpose2d's forward passes one).
  if (const auto s =
          bias.defined() ? std::nullopt : onednn_shape(g, OnednnConvPass::kGradInput, grad);
      s && onednn_conv2d_grad_input(*s, bf16_data(grad), bf16_data(weight),
                                    mutable_bf16(out)))
    return;
  if (is_bf16(grad) && dot_adjoint(g, bf16_data(grad), bf16_data(weight), bf16_data(bias),
                                   mutable_bf16(out)))
    return;
  image_chunks(&conv2d_adjoint, grad, weight, bias, out, p);
}

void conv2d_weight_grad_reduced(const Tensor& grad, const Tensor& input,
                                const Tensor& grad_weight, const Conv2dParams& p) {
  const Geometry g = conv_geometry(input, grad_weight, grad, p);
  if (is_bf16(grad) && few_taps_conv(g))
    return few_taps_weight_grad(g, bf16_data(grad), bf16_data(input), mutable_bf16(grad_weight),
                                nullptr);
  if (const auto s = onednn_shape(g, OnednnConvPass::kGradWeight, grad);
      s && onednn_conv2d_grad_weight(*s, bf16_data(grad), bf16_data(input),
                                     mutable_bf16(grad_weight)))
    return;
  if (is_bf16(grad) && g.K() > 0 && bf16_dot_conv(g.N * g.Ho * g.Wo))
    return dot_weight_grad(g, bf16_data(grad), bf16_data(input),
                           mutable_bf16(grad_weight));
  const int64_t N = grad.size(0), size = grad_weight.numel();
  // One float32 sum per thread that takes images (see for_chunks), added up at the end.
  const int threads = split_images(N) ? get_num_threads() : 1;
  Tensor sums = backend::new_zeros({threads, size}, kFloat32);
  float* all = sums.data_ptr<float>();
  for_chunks(N, per_image(grad) + per_image(input), [&](int64_t n0, int64_t n1) {
    const Tensor part = backend::new_buffer(grad_weight.sizes(), kFloat32);
    conv2d_weight_grad(widened_images(grad, n0, n1), widened_images(input, n0, n1), part, p);
    float* sum = all + (threads > 1 ? omp_get_thread_num() : 0) * size;
    const float* x = part.data_ptr<float>();
    for (int64_t i = 0; i < size; ++i) sum[i] += x[i];
  });
  for (int t = 1; t < threads; ++t)
    for (int64_t i = 0; i < size; ++i) all[i] += all[t * size + i];
  round_into(all, grad_weight, 0, size);
}

bool conv2d_backward_reduced(const backend::ConvBackwardCall& c) {
  if (!is_bf16(c.grad) || !c.grad_weight.defined()) return false;
  const Geometry g = conv_geometry(c.input, c.grad_weight, c.grad, c.p);
  BFloat16* grad_bias = mutable_bf16(c.grad_bias);
  bool grad_input_done = false;
  if (few_taps_conv(g)) {
    few_taps_weight_grad(g, bf16_data(c.grad), bf16_data(c.input), mutable_bf16(c.grad_weight),
                         grad_bias);
  } else if (const auto s = onednn_shape(g, OnednnConvPass::kGradWeight, c.grad)) {
    grad_input_done = c.grad_input.defined() && onednn_conv(OnednnConvPass::kGradInput, g.Cg, g.Og);
    if (!onednn_conv2d_backward(*s, bf16_data(c.grad), bf16_data(c.input), bf16_data(c.weight),
                                grad_input_done ? mutable_bf16(c.grad_input) : nullptr,
                                mutable_bf16(c.grad_weight), grad_bias))
      return false;
  } else {
    return false;
  }
  if (c.grad_input.defined() && !grad_input_done)
    conv2d_adjoint(c.grad, c.weight, Tensor(), c.grad_input, c.p);
  return true;
}

}  // namespace EMBER_CPU_NS
