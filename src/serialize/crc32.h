// CRC-32 (the zip/zlib polynomial, 0xEDB88320 reflected) at memory speed: zlib's crc32 runs at
// ~1-3 GB/s, which made the CRC the largest part of a copying checkpoint load. Where the CPU has
// PCLMULQDQ (every x86-64 since 2010) the bulk is folded with carry-less multiplies, 256 or 512
// bits at a time with VPCLMULQDQ; elsewhere,
// and for the last bytes, it falls back to zlib. Chosen at run time, so portable builds get it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ember::serialize {

/// The CRC-32 of `size` bytes continuing from `crc` (0 to start), exactly zlib's crc32(crc, p, n).
uint32_t crc32(uint32_t crc, const void* data, size_t size);
/// crc32 folding at most `max_bits` (128: PCLMULQDQ, 256: VPCLMULQDQ with AVX2, 512: with
/// AVX-512) at a time, the widest the CPU runs, so tests cover every path.
uint32_t crc32_with(uint32_t crc, const void* data, size_t size, int max_bits);

}  // namespace ember::serialize
