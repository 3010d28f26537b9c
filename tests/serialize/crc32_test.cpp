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
  for (const int bits : {128, 256, 512})
    for (size_t offset = 0; offset < 16; offset += 3)
      for (size_t n = 0; n <= 1100; ++n)
        ASSERT_EQ(ember::serialize::crc32_with(0, bytes.data() + offset, n, bits),
                  zlib_crc(0, bytes.data() + offset, n))
            << "offset " << offset << " length " << n << " folding " << bits << " bits";
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
  for (const int bits : {128, 256, 512})
    EXPECT_EQ(ember::serialize::crc32_with(0x12345678u, bytes.data(), bytes.size(), bits),
              zlib_crc(0x12345678u, bytes.data(), bytes.size()))
        << "folding " << bits << " bits";
}

TEST(SerializeCrc32, DetectsOneFlippedBit) {
  auto bytes = random_bytes(100000);
  const uint32_t before = ember::serialize::crc32(0, bytes.data(), bytes.size());
  bytes[54321] ^= 0x10;
  EXPECT_NE(ember::serialize::crc32(0, bytes.data(), bytes.size()), before);
}

}  // namespace
