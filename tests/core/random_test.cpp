// The generator and the random ops against PyTorch 1.13's CPU numbers (tests/golden/random.txt,
// written by tests/golden/gen_random.py), plus seeding, independent generators, state round trips,
// concurrent draws and error messages. Every golden comparison is bit-exact: ember repeats
// PyTorch's operations (see Note [Matching PyTorch's random streams] in src/ops/random.cpp), and
// the libm calls (log/sin/cos in the double and half paths) come from the same glibc here.
#include "golden_dir.h"
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace ember;

struct Record {
  std::string dtype, shape;
  std::vector<std::string> values;
};

std::map<std::string, Record> load_golden() {
  std::ifstream in(ember::test::golden_path("random.txt"));
  EXPECT_TRUE(in.good()) << "missing random.txt; run tests/golden/gen_random.py";
  std::map<std::string, Record> records;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ss(line);
    std::string name;
    Record r;
    ss >> name >> r.dtype >> r.shape;
    for (std::string v; ss >> v;) r.values.push_back(v);
    records[name] = std::move(r);
  }
  return records;
}

const Record& golden(const std::string& name) {
  static const std::map<std::string, Record> records = load_golden();
  auto it = records.find(name);
  if (it == records.end()) throw std::runtime_error("no golden record " + name);
  return it->second;
}

template <class U>
std::string hex(U bits) {
  std::ostringstream os;
  os << std::hex;
  os.width(2 * sizeof(U));
  os.fill('0');
  os << uint64_t(bits);
  return os.str();
}

// Values as gen_random.py writes them: float bit patterns in hex, integers in decimal.
std::vector<std::string> tokens(const Tensor& t) {
  const Tensor c = t.contiguous();
  std::vector<std::string> out;
  for (int64_t i = 0; i < c.numel(); ++i) {
    switch (c.dtype()) {
      case kFloat32:
        out.push_back(hex(std::bit_cast<uint32_t>(c.data_ptr<float>()[i])));
        break;
      case kFloat64:
        out.push_back(hex(std::bit_cast<uint64_t>(c.data_ptr<double>()[i])));
        break;
      case kFloat16:
        out.push_back(hex(c.data_ptr<Half>()[i].x));
        break;
      case kBFloat16:
        out.push_back(hex(c.data_ptr<BFloat16>()[i].x));
        break;
      default:
        out.push_back(std::to_string(c.to(kInt64).data_ptr<int64_t>()[i]));
    }
  }
  return out;
}

std::string shape_string(const Tensor& t) {
  std::ostringstream os;
  for (int64_t d = 0; d < t.dim(); ++d) os << (d ? "," : "") << t.size(d);
  return t.dim() ? os.str() : "-";
}

void expect_golden(const std::string& name, const Tensor& t) {
  const Record& r = golden(name);
  EXPECT_EQ(dtype_name(t.dtype()), r.dtype) << name;
  EXPECT_EQ(shape_string(t), r.shape) << name;
  const std::vector<std::string> got = tokens(t);
  ASSERT_EQ(got.size(), r.values.size()) << name;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], r.values[i]) << name << " differs at element " << i;
}

// sum_i (i + 1) * value_i mod 2^64, over bit patterns (floats) or values (integers).
void expect_checksum(const std::string& name, const Tensor& t) {
  const Tensor c = t.contiguous();
  uint64_t sum = 0;
  for (int64_t i = 0; i < c.numel(); ++i) {
    uint64_t v = 0;
    if (c.dtype() == kFloat32)
      v = std::bit_cast<uint32_t>(c.data_ptr<float>()[i]);
    else if (c.dtype() == kFloat64)
      v = std::bit_cast<uint64_t>(c.data_ptr<double>()[i]);
    else
      v = uint64_t(c.data_ptr<int64_t>()[i]);
    sum += uint64_t(i + 1) * v;
  }
  const Record& r = golden(name);
  EXPECT_EQ(r.shape, std::to_string(c.numel())) << name;
  EXPECT_EQ(std::to_string(sum), r.values.at(0)) << name;
}

std::vector<uint8_t> golden_bytes(const std::string& name) {
  const std::string& h = golden(name).values.at(0);
  std::vector<uint8_t> bytes(h.size() / 2);
  for (size_t i = 0; i < bytes.size(); ++i)
    bytes[i] = uint8_t(std::stoi(h.substr(2 * i, 2), 0, 16));
  return bytes;
}

