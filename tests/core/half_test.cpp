// Half and BFloat16 conversions against PyTorch's, bit for bit: golden/half_bf16.txt (written by
// golden/gen_dtype.py) holds float32 -> float16/bfloat16 for ~7.7k inputs and float16/bfloat16 ->
// float32 for NaN/Inf/zero/subnormal inputs plus a checksum of the full 65536-entry tables.
#include "golden_dir.h"
#include "ember/half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using ember::BFloat16;
using ember::Half;
using ember::detail::bits_float;
using ember::detail::float_bits;

struct Golden {
  struct Narrow {
    uint32_t f32;
    uint16_t f16, bf16;
  };
  struct Widen {
    uint16_t in;
    uint32_t f32;
  };
  std::vector<Narrow> f2h;
  std::vector<Widen> h2f, b2f;
  uint64_t h2f_fnv = 0, b2f_fnv = 0;
};

const Golden& golden() {
  static const Golden g = [] {
    Golden g;
    std::ifstream in(ember::test::golden_path("half_bf16.txt"));
    EXPECT_TRUE(in) << "cannot open " << ember::test::golden_path("half_bf16.txt");
    std::string line, tag;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ss(line);
      ss >> tag >> std::hex;
      uint32_t a = 0, b = 0, c = 0;
      uint64_t sum = 0;
      if (tag == "f2h" && ss >> a >> b >> c) {
        g.f2h.push_back({a, uint16_t(b), uint16_t(c)});
      } else if (tag == "h2f" && ss >> a >> b) {
        g.h2f.push_back({uint16_t(a), b});
      } else if (tag == "b2f" && ss >> a >> b) {
        g.b2f.push_back({uint16_t(a), b});
      } else if (tag == "h2f_fnv1a64" && ss >> sum) {
        g.h2f_fnv = sum;
      } else if (tag == "b2f_fnv1a64" && ss >> sum) {
        g.b2f_fnv = sum;
      } else {
        ADD_FAILURE() << "bad line in half_bf16.txt: " << line;
      }
    }
    return g;
  }();
  return g;
}

bool half_is_nan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu); }
bool bf16_is_nan(uint16_t b) { return (b & 0x7f80u) == 0x7f80u && (b & 0x7fu); }
bool f32_is_nan(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }

// Note [NaN payloads in the golden tests]
// A NaN result only has to be a NaN with the sign PyTorch gives: PyTorch's own payloads depend on
// the code path (the 0-d scalar conversion gives bfloat16 0x7fc0, the vectorised kernel for any
// 1-D tensor gives 0xffff; see gen_dtype.py). The NaNPayloads test below additionally checks that
// ember reproduces the scalar path (c10::Half / c10::BFloat16) exactly, which is what it mirrors.
template <class Bits>
bool same_value(Bits want, Bits got, bool want_nan, bool got_nan, Bits sign_bit) {
  if (want_nan) return got_nan && (want & sign_bit) == (got & sign_bit);
  return want == got;
}

std::string hex(uint32_t v, int width) {
  std::ostringstream os;
  os << std::hex;
  os.width(width);
  os.fill('0');
  os << v;
  return os.str();
}

// FNV-1a 64 over the 4 little-endian bytes of each non-NaN input's float32 result, inputs
// 0x0000..0xffff in order: the checksum gen_dtype.py writes.
template <class Widen>
uint64_t fnv1a64_table(Widen widen, bool (*is_nan)(uint16_t)) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint32_t i = 0; i <= 0xffff; ++i) {
    if (is_nan(uint16_t(i))) continue;
    const uint32_t r = float_bits(widen(uint16_t(i)));
    for (int byte = 0; byte < 4; ++byte) h = (h ^ ((r >> (8 * byte)) & 0xffu)) * 0x100000001b3ull;
  }
  return h;
}

TEST(HalfGolden, FileIsComplete) {
  EXPECT_GT(golden().f2h.size(), 5000u);
  EXPECT_GT(golden().h2f.size(), 4096u);  // every NaN/Inf/zero/subnormal pattern and then some
  EXPECT_GT(golden().b2f.size(), 512u);
  EXPECT_NE(golden().h2f_fnv, 0u);
  EXPECT_NE(golden().b2f_fnv, 0u);
}

