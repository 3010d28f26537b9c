// bfloat16 in float registers: a vector of bfloat16s widened to a Vec<float> as it is loaded and
// narrowed as it is stored, so kernels over bfloat16 storage compute in float32 without a float32
// copy of their operands (the elementwise loop, the norms, max pooling).
#pragma once

#include <cstring>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "backend/cpu/level.h"
#include "backend/cpu/vec.h"
#include "core/dispatch.h"
#include "ember/half.h"

namespace EMBER_CPU_NS {

// Note [bfloat16 in registers]: a bfloat16 run whose operands are contiguous or broadcast is
// widened a vector at a time in registers (a bfloat16 is the top half of a float: zero-extend,
// shift), computed by the functor's Vec<float> path and narrowed in registers with the scalar
// conversion's rounding (to nearest even; any NaN to 0x7FC0), so the result is the float op on
// the widened values rounded once, as from the fused scalar loop it replaces on such runs. That
// loop vectorised the cheap functors with their conversions but ran exp, gelu and the other
// math functions one element at a time: 16M elements, 2 threads, Zen 3, gelu 105 -> 26 ms
// (PyTorch 1.13: 105), add 7.5 ms as before. It is map_row_simd with bfloat16 storage
// (elementwise.h), so the last partial vector is zero-padded as the float row's (Note [Padded
// tail]); strided runs keep the fused scalar loop.
inline Vec<float> widen_bf16(const BFloat16* p) {
  // (GCC widens the generic form below in halves: two extends, an extract and an insert. AVX-512
  // keeps it: its intrinsics' undefined pass-through makes GCC 12 warn -Wmaybe-uninitialized.)
#if defined(__AVX2__) && !defined(__AVX512F__)
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return Vec<float>(vfloat_t(_mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16))));
#else
  vbf16_t h;
  std::memcpy(&h, p, sizeof(h));
  const vuint32_t bits = __builtin_convertvector(h, vuint32_t) << 16;
  Vec<float> r;
  std::memcpy(&r.v, &bits, sizeof(bits));
  return r;
#endif
}

// v rounded to bfloat16, each in the low 16 bits of its 32-bit lane.
inline vuint32_t bf16_bits(Vec<float> v) {
  vuint32_t u;
  std::memcpy(&u, &v.v, sizeof(u));
  const vint32_t nan = vint32_t(u & 0x7fffffffu) > 0x7f800000;  // (signed: one compare)
  const vuint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  return nan ? vuint32_t{} + 0x7fc0u : rounded;
}

inline void narrow_bf16(Vec<float> v, BFloat16* p) {
  const vuint32_t bits = bf16_bits(v);
#if defined(__AVX2__) && !defined(__AVX512F__)  // (values fit 16 bits: pack, then join the lanes)
  const __m256i packed =
      _mm256_permute4x64_epi64(_mm256_packus_epi32(__m256i(bits), __m256i(bits)), 0xd8);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm256_castsi256_si128(packed));
#else
  const vbf16_t h = __builtin_convertvector(bits, vbf16_t);
  std::memcpy(static_cast<void*>(p), &h, sizeof(h));
#endif
}

#if defined(__AVX512F__) && defined(__AVX512BW__)
// The first n of 16 lanes (all of them for n >= 16): a row's last, partial vector.
inline __mmask16 first_lanes(int64_t n) {
  return n >= 16 ? __mmask16(0xffff) : __mmask16((1u << n) - 1);
}

// The lanes m of 16 bfloat16s at p widened (the others 0), and v's lanes m rounded into p as
// narrow_bf16 rounds: nothing is read or written outside m.
inline __m512 widen_bf16_lanes(__mmask16 m, const BFloat16* p) {
  // (maskz forms: GCC 12 warns that the plain ones' undefined pass-through is read uninitialised.)
  const __m256i h = _mm256_maskz_loadu_epi16(m, p);
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(m, _mm512_maskz_cvtepu16_epi32(m, h), 16));
}
inline void narrow_bf16_lanes(__mmask16 m, __m512 v, BFloat16* p) {
  const vuint32_t bits = bf16_bits(Vec<float>(vfloat_t(v)));
  _mm512_mask_cvtepi32_storeu_epi16(p, m, __m512i(bits));
}
#endif

// A vector of C = compute_t<S> from storage S, and back (S: float, double or bfloat16).
template <class S>
inline Vec<compute_t<S>> load_vec(const S* p) {
  if constexpr (std::is_same_v<S, BFloat16>)
    return widen_bf16(p);
  else
    return Vec<S>::load(p);
}
template <class S>
inline void store_vec(Vec<compute_t<S>> v, S* p) {
  if constexpr (std::is_same_v<S, BFloat16>)
    narrow_bf16(v, p);
  else
    v.store(p);
}

}  // namespace EMBER_CPU_NS