Tensor seeded_empty(IntArrayRef sizes, Dtype dtype = kFloat32) {
  manual_seed(0);
  return empty(sizes, {.dtype = dtype});
}

template <class F>
void expect_error(F&& f, const std::string& substring) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one containing: " << substring;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(substring), std::string::npos) << e.what();
  }
}

// ── the engine ─────────────────────────────────────────────────────────────

TEST(Generator, MatchesStdMt19937) {
  // PyTorch's mt19937 is the standard one seeded with the low 32 bits; 2000 draws cross a twist.
  for (uint64_t seed : {0ull, 5489ull, 42ull, 67280421310721ull}) {
    Generator g(seed);
    std::mt19937 ref(uint32_t(seed & 0xffffffffu));
    for (int i = 0; i < 2000; ++i) ASSERT_EQ(g.random(), ref()) << "seed " << seed << " draw " << i;
    EXPECT_EQ(g.initial_seed(), seed);
  }
}

TEST(Generator, Random64IsHighThenLow) {
  Generator a(7), b(7);
  for (int i = 0; i < 10; ++i) {
    const uint64_t hi = b.random(), lo = b.random();
    EXPECT_EQ(a.random64(), (hi << 32) | lo);
  }
}

TEST(Generator, CopyAndReseed) {
  Generator a(3);
  a.random();
  Generator b = a;  // copies the stream position
  EXPECT_EQ(a.random64(), b.random64());
  a.manual_seed(9);
  Generator c(9);
  EXPECT_EQ(a.random(), c.random());
}

// ── golden data: uniform ───────────────────────────────────────────────────

TEST(RandomGolden, Uniform) {
  manual_seed(0);
  expect_golden("rand_3x4", rand({3, 4}));
  manual_seed(0);
  expect_golden("rand_20_f64", rand({20}, {.dtype = kFloat64}));
  manual_seed(0);
  expect_golden("rand_20_f16", rand({20}, {.dtype = kFloat16}));
  manual_seed(0);
  expect_golden("rand_20_bf16", rand({20}, {.dtype = kBFloat16}));
  Tensor t = seeded_empty({20});
  expect_golden("uniform_m1_1_20", uniform_(t, -1, 1));
  // Odd bounds: x * (to - from) + from is one FMA in PyTorch's AVX2 build (float and double
  // results differ without it; half types round it away).
  const std::pair<Dtype, const char*> cases[] = {
      {kFloat32, "f32"}, {kFloat64, "f64"}, {kFloat16, "f16"}, {kBFloat16, "bf16"}};
  for (auto [dtype, tag] : cases) {
    Tensor u = seeded_empty({64}, dtype);
    expect_golden(std::string("uniform_odd_64_") + tag, uniform_(u, -0.0123, 0.0456));
  }
}

// ── golden data: normal ────────────────────────────────────────────────────

TEST(RandomGolden, NormalScalarAndVectorisedPaths) {
  const std::pair<const char*, std::vector<int64_t>> float_cases[] = {{"randn_3x4", {3, 4}},
                                                                      {"randn_100", {100}},
                                                                      {"randn_17", {17}},
                                                                      {"randn_16", {16}},
                                                                      {"randn_15", {15}}};
  for (const auto& [name, sizes] : float_cases) {
    manual_seed(0);
    expect_golden(name, randn(sizes));
  }
  manual_seed(0);
  expect_golden("randn_5x5_f64", randn({5, 5}, {.dtype = kFloat64}));
  manual_seed(0);
  expect_golden("randn_7_f64", randn({7}, {.dtype = kFloat64}));
  manual_seed(0);
  expect_golden("randn_40_f16", randn({40}, {.dtype = kFloat16}));
  manual_seed(0);
  expect_golden("randn_40_bf16", randn({40}, {.dtype = kBFloat16}));
  manual_seed(0);
  expect_golden("randn_5_f16", randn({5}, {.dtype = kFloat16}));
}

TEST(RandomGolden, NormalMeanStd) {
  Tensor a = seeded_empty({10});
  expect_golden("normal_2_3_10", normal_(a, 2, 3));
  Tensor a64 = seeded_empty({10}, kFloat64);  // scalar path: r * cos(theta) * std + mean is an FMA
  expect_golden("normal_2_3_10_f64", normal_(a64, 2, 3));
  Tensor b = seeded_empty({40});
  expect_golden("normal_2_3_40", normal_(b, 2, 3));
  Tensor c = seeded_empty({40}, kFloat64);
  expect_golden("normal_2_3_40_f64", normal_(c, 2, 3));
  Tensor d = seeded_empty({40}, kFloat16);
  expect_golden("normal_2_3_40_f16", normal_(d, 2, 3));
  Tensor e = seeded_empty({40}, kBFloat16);
  expect_golden("normal_2_3_40_bf16", normal_(e, 2, 3));
}