TEST(HalfGolden, FloatToHalf) {
  int failures = 0;
  for (const auto& r : golden().f2h) {
    const uint16_t got = Half(bits_float(r.f32)).x;
    if (!same_value<uint16_t>(r.f16, got, half_is_nan(r.f16), half_is_nan(got), 0x8000)) {
      if (++failures <= 20) {
        ADD_FAILURE() << "float " << hex(r.f32, 8) << " -> half: torch " << hex(r.f16, 4)
                      << ", ember " << hex(got, 4);
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

TEST(HalfGolden, FloatToBFloat16) {
  int failures = 0;
  for (const auto& r : golden().f2h) {
    const uint16_t got = BFloat16(bits_float(r.f32)).x;
    if (!same_value<uint16_t>(r.bf16, got, bf16_is_nan(r.bf16), bf16_is_nan(got), 0x8000)) {
      if (++failures <= 20) {
        ADD_FAILURE() << "float " << hex(r.f32, 8) << " -> bfloat16: torch " << hex(r.bf16, 4)
                      << ", ember " << hex(got, 4);
      }
    }
  }
  EXPECT_EQ(failures, 0);
}

TEST(HalfGolden, HalfToFloat) {
  for (const auto& r : golden().h2f) {
    const uint32_t got = float_bits(float(Half::from_bits(r.in)));
    EXPECT_TRUE(same_value<uint32_t>(r.f32, got, f32_is_nan(r.f32), f32_is_nan(got), 0x80000000u))
        << "half " << hex(r.in, 4) << " -> float: torch " << hex(r.f32, 8) << ", ember "
        << hex(got, 8);
  }
  const auto widen = [](uint16_t h) { return float(Half::from_bits(h)); };
  EXPECT_EQ(fnv1a64_table(widen, half_is_nan), golden().h2f_fnv) << "full half -> float table";
}

TEST(HalfGolden, BFloat16ToFloat) {
  for (const auto& r : golden().b2f) {
    const uint32_t got = float_bits(float(BFloat16::from_bits(r.in)));
    EXPECT_TRUE(same_value<uint32_t>(r.f32, got, f32_is_nan(r.f32), f32_is_nan(got), 0x80000000u))
        << "bfloat16 " << hex(r.in, 4) << " -> float: torch " << hex(r.f32, 8) << ", ember "
        << hex(got, 8);
  }
  const auto widen = [](uint16_t b) { return float(BFloat16::from_bits(b)); };
  EXPECT_EQ(fnv1a64_table(widen, bf16_is_nan), golden().b2f_fnv) << "full bfloat16 -> float table";
}

// See Note [NaN payloads in the golden tests]: the exact bits of c10's scalar conversions.
TEST(HalfGolden, NaNPayloads) {
  for (const auto& r : golden().f2h) {
    if (!f32_is_nan(r.f32)) continue;
    EXPECT_EQ(hex(Half(bits_float(r.f32)).x, 4), hex(r.f16, 4)) << "float " << hex(r.f32, 8);
    EXPECT_EQ(hex(BFloat16(bits_float(r.f32)).x, 4), hex(r.bf16, 4)) << "float " << hex(r.f32, 8);
  }
  for (const auto& r : golden().h2f) {
    if (!half_is_nan(r.in)) continue;
    EXPECT_EQ(hex(float_bits(float(Half::from_bits(r.in))), 8), hex(r.f32, 8)) << hex(r.in, 4);
  }
  for (const auto& r : golden().b2f) {
    if (!bf16_is_nan(r.in)) continue;
    EXPECT_EQ(hex(float_bits(float(BFloat16::from_bits(r.in))), 8), hex(r.f32, 8)) << hex(r.in, 4);
  }
}

// Every non-NaN 16-bit value survives the trip to float and back unchanged.
TEST(HalfGolden, RoundTripIsExact) {
  for (uint32_t i = 0; i <= 0xffff; ++i) {
    const uint16_t h = uint16_t(i);
    if (!half_is_nan(h)) {
      EXPECT_EQ(Half(float(Half::from_bits(h))).x, h) << hex(h, 4);
    }
    if (!bf16_is_nan(h)) {
      EXPECT_EQ(BFloat16(float(BFloat16::from_bits(h))).x, h) << hex(h, 4);
    }
  }
}

TEST(Half, ArithmeticGoesThroughFloat) {
  // 2049 is not a half: 2048 + 1 rounds to even (2048); 0.1 + 0.2 in half is 0.2998046875.
  EXPECT_EQ(float(Half(Half(2048.f) + Half(1.f))), 2048.f);
  EXPECT_EQ(float(Half(Half(0.1f) + Half(0.2f))), 0.2998046875f);
  EXPECT_EQ(float(BFloat16(256.f + 1.f)), 256.f);
  EXPECT_TRUE(std::isinf(float(Half(1e5f))));
}

}  // namespace
