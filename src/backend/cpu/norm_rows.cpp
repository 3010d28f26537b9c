// CPU kernels of layer norm and RMS norm (src/ops/norm.cpp): rows of N normalised one at a time,
// their statistics and affine map from norm_sweeps.h, the backward in two sweeps per row (Note
// [Fused row norm backward]). Batch and group norm: norm.cpp.
#include <algorithm>
#include <cmath>
#include <vector>

#include "backend/cpu/kernels.h"
#include "backend/cpu/lines.h"
#include "backend/cpu/norm_sweeps.h"
#include "backend/cpu/optional_data.h"
#include "core/dispatch.h"
#include "core/parallel.h"

namespace EMBER_CPU_NS {
namespace {

using namespace norm_sweeps;

// gw[i] += dy[i] (x[i] - mean) rstd and gb[i] += dy[i] over one run (either null: skipped).
template <class T>
[[gnu::noinline]] void param_grads_run(const T* x, const T* dy, int64_t n, T mean, T rstd, T* gw,
                                       T* gb) {
  constexpr int W = Vec<T>::size;
  int64_t i = 0;
  for (; i + W <= n; i += W) {
    const Vec<T> g = Vec<T>::load(dy + i);
    if (gw)
      (Vec<T>::load(gw + i) + g * ((Vec<T>::load(x + i) - Vec<T>(mean)) * Vec<T>(rstd)))
          .store(gw + i);
    if (gb) (Vec<T>::load(gb + i) + g).store(gb + i);
  }
  for (; i < n; ++i) {
    if (gw) gw[i] += dy[i] * ((x[i] - mean) * rstd);
    if (gb) gb[i] += dy[i];
  }
}

// Note [Fused row norm backward]
// layer_norm's and rms_norm's backward for M rows of N, PyTorch's CPU kernel's plan: per row, one
// sweep for Σ g and Σ g d (g = dy w, d = x - mean, with mean 0 and no Σ g term for rms_norm) and
// one that writes dx = (g - d k - Σg / N) rstd, k = Σ g d rstd² / N, while adding dy d rstd and dy
// to the weight's and bias's gradients. Those are summed over rows in per-block float32 (T)
// accumulators — a split of the rows fixed by the shape alone, at most kMaxRowBlocks blocks, so
// the sums do not depend on the thread count (Note [Deterministic parallel sums]) — then over the
// blocks in order. A row (a few KiB) stays in L1/L2 between its two sweeps, so the activations are
// read about twice from memory instead of the composite formula's dozen passes and float32 copies.
template <class U, class T = compute_t<U>>
void row_norm_backward(const U* x, const U* dy, U* dx, int64_t M, int64_t N, const T* mean,
                       const T* rstd, const T* w, T* gw, T* gb) {
  constexpr int64_t kMaxRowBlocks = 64;  // room for up to 64 threads; 64 · 2N floats of sums
  const int64_t blocks =
      std::clamp<int64_t>(M * N / kGrainSize, 1, std::clamp<int64_t>(M, 1, kMaxRowBlocks));
  const bool params = gw || gb, one_run = N <= kRun<U>;
  // (blocks, 2, N): each block's gw and gb accumulators.
  std::vector<T> acc(params ? size_t(blocks * 2 * N) : 0, T(0));
  parallel_for(0, blocks, 1, [&](int64_t b0, int64_t b1) {
    alignas(64) RunBuffer<U> xbuf, gbuf;
    for (int64_t blk = b0; blk < b1; ++blk) {
      T* aw = gw ? acc.data() + blk * 2 * N : nullptr;
      T* ab = gb ? acc.data() + blk * 2 * N + N : nullptr;
      for (int64_t r = blk * M / blocks; r < (blk + 1) * M / blocks; ++r) {
        const U* xr = x + r * N;
        const U* gr = dy + r * N;
        const T mu = mean ? mean[r] : T(0), rs = rstd[r];
        // A row of one run is widened once, for both sweeps (the same sums as plane_grad_sums).
        const T* x1 = one_run ? widened(xr, N, xbuf.data()) : nullptr;
        const T* g1 = one_run ? widened(gr, N, gbuf.data()) : nullptr;
        T k = T(0), gm = T(0);
        if (dx) {
          const auto [sum_g, dot] =
              one_run ? run_grad_sums(x1, g1, w, N, mu) : plane_grad_sums(xr, gr, w, N, mu);
          k = T(dot * double(rs) * double(rs) / double(N));
          gm = mean ? T(sum_g / double(N)) : T(0);
        }
        for (int64_t s = 0; s < N; s += std::min(N, kRun<U>)) {
          const int64_t len = std::min(kRun<U>, N - s);
          const T* xp = one_run ? x1 : widened(xr + s, len, xbuf.data());
          const T* gp = one_run ? g1 : widened(gr + s, len, gbuf.data());
          if (params) param_grads_run(xp, gp, len, mu, rs, aw ? aw + s : aw, ab ? ab + s : ab);
          if (!dx) continue;
          T* op = out_run(dx + r * N + s, gbuf.data());  // gp's elements are read before written
          grad_input_run(xp, gp, w ? w + s : w, T(1), op, len, mu, k, gm, rs);
          stored<U>(op, dx + r * N + s, len);
        }
      }
    }
  });
  for (int64_t i = 0; params && i < N; ++i) {
    T sw = T(0), sb = T(0);
    for (int64_t blk = 0; blk < blocks; ++blk) {
      sw += acc[size_t(blk * 2 * N + i)];
      sb += acc[size_t(blk * 2 * N + N + i)];
    }
    if (gw) gw[i] = sw;
    if (gb) gb[i] = sb;
  }
}

// ── the entries (backend/norm_kernels.h), as norm.cpp's ──

void layer_norm_kernel(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                       const Tensor& w, const Tensor& b, int64_t M, int64_t N, double eps) {
  dispatch<DtypeSet::Floating>(x.dtype(), "layer_norm", [&]<class U>() {
    if constexpr (simd_type_v<U> || is_half_v<U>) {
      using T = compute_t<U>;
      const NormOperands<U> a(x, y, mean, rstd, w, b);
      for_lines(M, N, [&](int64_t r0, int64_t r1) {
        alignas(64) RunBuffer<U> buf;
        for (int64_t r = r0; r < r1; ++r) {
          Moments m;
          accumulate_any(a.x + r * N, N, m);
          const T mu = T(m.mean), rs = T(1.0 / std::sqrt(m.var() + eps));
          a.mean[r] = mu;
          a.rstd[r] = rs;
          for (int64_t s = 0; s < N; s += std::min(N, kRun<U>)) {
            const int64_t len = std::min(kRun<U>, N - s), off = r * N + s;
            T* out = out_run(a.y + off, buf.data());
            normalize_row(widened(a.x + off, len, buf.data()), out, len, mu, rs,
                          a.w ? a.w + s : a.w, a.b ? a.b + s : a.b);
            stored<U>(out, a.y + off, len);
          }
        }
      });
    }
  });
}

void layer_norm_backward_kernel(const Tensor& gi, const Tensor& gw, const Tensor& gb,
                                const Tensor& x, const Tensor& dy, const Tensor& mean,
                                const Tensor& rstd, const Tensor& w, int64_t M, int64_t N) {
  dispatch<DtypeSet::Floating>(x.dtype(), "layer_norm_backward", [&]<class U>() {
    using T = compute_t<U>;
    if constexpr (simd_type_v<U> || is_half_v<U>)
      row_norm_backward<U>(x.data_ptr<U>(), dy.data_ptr<U>(), data_or_null<U>(gi), M, N,
                           data_or_null<T>(mean), rstd.data_ptr<T>(), data_or_null<T>(w),
                           data_or_null<T>(gw), data_or_null<T>(gb));
  });
}

void rms_norm_kernel(const Tensor& y, const Tensor& rstd, const Tensor& x, const Tensor& w,
                     int64_t M, int64_t N, double e) {
  dispatch<DtypeSet::Floating>(x.dtype(), "rms_norm", [&]<class U>() {
    if constexpr (simd_type_v<U> || is_half_v<U>) {
      using T = compute_t<U>;
      const NormOperands<U> a(x, y, Tensor(), rstd, w, Tensor());
      for_lines(M, N, [&](int64_t r0, int64_t r1) {
        alignas(64) RunBuffer<U> buf;
        for (int64_t r = r0; r < r1; ++r) {
          // Runs of kChunk are sum_squares's chunks: the same sum as in one call.
          double sq = 0;
          for (int64_t s = 0; s < N; s += std::min(N, kRun<U>)) {
            const int64_t len = std::min(kRun<U>, N - s);
            sq += sum_squares(widened(a.x + r * N + s, len, buf.data()), len);
          }
          const double ms = N > 0 ? sq / double(N) : NAN;
          const T rs = T(1.0 / std::sqrt(ms + e));
          a.rstd[r] = rs;
          for (int64_t s = 0; s < N; s += std::min(N, kRun<U>)) {
            const int64_t len = std::min(kRun<U>, N - s), off = r * N + s;
            T* out = out_run(a.y + off, buf.data());
            normalize_row(widened(a.x + off, len, buf.data()), out, len, T(0), rs,
                          a.w ? a.w + s : a.w, (const T*)nullptr);
            stored<U>(out, a.y + off, len);
          }
        }
      });
    }
  });
}

}  // namespace

void add_row_norm_kernels(backend::Backend& b) {
  b.norm.layer_norm = &layer_norm_kernel;
  b.norm.layer_norm_backward = &layer_norm_backward_kernel;
  b.norm.rms_norm = &rms_norm_kernel;
}

}  // namespace EMBER_CPU_NS
