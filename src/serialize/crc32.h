// CRC-32 (the zip/zlib polynomial, 0xEDB88320 reflected) at memory speed: zlib's crc32 runs at
// ~1-3 GB/s, which made the CRC the largest part of a copying checkpoint load. Where the CPU has
// PCLMULQDQ (every x86-64 since 2010) the bulk is folded with carry-less multiplies, 256 bits
// at a time with VPCLMULQDQ; elsewhere,
// and for the last bytes, it falls back to zlib. Chosen at run time, so portable builds get it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ember::serialize {

/// The CRC-32 of `size` bytes continuing from `crc` (0 to start), exactly zlib's crc32(crc, p, n).
uint32_t crc32(uint32_t crc, const void* data, size_t size);
/// crc32 with the 256-bit (VPCLMULQDQ) folding allowed or not, so tests cover both paths.
uint32_t crc32_with(uint32_t crc, const void* data, size_t size, bool wide);

}  // namespace ember::serialize
