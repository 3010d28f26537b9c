// crc32 by folding. See crc32.h.
//
// Note [CRC folding]: the raw CRC (no pre/post inversion) of a message is M(x)·x^32 mod P, so any
// 128-bit block may be replaced by a polynomial congruent to it mod P at the same distance from
// the end. Folding multiplies a block by x^(distance) mod P (the constants below, bit-reflected
// and shifted as in Intel's "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ") and
// adds it into the block that far ahead; four lanes fold 64 bytes per step. What remains is one
// 16-byte block with the same raw CRC as everything before it, which zlib finishes together with
// the tail. The caller's running CRC enters as the inversion XORed into the first four bytes.
#include "serialize/crc32.h"

#include <zlib.h>

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ember::serialize {
namespace {

// Below this zlib is as fast (the folding needs 64 bytes and has a fixed cost).
constexpr size_t kFoldMin = 256;

uint32_t zlib_crc32(uint32_t crc, const unsigned char* p, size_t n) {
  while (n > 0) {  // zlib takes uInt lengths
    const size_t chunk = n > (size_t(1) << 30) ? (size_t(1) << 30) : n;
    crc = uint32_t(::crc32(crc, p, uInt(chunk)));
    p += chunk;
    n -= chunk;
  }
  return crc;
}

#if defined(__x86_64__)
inline __m128i load(const unsigned char* q) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
}

__attribute__((target("pclmul,sse4.1"))) inline __m128i fold(__m128i x, __m128i k, __m128i next) {
  const __m128i lo = _mm_clmulepi64_si128(x, k, 0x00);  // low half times k.lo
  const __m128i hi = _mm_clmulepi64_si128(x, k, 0x11);  // high half times k.hi
  return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

// Folds four 128-bit lanes into one, then the remaining whole blocks, and hands the last one to
// zlib.
__attribute__((target("pclmul,sse4.1"))) uint32_t finish(__m128i x0, __m128i x1, __m128i x2,
                                                         __m128i x3, const unsigned char*& p,
                                                         size_t& n) {
  const __m128i k3k4 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);  // x^(128-32), x^(128+32) mod P
  __m128i x = fold(x0, k3k4, x1);
  x = fold(x, k3k4, x2);
  x = fold(x, k3k4, x3);
  for (; n >= 16; p += 16, n -= 16) x = fold(x, k3k4, load(p));
  alignas(16) unsigned char rest[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(rest), x);
  // The raw CRC of `rest` is the raw CRC of all folded bytes; zlib's crc32(~0u, ...) is the
  // inverted raw CRC from zero, which is what the caller continues from.
  return zlib_crc32(~0u, rest, sizeof(rest));
}

// Folds the whole 16-byte blocks of p (n >= 64), returns the zlib-style CRC so far and leaves the
// rest (n % 16 bytes) to the caller. See Note [CRC folding].
__attribute__((target("pclmul,sse4.1"))) uint32_t fold_crc32(uint32_t crc, const unsigned char* p,
                                                             size_t& n) {
  const __m128i k1k2 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);  // x^(512-32), x^(512+32) mod P
  __m128i x0 = _mm_xor_si128(load(p), _mm_cvtsi32_si128(int(~crc)));
  __m128i x1 = load(p + 16), x2 = load(p + 32), x3 = load(p + 48);
  p += 64;
  n -= 64;
  for (; n >= 64; p += 64, n -= 64) {
    x0 = fold(x0, k1k2, load(p));
    x1 = fold(x1, k1k2, load(p + 16));
    x2 = fold(x2, k1k2, load(p + 32));
    x3 = fold(x3, k1k2, load(p + 48));
  }
  return finish(x0, x1, x2, x3, p, n);
}

// The same four lanes, two to a 256-bit register (the fold distance and constants are the same).
// Helpers, not lambdas: a lambda does not inherit its function's target attribute.
__attribute__((target("avx2"))) inline __m256i load256(const unsigned char* q) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
}

__attribute__((target("vpclmulqdq,avx2"))) inline __m256i fold256(__m256i y, __m256i k,
                                                                  __m256i next) {
  const __m256i lo = _mm256_clmulepi64_epi128(y, k, 0x00);
  const __m256i hi = _mm256_clmulepi64_epi128(y, k, 0x11);
  return _mm256_xor_si256(_mm256_xor_si256(lo, hi), next);
}

__attribute__((target("vpclmulqdq,avx2,pclmul,sse4.1"))) uint32_t wide_fold_crc32(
    uint32_t crc, const unsigned char* p, size_t& n) {
  const __m256i k1k2 = _mm256_set_epi64x(0x1c6e41596, 0x154442bd4, 0x1c6e41596, 0x154442bd4);
  __m256i y0 =
      _mm256_xor_si256(load256(p), _mm256_zextsi128_si256(_mm_cvtsi32_si128(int(~crc))));
  __m256i y1 = load256(p + 32);
  p += 64;
  n -= 64;
  for (; n >= 64; p += 64, n -= 64) {
    y0 = fold256(y0, k1k2, load256(p));
    y1 = fold256(y1, k1k2, load256(p + 32));
  }
  return finish(_mm256_castsi256_si128(y0), _mm256_extracti128_si256(y0, 1),
                _mm256_castsi256_si128(y1), _mm256_extracti128_si256(y1, 1), p, n);
}


bool has_pclmul() {
  static const bool yes = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  return yes;
}

bool has_vpclmul() {
  static const bool yes = has_pclmul() && __builtin_cpu_supports("vpclmulqdq") &&
                          __builtin_cpu_supports("avx2");
  return yes;
}
#endif

}  // namespace

uint32_t crc32_with(uint32_t crc, const void* data, size_t size, bool wide) {
  auto* p = static_cast<const unsigned char*>(data);
#if defined(__x86_64__)
  if (size >= kFoldMin && has_pclmul()) {
    size_t rest = size;
    crc = wide && has_vpclmul() ? wide_fold_crc32(crc, p, rest) : fold_crc32(crc, p, rest);
    p += size - rest;
    size = rest;
  }
#endif
  return zlib_crc32(crc, p, size);
}

uint32_t crc32(uint32_t crc, const void* data, size_t size) {
  return crc32_with(crc, data, size, true);
}

}  // namespace ember::serialize
