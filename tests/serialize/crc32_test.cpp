// serialize::crc32 (the folded CRC the checkpoint reader checks records with) against zlib's
// crc32 for every length around the folding's block sizes, unaligned starts and chained calls,
// by the 128-bit and (where the CPU has VPCLMULQDQ) the 256-bit folding.
#include "serialize/crc32.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <random>
#include <vector>

namespace {

std::vector<unsigned char> random_bytes(size_t n) {
  std::mt19937 gen(1234);
  std::vector<unsigned char> v(n);
  for (auto& b : v) b = static_cast<unsigned char>(gen());
  return v;
}

uint32_t zlib_crc(uint32_t crc, const unsigned char* p, size_t n) {
  return uint32_t(::crc32(crc, p, uInt(n)));
}

TEST(SerializeCrc32, MatchesZlibForEveryLengthAndAlignment) {
  const auto bytes = random_bytes(4096 + 64);
  for (const bool wide : {false, true})
    for (size_t offset = 0; offset < 16; offset += 3)
      for (size_t n = 0; n <= 1100; ++n)
        ASSERT_EQ(ember::serialize::crc32_with(0, bytes.data() + offset, n, wide),
                  zlib_crc(0, bytes.data() + offset, n))
            << "offset " << offset << " length " << n << " wide " << wide;
}

TEST(SerializeCrc32, ChainsLikeZlib) {
  const auto bytes = random_bytes(1 << 20);
  uint32_t ours = 0;
  size_t done = 0;
  for (size_t step = 1; done < bytes.size(); step = step * 3 + 17) {
    const size_t n = std::min(step, bytes.size() - done);
    ours = ember::serialize::crc32(ours, bytes.data() + done, n);
    done += n;
  }
  EXPECT_EQ(ours, zlib_crc(0, bytes.data(), bytes.size()));
  for (const bool wide : {false, true})
    EXPECT_EQ(ember::serialize::crc32_with(0x12345678u, bytes.data(), bytes.size(), wide),
              zlib_crc(0x12345678u, bytes.data(), bytes.size()));
}

// crc32_copy: the bytes arrive and the CRC is zlib's, for every length around the block sizes,
// source and destination offsets that differ (the streamed stores need a 16-byte aligned
// destination; the others fall back to plain stores), streamed or not, and chained.
TEST(SerializeCrc32, CopyMatchesZlibAndCopiesEveryByte) {
  const auto bytes = random_bytes(4096 + 64);
  for (const bool stream : {false, true})
    for (size_t src_off = 0; src_off < 16; src_off += 5)
      for (size_t dst_off : {size_t(0), size_t(3), size_t(16)})
        for (size_t n = 0; n <= 1100; n += (n < 300 ? 1 : 7)) {
          std::vector<unsigned char> out(n + 64, 0xEE);
          const uint32_t got = ember::serialize::crc32_copy(0x9abcdef0u, out.data() + dst_off,
                                                            bytes.data() + src_off, n, stream);
          ASSERT_EQ(got, zlib_crc(0x9abcdef0u, bytes.data() + src_off, n))
              << "src " << src_off << " dst " << dst_off << " n " << n << " stream " << stream;
          ASSERT_TRUE(std::equal(out.begin() + long(dst_off), out.begin() + long(dst_off + n),
                                 bytes.begin() + long(src_off)))
              << "src " << src_off << " dst " << dst_off << " n " << n;
          ASSERT_EQ(out[dst_off + n], 0xEE) << "wrote past the end, n " << n;
          if (dst_off > 0) ASSERT_EQ(out[dst_off - 1], 0xEE) << "wrote before the start";
        }
  const auto big = random_bytes(3 << 20);
  std::vector<unsigned char> out(big.size());
  EXPECT_EQ(ember::serialize::crc32_copy(0, out.data(), big.data(), big.size(), true),
            zlib_crc(0, big.data(), big.size()));
  EXPECT_TRUE(out == big);
}

TEST(SerializeCrc32, DetectsOneFlippedBit) {
  auto bytes = random_bytes(100000);
  const uint32_t before = ember::serialize::crc32(0, bytes.data(), bytes.size());
  bytes[54321] ^= 0x10;
  EXPECT_NE(ember::serialize::crc32(0, bytes.data(), bytes.size()), before);
}

}  // namespace
