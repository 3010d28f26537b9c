// Winograd F(2x2, 3x3) convolution for float32 (Note [Winograd convolution]): the weight
// transformed once per call, input tiles transformed into a (16, C, tiles) layout one chunk of
// tiles at a time, 16 products per chunk with a register-tiled kernel, then the output transform.
#include "backend/cpu/conv_winograd.h"

#include <algorithm>

#include "backend/buffers.h"
#include "backend/cpu/vec.h"
#include "core/parallel.h"

namespace EMBER_CPU_NS {
namespace {

// Note [Winograd convolution]
// F(2x2, 3x3) computes a 2x2 tile of outputs from a 4x4 tile d of the padded input as
// Y = A^T [(G g G^T) . (B^T d B)] A: per tile and (input, output) channel pair 16 multiplies
// instead of 36. With U = G g G^T (per (o, c)) and V = B^T d B (per (c, tile)), the 16 points
// xi of the 4x4 transform are 16 independent products M[xi] (tiles, O) = V[xi] (tiles, C) @
// U[xi] (C, O), the bulk of the work; the transforms add O(C + O) per tile.
// - Tiles: tile (ty, tx) of an image reads padded rows 2ty..2ty+3 and columns 2tx..2tx+3. The
//   padded image, (2 TH + 2, 2 TW + 2), is stored as two planes of its even and odd columns,
//   (2 TH + 2, TW + 1) each, so element (i, j) of tile (ty, tx) is plane j%2 at (2ty + i,
//   tx + j/2): the same element of VL consecutive tiles of a row is one vector load, and the
//   input transform runs on whole vectors of tiles (a row's last vector spills into the next
//   row's slots, which that row then overwrites; the last row's spill lands in one vector of
//   slack).
// - Chunks: an image's tile rows are cut into chunks whose V and M (16 x tiles x (C + O)
//   floats) stay in L2 with U; the products run point by point so that V[xi] of a chunk stays
//   in L1 while every output channel reads it. Register tile: kTT tiles x kOV vectors of output
//   channels, per input channel kOV loads of U and kTT broadcasts of V feed kTT*kOV FMAs.
// - Determinism: chunks depend on the shape only, and every sum over channels runs in one
//   order, so threads (which take (image, chunk) items) change no bit of the result.
// - Rounding: the transforms' coefficients are 0, +-1 and 1/2 (exact); the extra additions
//   grow the error by a small constant over the direct sum: 1.6e-7 to 3.3e-7 of the largest
//   output on tests/backend/cpu/conv_winograd_test.cpp's shapes.
// - When (winograd_wins, conv_winograd.h): 1-thread CPU time against the direct/flat kernels,
//   Zen 3 (AVX2, FMA) under load, forward / grad_input in ms:
//     C -> O @ HxW (batch)   direct        Winograd
//     32 -> 64 @ 14 (64)     17.5 / 16.3   9.0 / 9.0    (the reference CNN's second layer)
//     16 -> 16 @ 28 (32)     4.2 / 4.3     3.8 / 3.6
//     32 -> 16 @ 14 (32)     2.5 / 2.4     1.5 / 1.8
//     64 -> 64 @ 7 (32)      4.2 / 4.0     3.1 / 3.1    (7x7: a row of 4 tiles wastes 1/8)
//     128 -> 128 @ 14 (8)    42.7 / 43.0   9.9 / 10.5   (weights too big for the flat kernel)
//     8 -> 32 @ 14 (32)      1.2 / 1.6     1.3 / 1.1    (forward: C = 8 loses; grad_input has
//                                                        C = 32, O = 8 and wins)
//     12 -> 8 @ 14 (64)      1.7 / 1.3     1.7 / 2.0    (grad_input: C = 8 loses)
//     1 -> 32 @ 28 (16)      0.8 / 0.8     2.3 / 2.8    (C = 1 and O = 1: transforms dominate)
//     32 -> 64 @ 14 (1)      0.22 / 0.23   0.16 / 0.16
//     64 -> 64 @ 7 (1)       0.22 / 0.15   0.20 / 0.23  (16 tiles: the weight transform, C*O
//     256 -> 256 @ 7 (1)     4.2 / 4.9     4.5 / 5.1     pairs, costs as much as the savings)
//     256 -> 256 @ 7 (4)     17.2 / 17.5   12.4 / 11.0
//     64 -> 64 @ 224 (1)     113 / 122     75 / 65      (one tile row's V and M outgrow L2)
//   Hence C >= 16, O >= 8 and at least 16 tiles per image (7x7 outputs), whatever the batch:
//   one 7x7 image is a tie or up to 7% slower, accepted so that the batch size never decides
//   (winograd_wins). C = 10..12 was a tie within the noise of this machine.
using V = Vec<float>;
constexpr int VL = V::size;
constexpr int kOV = 2;                               // output channel vectors per register tile
constexpr int kTT = kVecBytes == 64 ? 12 : 6;        // tiles per register tile (AVX2: 12 + 3 regs)
constexpr int64_t kChunkBytes = int64_t(192) << 10;  // one chunk's V and M: half of a 512K L2

struct Plan {
  int64_t TH, TW;  // tiles per image (rows, columns); a tile is 2x2 outputs
  int64_t Hp, Wq;  // a column-parity plane is (Hp, Wq) = (2 TH + 2, TW + 1)
  int64_t half;    // elements of one such plane, plus slack for a vector read past its end
  int64_t Op;      // output channels rounded up to whole vectors
  int64_t rows;    // tile rows per chunk (the last chunk of an image may have fewer)
  int64_t chunks;  // chunks per image
  int64_t ldv;     // V's row length: a chunk's tiles + one vector of spill
  int64_t planes() const { return 2 * half; }
};

Plan make_plan(const WinogradShape& s) {
  Plan p{};
  p.TH = (s.Ho + 1) / 2, p.TW = (s.Wo + 1) / 2;
  p.Hp = 2 * p.TH + 2, p.Wq = p.TW + 1;
  p.half = p.Hp * p.Wq + VL;
  p.Op = (s.O + VL - 1) / VL * VL;
  const int64_t row_bytes = 16 * p.TW * (s.C + p.Op) * int64_t(sizeof(float));
  const int64_t rows = std::clamp<int64_t>(kChunkBytes / row_bytes, 1, p.TH);
  p.chunks = (p.TH + rows - 1) / rows;
  p.rows = (p.TH + p.chunks - 1) / p.chunks;  // even chunks: 7 rows as 4 + 3, not 6 + 1
  p.ldv = p.rows * p.TW + VL;
  return p;
}

// A broadcast that GCC emits as one vbroadcastss from memory (as conv.cpp's splat).
inline V splat(float x) { return V(x - V::V{}); }

// U (16, C, Op) = G g G^T of every (o, c), zero for o >= O; then the bias padded to Op.
// Vectors of VL output channels: a (9, VL) block of the weight is gathered (zero beyond O), then
// transformed and stored as whole vectors, U written in 16 sequential streams. Scalar, with a
// store per element to a new cache line, this had cost three times the products at batch 1.
void transform_weight(const WinogradShape& s, const Plan& p, const float* w, const float* bias,
                      float* u) {
  for (int64_t c = 0; c < s.C; ++c)
    for (int64_t o = 0; o < s.O; o += VL) {
      const int lanes = int(std::min<int64_t>(VL, s.O - o));
      alignas(64) float block[9][VL] = {};
      for (int l = 0; l < lanes; ++l)
        for (int k = 0; k < 9; ++k) block[k][l] = w[((o + l) * s.C + c) * 9 + k];
      V g[9];
      for (int k = 0; k < 9; ++k) g[k] = V::load(block[k]);
      const V half(0.5f);
      V gg[4][3];  // G g: rows g0, (g0 + g1 + g2) / 2, (g0 - g1 + g2) / 2, g2
      for (int j = 0; j < 3; ++j) {
        gg[0][j] = g[j];
        gg[1][j] = half * (g[j] + g[3 + j] + g[6 + j]);
        gg[2][j] = half * (g[j] - g[3 + j] + g[6 + j]);
        gg[3][j] = g[6 + j];
      }
      for (int i = 0; i < 4; ++i) {  // (G g) G^T
        float* dst = u + (i * 4 * s.C + c) * p.Op + o;
        const int64_t next = s.C * p.Op;  // the next transform point
        gg[i][0].store(dst);
        (half * (gg[i][0] + gg[i][1] + gg[i][2])).store(dst + next);
        (half * (gg[i][0] - gg[i][1] + gg[i][2])).store(dst + 2 * next);
        gg[i][2].store(dst + 3 * next);
      }
    }
  float* b = u + 16 * s.C * p.Op;
  std::fill_n(b, p.Op, 0.0f);
  if (bias) std::copy_n(bias, s.O, b);
}

// The column-parity planes of one image (C, 2, half): plane cp at (r, k) holds the padded input
// at row r, column 2k + cp. Each channel is padded into `padded` (Hp, 2 Wq), whose zeros
// outside the image the caller wrote once, then split as one long stride-2 run: per-row loops
// over 7-element rows had cost 10% of the convolution.
void parity_planes(const WinogradShape& s, const Plan& p, const float* in, float* padded,
                   float* q) {
  const int64_t Wp = 2 * p.Wq, rows = std::min(s.H, p.Hp - s.ph), cols = std::min(s.W, Wp - s.pw);
  const int64_t n = p.Hp * p.Wq;
  for (int64_t c = 0; c < s.C; ++c) {
    for (int64_t y = 0; y < rows; ++y)
      std::copy_n(in + (c * s.H + y) * s.W, cols, padded + (y + s.ph) * Wp + s.pw);
    float* even = q + c * p.planes();
    float* odd = even + p.half;
    for (int64_t k = 0; k < n; ++k) even[k] = padded[2 * k], odd[k] = padded[2 * k + 1];
  }
}

// V (16, C, ldv) of tile rows [ty0, ty1): B^T d B for VL tiles of a row at a time.
void transform_input(const WinogradShape& s, const Plan& p, const float* q, int64_t ty0,
                     int64_t ty1, float* v) {
  const int64_t plane16 = s.C * p.ldv;  // one transform point's (C, ldv)
  for (int64_t c = 0; c < s.C; ++c) {
    const float* qc = q + c * p.planes();
    float* vc = v + c * p.ldv;
    for (int64_t ty = ty0; ty < ty1; ++ty)
      for (int64_t tx = 0; tx < p.TW; tx += VL) {
        const int64_t at = 2 * ty * p.Wq + tx;
        V d[4][4];
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 4; ++j)
            d[i][j] = V::load(qc + (j % 2) * p.half + at + i * p.Wq + j / 2);
        V t[4][4];  // B^T d
        for (int j = 0; j < 4; ++j) {
          t[0][j] = d[0][j] - d[2][j];
          t[1][j] = d[1][j] + d[2][j];
          t[2][j] = d[2][j] - d[1][j];
          t[3][j] = d[1][j] - d[3][j];
        }
        float* dst = vc + (ty - ty0) * p.TW + tx;
        for (int i = 0; i < 4; ++i) {  // (B^T d) B
          (t[i][0] - t[i][2]).store(dst + (i * 4 + 0) * plane16);
          (t[i][1] + t[i][2]).store(dst + (i * 4 + 1) * plane16);
          (t[i][2] - t[i][1]).store(dst + (i * 4 + 2) * plane16);
          (t[i][1] - t[i][3]).store(dst + (i * 4 + 3) * plane16);
        }
      }
  }
}

// m (TT, Op) [OV vectors from column 0] = v (C, ldv) [TT tiles]^T @ u (C, Op) [OV vectors].
template <int OV, int TT>
void product_tile(const float* v, int64_t ldv, const float* u, int64_t Op, int64_t C, float* m) {
  V acc[TT][OV];
  for (int t = 0; t < TT; ++t)
    for (int k = 0; k < OV; ++k) acc[t][k] = V(0.0f);
  for (int64_t c = 0; c < C; ++c) {
    V uc[OV];
    for (int k = 0; k < OV; ++k) uc[k] = V::load(u + c * Op + k * VL);
    const float* vc = v + c * ldv;
    for (int t = 0; t < TT; ++t) {
      const V b = splat(vc[t]);
      for (int k = 0; k < OV; ++k) acc[t][k] = acc[t][k] + b * uc[k];
    }
  }
  for (int t = 0; t < TT; ++t)
    for (int k = 0; k < OV; ++k) acc[t][k].store(m + t * Op + k * VL);
}

// The last tiles of a row of register tiles: fewer than kTT.
template <int OV, int TT = kTT - 1>
void product_tail(int64_t n, const float* v, int64_t ldv, const float* u, int64_t Op, int64_t C,
                  float* m) {
  if constexpr (TT > 0) {
    if (n == TT) return product_tile<OV, TT>(v, ldv, u, Op, C, m);
    product_tail<OV, TT - 1>(n, v, ldv, u, Op, C, m);
  }
}

// M (16, tiles, Op) = V[xi]^T @ U[xi] for each transform point xi.
void products(const WinogradShape& s, const Plan& p, const float* v, const float* u, int64_t tiles,
              float* m) {
  for (int xi = 0; xi < 16; ++xi) {
    const float* vx = v + xi * s.C * p.ldv;
    const float* ux = u + xi * s.C * p.Op;
    float* mx = m + xi * p.rows * p.TW * p.Op;
    auto columns = [&]<int OV>(int64_t o) {
      int64_t t = 0;
      for (; t + kTT <= tiles; t += kTT)
        product_tile<OV, kTT>(vx + t, p.ldv, ux + o, p.Op, s.C, mx + t * p.Op + o);
      product_tail<OV>(tiles - t, vx + t, p.ldv, ux + o, p.Op, s.C, mx + t * p.Op + o);
    };
    int64_t o = 0;
    for (; o + kOV * VL <= p.Op; o += kOV * VL) columns.template operator()<kOV>(o);
    if (o < p.Op) columns.template operator()<1>(o);
  }
}

// out (O, Ho, Wo) of one image, tile rows [ty0, ty1) = A^T M A + bias.
void transform_output(const WinogradShape& s, const Plan& p, const float* m, const float* bias,
                      int64_t ty0, int64_t ty1, float* out) {
  const int64_t point = p.rows * p.TW * p.Op, HWo = s.Ho * s.Wo;
  for (int64_t ty = ty0; ty < ty1; ++ty)
    for (int64_t tx = 0; tx < p.TW; ++tx) {
      const float* mt = m + ((ty - ty0) * p.TW + tx) * p.Op;
      const int64_t y = 2 * ty, x = 2 * tx;
      const bool whole = y + 1 < s.Ho && x + 1 < s.Wo;
      for (int64_t o = 0; o < s.O; o += VL) {
        V a[4][4];
        for (int k = 0; k < 16; ++k) a[k / 4][k % 4] = V::load(mt + k * point + o);
        V r[2][4];  // A^T M
        for (int j = 0; j < 4; ++j) {
          r[0][j] = a[0][j] + a[1][j] + a[2][j];
          r[1][j] = a[1][j] - a[2][j] - a[3][j];
        }
        alignas(64) float yv[4][VL];  // (A^T M) A + bias: outputs (0, 0), (0, 1), (1, 0), (1, 1)
        const V b = V::load(bias + o);
        for (int i = 0; i < 2; ++i) {
          (r[i][0] + r[i][1] + r[i][2] + b).store(yv[2 * i]);
          (r[i][1] - r[i][2] - r[i][3] + b).store(yv[2 * i + 1]);
        }
        float* dst = out + o * HWo + y * s.Wo + x;
        const int lanes = int(std::min<int64_t>(VL, s.O - o));
        if (whole) {
          for (int l = 0; l < lanes; ++l, dst += HWo) {
            dst[0] = yv[0][l], dst[1] = yv[1][l];
            dst[s.Wo] = yv[2][l], dst[s.Wo + 1] = yv[3][l];
          }
        } else {  // the tile overhangs an odd-sized output
          for (int l = 0; l < lanes; ++l, dst += HWo)
            for (int k = 0; k < 4; ++k)
              if (y + k / 2 < s.Ho && x + k % 2 < s.Wo) dst[(k / 2) * s.Wo + k % 2] = yv[k][l];
        }
      }
    }
}

}  // namespace