TEST(RandomGolden, NonContiguousInMemoryOrder) {
  Tensor x = seeded_empty({4, 6}).t();
  normal_(x);
  expect_golden("normal_transposed_6x4", x);
  manual_seed(0);
  Tensor y = zeros({4, 6});
  Tensor view = y.slice(1, 0, std::nullopt, 2);
  uniform_(view);
  expect_golden("uniform_strided_4x6", y);
}

TEST(RandomGolden, LargeChecksums) {
  manual_seed(0);
  expect_checksum("randn_1m", randn({1 << 20}));
  manual_seed(0);
  expect_checksum("randn_100001_f64", randn({100001}, {.dtype = kFloat64}));
  Tensor t = seeded_empty({65537});
  expect_checksum("normal_m1_0p5_65537", normal_(t, -1, 0.5));
}

// ── golden data: integers and bernoulli ────────────────────────────────────

TEST(RandomGolden, Randint) {
  manual_seed(0);
  expect_golden("randint_0_10_3x4", randint(0, 10, {3, 4}));
  manual_seed(0);  // range >= 2^32 draws 64 bits per element
  expect_golden("randint_huge_6", randint(-(int64_t(1) << 40), int64_t(1) << 40, {6}));
  manual_seed(0);
  expect_golden("randint_2p32_4", randint(0, int64_t(1) << 32, {4}));
  manual_seed(0);
  expect_golden("randint_5_8_i32", randint(5, {8}, {.dtype = kInt32}));
  manual_seed(0);
  expect_golden("randint_m100_100_8_i8", randint(-100, 100, {8}, {.dtype = kInt8}));
  manual_seed(0);
  expect_golden("randint_0_1000_6_f32", randint(0, 1000, {6}, {.dtype = kFloat32}));
  manual_seed(0);
  expect_golden("randint_huge_4_f64",
                randint(-(int64_t(1) << 40), int64_t(1) << 40, {4}, {.dtype = kFloat64}));
  manual_seed(0);
  expect_golden("randint_0_2_8_bool", randint(0, 2, {8}, {.dtype = kBool}));
}

TEST(RandomGolden, Randperm) {
  manual_seed(0);
  expect_golden("randperm_10", randperm(10));
  manual_seed(0);
  expect_golden("randperm_20_f32", randperm(20, {.dtype = kFloat32}));
  manual_seed(0);
  Tensor p = randperm(100000);
  expect_golden("randperm_100000_head", p.slice(0, 0, 32));
  expect_checksum("randperm_100000", p);
}

TEST(RandomGolden, Bernoulli) {
  Tensor t = seeded_empty({20});
  expect_golden("bernoulli_0p3_20", bernoulli_(t, 0.3));
  Tensor b = seeded_empty({12}, kBool);
  expect_golden("bernoulli_0p5_12_bool", bernoulli_(b, 0.5));
}

// ── golden data: generators, streams, state ────────────────────────────────

TEST(RandomGolden, SeparateGeneratorStream) {
  manual_seed(0);
  Generator g(42);
  expect_golden("gen42_rand_5", rand({5}, {.generator = &g}));
  expect_golden("gen42_randn_5", randn({5}, {.generator = &g}));
  expect_golden("gen42_randn_20", randn({20}, {.generator = &g}));
  Generator fresh;  // PyTorch's default seed
  expect_golden("default_gen_rand_3", rand({3}, {.generator = &fresh}));
  // Drawing from g left the default generator where manual_seed(0) put it.
  expect_golden("rand_3x4", rand({3, 4}));
}

TEST(RandomGolden, InterleavedCallsContinueOneStream) {
  manual_seed(0);
  expect_golden("interleaved_rand_3", rand({3}));
  expect_golden("interleaved_randn_3", randn({3}));  // caches its 4th normal
  expect_golden("interleaved_rand_3b", rand({3}));
  expect_golden("interleaved_randn_3b", randn({3}));  // starts from the cached one
  expect_golden("interleaved_randint_4", randint(0, 100, {4}));
}

