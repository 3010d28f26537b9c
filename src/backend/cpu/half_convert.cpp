// See half_convert.h. The F16C loops are compiled for avx+f16c with a target attribute, so the
// library stays runnable on CPUs without them (EMBER_NATIVE=OFF builds) and picks them at run
// time. bfloat16 needs no special instructions: widening is a shift and narrowing an integer
// rounding that GCC vectorises as written (wider where the CPU has AVX2 or AVX-512: below).
#include "backend/cpu/half_convert.h"

#include <immintrin.h>

#include "backend/cpu/cpu_features.h"
#include "core/parallel.h"

namespace ember::cpu {
namespace {

// The bfloat16 loops, compiled for AVX-512, AVX2 and the baseline (target_clones: the loader
// picks the copy for the CPU): GCC vectorises them in every copy, but the baseline's SSE2 has
// no 32-to-16-bit pack. The same bits in every copy (so, as for randn's, the CPU picks, not
// EMBER_CPU_CAPABILITY). Out of the lambdas below, which would not inherit the attribute.
// Under autocast the CNN's convolutions convert every chunk: its bfloat16 training on a Zen 5
// ran 4,367-4,730 -> 4,858-5,333 img/s.
[[gnu::target_clones("avx512f", "avx2", "default")]] void bfloat16_to_float_run(const BFloat16* src,
                                                                                float* dst,
                                                                                int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = detail::bits_float(uint32_t(src[i].x) << 16);
}

[[gnu::target_clones("avx512f", "avx2", "default")]] void float_to_bfloat16_run(const float* src,
                                                                                BFloat16* dst,
                                                                                int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i].x = BFloat16::round_to_bf16(src[i]);
}

__attribute__((target("avx,f16c"))) void half_to_float_f16c(const Half* src, float* dst,
                                                             int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) dst[i] = float(src[i]);
}

__attribute__((target("avx,f16c"))) void float_to_half_f16c(const float* src, Half* dst,
                                                             int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), h);
  }
  for (; i < n; ++i) dst[i] = Half(src[i]);
}

// dst[i] = Dst(src[i]) over [0, n) in parallel chunks, each chunk through `f16c_loop` when the
// CPU has F16C, else element by element.
template <class Src, class Dst>
void convert_in_parallel(const Src* src, Dst* dst, int64_t n,
                         void (*f16c_loop)(const Src*, Dst*, int64_t)) {
  const bool f16c = cpu_features().f16c;
  parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
    if (f16c) {
      f16c_loop(src + b, dst + b, e - b);
    } else {
      for (int64_t i = b; i < e; ++i) dst[i] = Dst(src[i]);
    }
  });
}

}  // namespace

void to_float(const Half* src, float* dst, int64_t n) {
  convert_in_parallel(src, dst, n, half_to_float_f16c);
}

void from_float(const float* src, Half* dst, int64_t n) {
  convert_in_parallel(src, dst, n, float_to_half_f16c);
}

void to_float(const BFloat16* src, float* dst, int64_t n) {
  parallel_for(0, n, kGrainSize,
               [&](int64_t b, int64_t e) { bfloat16_to_float_run(src + b, dst + b, e - b); });
}

void from_float(const float* src, BFloat16* dst, int64_t n) {
  parallel_for(0, n, kGrainSize,
               [&](int64_t b, int64_t e) { float_to_bfloat16_run(src + b, dst + b, e - b); });
}

}  // namespace ember::cpu