void conv_winograd(const WinogradShape& s, const float* in, const float* w, const float* bias,
                   float* out) {
  const Plan p = make_plan(s);
  Tensor ut = backend::new_buffer({16 * s.C * p.Op + p.Op}, kFloat32);
  float* u = static_cast<float*>(ut.data_ptr());
  transform_weight(s, p, w, bias, u);
  const float* bias_p = u + 16 * s.C * p.Op;
  const int64_t in_image = s.C * s.H * s.W, out_image = s.O * s.Ho * s.Wo;
  const int64_t qsize = s.C * p.planes(), vsize = 16 * s.C * p.ldv;
  const int64_t msize = 16 * p.rows * p.TW * p.Op, psize = p.Hp * 2 * p.Wq;
  // Items are (image, chunk) pairs; a thread builds an image's planes once per run.
  parallel_for(0, s.N * p.chunks, 1, [&](int64_t i0, int64_t i1) {
    Tensor scratch = backend::new_buffer({qsize + vsize + msize + psize}, kFloat32);
    float* q = static_cast<float*>(scratch.data_ptr());
    float* v = q + qsize;
    float* m = v + vsize;
    float* padded = m + msize;
    std::fill_n(padded, psize, 0.0f);  // the padding; parity_planes writes the image only
    for (int64_t c = 0; c < s.C; ++c)  // the slack after each plane, read by spilling lanes
      for (int k = 0; k < 2; ++k)
        std::fill_n(q + c * p.planes() + k * p.half + p.half - VL, VL, 0.0f);
    int64_t planes_of = -1;
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t n = i / p.chunks, ty0 = i % p.chunks * p.rows;
      const int64_t ty1 = std::min(ty0 + p.rows, p.TH);
      if (n != planes_of) parity_planes(s, p, in + n * in_image, padded, q), planes_of = n;
      transform_input(s, p, q, ty0, ty1, v);
      products(s, p, v, u, (ty1 - ty0) * p.TW, m);
      transform_output(s, p, m, bias_p, ty0, ty1, out + n * out_image);
    }
  });
}

}  // namespace EMBER_CPU_NS