TEST(RandomGolden, StateMatchesTorchLayoutAndReplays) {
  manual_seed(0);
  EXPECT_EQ(default_generator().get_state(), golden_bytes("state_seed0"));
  manual_seed(0);
  rand({7});
  randn({5});
  const std::vector<uint8_t> state = default_generator().get_state();
  EXPECT_EQ(state, golden_bytes("state_after_rand7_randn5"));  // includes the cached normal
  expect_golden("after_state_randn_3", randn({3}));
  expect_golden("after_state_rand_4", rand({4}));
  // Replay from the state PyTorch saved.
  manual_seed(99);
  default_generator().set_state(golden_bytes("state_after_rand7_randn5"));
  expect_golden("after_state_randn_3", randn({3}));
  expect_golden("after_state_rand_4", rand({4}));
  Generator g(1234);
  rand({700}, {.generator = &g});
  EXPECT_EQ(g.get_state(), golden_bytes("state_seed1234_drawn700"));
  Generator h(5);
  h.set_state(g.get_state());
  EXPECT_EQ(h.random64(), g.random64());
}

// ── behaviour ──────────────────────────────────────────────────────────────

TEST(Random, SameSeedReproduces) {
  manual_seed(3);
  Tensor a = randn({50}), b = rand({7}, {.dtype = kFloat64});
  manual_seed(3);
  EXPECT_TRUE(a.equal(randn({50})));
  EXPECT_TRUE(b.equal(rand({7}, {.dtype = kFloat64})));
  EXPECT_EQ(default_generator().initial_seed(), 3u);
}

TEST(Random, LikeAndOptions) {
  Tensor d = zeros({2, 3}, {.dtype = kFloat64});
  manual_seed(0);
  Tensor a = rand_like(d);
  manual_seed(0);
  EXPECT_TRUE(a.equal(rand({2, 3}, {.dtype = kFloat64})));
  EXPECT_EQ(randn_like(d).dtype(), kFloat64);
  EXPECT_EQ(randint_like(zeros({4}, {.dtype = kInt32}), 0, 5).dtype(), kInt32);
  EXPECT_TRUE(randn({2}, {.requires_grad = true}).requires_grad());
  EXPECT_EQ(rand({0, 3}).numel(), 0);
  for (int64_t v : randint(3, 7, {100}).tolist<int64_t>()) EXPECT_TRUE(v >= 3 && v < 7);
}

TEST(Random, DefaultGeneratorIsThreadSafe) {
  // Concurrent draws must neither be lost nor duplicated: afterwards the stream sits exactly
  // kThreads * kDraws words further on.
  constexpr int kThreads = 4, kDraws = 20000;
  manual_seed(11);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([] {
      for (int j = 0; j < kDraws / 100; ++j) rand({100});
    });
  for (auto& t : threads) t.join();
  Generator ref(11);
  for (int i = 0; i < kThreads * kDraws; ++i) ref.random();
  EXPECT_EQ(default_generator().random(), ref.random());
}

TEST(Random, Errors) {
  expect_error([] { randint(5, 5, {3}); },
               "random_ expects 'from' to be less than 'to', but got from=5 >= to=5");
  expect_error([] { rand({2}, {.dtype = kInt64}); }, "[rand] expected a floating-point dtype");
  expect_error([] { randn({2}, {.dtype = kInt32}); }, "[randn] expected a floating-point dtype");
  expect_error(
      [] {
        Tensor t = zeros({2}, {.dtype = kInt64});
        uniform_(t);
      },
      "[uniform_]");
  expect_error(
      [] {
        Tensor t = zeros({3});
        bernoulli_(t, 1.5);
      },
      "expects p to be in [0, 1], but got p=1.5");
  expect_error(
      [] {
        Tensor t = zeros({3});
        normal_(t, 0, -1);
      },
      "normal expects std >= 0.0");
  expect_error(
      [] {
        randn({2, -1});
      },
      "[randn] trying to create tensor with negative dimension -1");
  expect_error([] { randperm(-1); }, "[randperm] n must be non-negative");
  expect_error([] { randperm(3000, {.dtype = kFloat16}); }, "n cannot be greater than 2049");
  expect_error([] { randint(-5, 5, {2}, {.dtype = kUInt8}); }, "from is out of bounds");
  expect_error(
      [] {
        Tensor t = zeros({3});
        uniform_(t, 1, 0);
      },
      "[uniform_]");
  expect_error([] { default_generator().set_state(std::vector<uint8_t>(10)); },
               "[set_state] expected a generator state of 5056 bytes");
}

}  // namespace
