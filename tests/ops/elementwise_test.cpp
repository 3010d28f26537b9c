// Every elementwise op in ember/math.h against PyTorch 1.13: golden/elementwise.json (written by
// golden/gen_elementwise.py) holds each op's inputs (contiguous, transposed, sliced, expanded,
// broadcast, 0-d, empty, scalars, mixed dtypes, in place) and PyTorch's result or error. The op
// table (ops/op_table.h: each row's `golden` and `tol`) maps each golden op name to one ember
// call; adding an op is one row there and its cases in the generator. Also: the parallel loop
// gives the same bits with 1 and 2 threads.
#include "golden_dir.h"
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "backend/cpu/dispatch.h"
#include "ops/op_table.h"
#include "test_support.h"

using namespace ember;
using json = nlohmann::json;

namespace {

using test::dtype_named;
using test::find_op;
using test::op_table;
using test::Tol;
using Case = test::GoldenCase;

const json& golden() {
  static const json j = test::golden_table("elementwise.json");
  return j;
}

// Ops in the order the golden file first names them (the test parameters).
std::vector<std::string> golden_ops() { return test::golden_ops(golden()); }

// A test name for an op: "add.scalar" -> "add_scalar", "add_" -> "add_inplace",
// "a+=b" -> "a_plus_eq_b".
std::string test_name(const std::string& op) {
  static const std::map<char, const char*> words = {
      {'+', "plus"}, {'-', "minus"}, {'*', "times"}, {'/', "over"}, {'%', "mod"},
      {'=', "eq"},   {'!', "not"},   {'<', "lt"},    {'>', "gt"},   {'&', "and"},
      {'|', "or"},   {'^', "xor"},   {'~', "tilde"}, {'.', ""}};
  std::string out;
  for (size_t i = 0; i < op.size(); ++i) {
    const char ch = op[i];
    if (ch == '_' && (i + 1 == op.size() || op[i + 1] == '.')) {  // add_ -> add_inplace
      out += "_inplace";
      continue;
    }
    const auto w = words.find(ch);
    if (w == words.end()) {
      out += ch;
    } else {
      if (!out.empty() && out.back() != '_') out += '_';
      if (*w->second) out += std::string(w->second) + "_";
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out.empty() ? "op" : out;
}

// Compares a result with the golden "out"; returns what differs, empty when nothing does.
// `input`: the op's first input where tol.x_ulps is set (a unary op: one element per output).
std::string compare(const Tensor& got, const json& out, Tol tol, const Tensor* input = nullptr) {
  std::ostringstream err;
  const Dtype dtype = dtype_named(out["dtype"]);
  if (got.dtype() != dtype) err << "dtype " << got.dtype() << ", PyTorch " << dtype << "; ";
  const std::vector<int64_t> shape = out["shape"], strides = out["strides"];
  if (got.sizes().vec() != shape) {
    err << "shape " << got.sizes() << ", PyTorch " << IntArrayRef(shape) << "; ";
    return err.str();
  }
  // Output layout (PyTorch keeps a permuted input's layout); strides of size-1 dims are free.
  if (got.numel() > 1)
    for (size_t d = 0; d < shape.size(); ++d)
      if (shape[d] > 1 && got.strides()[d] != strides[d]) {
        err << "strides " << got.strides() << ", PyTorch " << IntArrayRef(strides) << "; ";
        break;
      }
  const Tensor want = test::golden_tensor(out);
  if (!is_floating_point(dtype) || !got.is_floating_point())
    return err.str() + test::mismatches(got.tolist<int64_t>(), want.tolist<int64_t>(), 1);
  const std::vector<double> v = got.tolist<double>(), want_v = want.tolist<double>();
  // Elements within x_ulps ulp of their input are judged as PyTorch's own value (an unequal pair
  // only, so the sign of a zero is still checked).
  std::vector<double> judged = v;
  if (input) {
    const std::vector<double> x = input->tolist<double>();
    for (size_t i = 0; i < judged.size() && i < x.size() && i < want_v.size(); ++i)
      if (v[i] != want_v[i] &&
          std::abs(v[i] - want_v[i]) <= tol.x_ulps * test::ulp(x[i], input->dtype()))
        judged[i] = want_v[i];
  }
  const bool half = dtype == kFloat16 || dtype == kBFloat16;
  const double allowed = tol.ulps == 0 ? 0 : std::max(tol.ulps, half ? 1.0 : 0.0);
  const double tiny = std::ldexp(1.0, dtype == kFloat64 ? -1022 : dtype == kFloat16 ? -14 : -126);
  const std::string bad = test::mismatches(
      judged, want_v,
      [&](double a, double e) {
        const bool close = std::abs(a - e) <= allowed * test::ulp(e, dtype) ||
                           std::abs(a - e) <= tol.abs_ulps * test::ulp(1, dtype) ||
                           (allowed > 0 && std::abs(a) < tiny && std::abs(e) < tiny);
        return close && (a != 0 || e != 0 || !tol.zero_sign || std::signbit(a) == std::signbit(e));
      },
      3);
  if (!bad.empty()) err << bad << ": got " << test::show_values(v) << "; ";
  return err.str();
}

std::string describe(const json& c) {
  std::ostringstream os;
  os << c["op"].get<std::string>() << " / " << c["name"].get<std::string>();
  if (!c["args"].empty()) os << " " << c["args"].dump();
  return os.str();
}

class Golden : public testing::TestWithParam<std::string> {};

TEST_P(Golden, MatchesPyTorch) {
  const std::string& op = GetParam();
  const test::OpInfo* row = find_op(op);
  ASSERT_TRUE(row && row->golden) << "no op table row with a golden call for golden op " << op;
  int n = 0;
  for (const json& c : golden()["cases"]) {
    if (c["op"] != op) continue;
    ++n;
    SCOPED_TRACE(describe(c));
    Case inputs(c);
    if (c.contains("error")) {  // PyTorch rejects it: the same error, as an ember::Error
      const std::string want = c["error"];
      const std::string got = test::message_of([&] { row->golden(inputs); });
      EXPECT_NE(got.find(want), std::string::npos) << describe(c) << ": message \"" << got
                                                    << "\" lacks \"" << want
                                                    << "\"; PyTorch raises: " << c["torch_error"];
      continue;
    }
    Tensor got;
    try {
      got = row->golden(inputs);
    } catch (const std::exception& e) {
      ADD_FAILURE() << describe(c) << ": threw " << e.what();
      continue;
    }
    if (c.value("inplace", false)) {
      const Tensor& self = inputs.t(0);
      EXPECT_TRUE(got.data_ptr() == self.data_ptr() && got.strides() == self.strides())
          << describe(c) << ": result is not the input written in place";
    }
    Tol tol = row->tol;
    Tensor x;  // for x_ulps: the first input, one element per result
    if (tol.fused && !cpu::cpu_level().needs.fma) {
      // The product rounded on its own: half an ulp of it, an ulp of x where the two cancel.
      tol.ulps = 1;
      tol.x_ulps = 1;
      // (x as it was: an in-place op has overwritten the case's own)
      x = broadcast_to(Case(c).t(0), got.sizes()).to(got.dtype());
    } else if (tol.x_ulps > 0) {
      x = inputs.t(0);
    }
    const std::string diff = compare(got, c["out"], tol, x.defined() ? &x : nullptr);
    EXPECT_TRUE(diff.empty()) << describe(c) << ": " << diff;
  }
  EXPECT_GT(n, 0);
}

INSTANTIATE_TEST_SUITE_P(Ops, Golden, testing::ValuesIn(golden_ops()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return test_name(info.param);
                         });

TEST(GoldenFile, LoadedAndEveryRowHasCases) {
  ASSERT_GT(golden()["cases"].size(), 1000u) << "missing " << ember::test::golden_path("elementwise.json");
  const std::vector<std::string> ops = golden_ops();
  const std::set<std::string> named(ops.begin(), ops.end());
  std::set<std::string> names;
  for (const test::OpInfo& row : op_table()) {
    if (!row.golden) continue;  // another family's golden file
    const std::string& op = row.name;
    EXPECT_TRUE(named.count(op)) << "table row " << op << " has no golden cases";
    EXPECT_TRUE(names.insert(test_name(op)).second)
        << "two ops give the test name " << test_name(op);
  }
}

// ── threads ─────────────────────────────────────────────────────────────
using test::ThreadGuard;

// Empty when a and b hold the same bits, else the first element that differs.
std::string bit_diff(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.sizes() != b.sizes()) return "dtype or shape differs";
  const Tensor x = a.contiguous(), y = b.contiguous();
  const auto* p = static_cast<const char*>(x.data_ptr());
  const auto* q = static_cast<const char*>(y.data_ptr());
  const int64_t size = x.element_size();
  for (int64_t i = 0; i < x.numel(); ++i)
    if (std::memcmp(p + i * size, q + i * size, size_t(size)) != 0)
      return "element " + std::to_string(i) + ": " + repr(x.flatten().select(0, i)) + " vs " +
             repr(y.flatten().select(0, i));
  return "";
}

TEST(Threads, OneAndTwoThreadsGiveTheSameBits) {
  ThreadGuard guard;
  constexpr int64_t n = (int64_t(1) << 20) + 3;  // above the grain, not a multiple of any width
  std::mt19937 gen(7);
  const auto uniform = [&](std::vector<int64_t> shape, double lo, double hi) {
    std::uniform_real_distribution<double> u(lo, hi);
    int64_t count = 1;
    for (int64_t s : shape) count *= s;
    std::vector<double> v(size_t(count), 0.0);
    for (double& x : v) x = u(gen);
    return from_vector(v, shape).to(kFloat32);
  };
  const Tensor a = uniform({n}, -3, 3), b = uniform({n}, 0, 1);
  const Tensor mt = uniform({1025, 1024}, -3, 3).t();  // (1024, 1025), transposed
  const Tensor ms = uniform({1024, 2050}, 0.5, 2).slice(1, 0, std::nullopt, 2);  // (1024, 1025)
  const Tensor m = uniform({1024, 1025}, -3, 3);
  const Tensor mask = gt(b, full({}, 0.5));
  const Tensor ai = floor(a * 20).to(kInt64), bi = ceil(b * 8).clamp_min(1).to(kInt64);
  std::vector<std::pair<std::string, std::function<Tensor()>>> ops = {
      {"add", [&] { return add(a, b, 0.5); }},
      {"mul_bcast_row", [&] { return mul(m, b.slice(0, 0, 1025)); }},
      {"div_transposed", [&] { return div(mt, ms); }},
      {"tanh_strided", [&] { return tanh(ms); }},
      {"gelu", [&] { return gelu(mt); }},
      {"pow", [&] { return pow(b, a); }},
      {"pow_scalar", [&] { return pow(a, 2.5); }},
      {"where", [&] { return where(mask, a, b); }},
      {"gt", [&] { return gt(a, b); }},
      {"clamp", [&] { return clamp(a, -0.5, 0.5); }},
      {"remainder_int", [&] { return remainder(ai, bi); }},
      {"floor_divide_int", [&] { return floor_divide(ai, bi); }},
      {"half", [&] { return add(a.to(kFloat16), b.to(kBFloat16)); }},
      {"add_",
       [&] {
         Tensor x = a.clone();
         return x.add_(b, 3);
       }},
      {"add_transposed_",
       [&] {
         Tensor x = mt.clone();
         return x.mul_(ms);
       }},
  };
  // The math rows: each op table row's CPU-level call on `a` (exp, log, tanh, sigmoid, gelu, erf).
  for (const test::OpInfo& row : op_table())
    if (row.level) ops.emplace_back(row.name, [&a, &row] { return row.level(a); });
  for (const auto& [name, fn] : ops) {
    set_num_threads(1);
    const Tensor one = fn();
    set_num_threads(2);
    const Tensor two = fn();
    EXPECT_EQ(bit_diff(one, two), "") << name;
  }
}

// float16 and bfloat16 are computed in float (float16 in blocks: Note [float16 in float blocks]
// in backend/cpu/elementwise.h): every result is the float op on the widened values, rounded
// once, whatever the layout — contiguous over several blocks and a tail, broadcast, transposed,
// sliced, in place on a transposed output, three inputs, and a bool result.
TEST(HalfTypes, ComputeAsTheirFloatValuesRoundedOnce) {
  manual_seed(3);
  constexpr int64_t n = 3 * 512 + 7;
  for (const Dtype h : {kFloat16, kBFloat16}) {
    const Tensor x = randn({n}).to(h), y = rand({n}).add(0.5).to(h), z = randn({n}).to(h);
    const Tensor m = randn({40, 70}).to(h), k = randn({70, 40}).to(h);
    const Tensor s = full({}, 1.5).to(h);
    const auto f = [](const Tensor& t) { return t.to(kFloat32); };
    const std::vector<std::tuple<const char*, Tensor, Tensor>> cases = {
        {"add", add(x, y, 0.5), add(f(x), f(y), 0.5).to(h)},
        {"mul_broadcast", mul(x, s), mul(f(x), f(s)).to(h)},
        {"div_transposed", div(m, k.t()), div(f(m), f(k).t().contiguous()).to(h)},
        {"sub_sliced", sub(x.slice(0, 0, n - 1, 3), y.slice(0, 1, n, 3)),
         sub(f(x).slice(0, 0, n - 1, 3).contiguous(), f(y).slice(0, 1, n, 3).contiguous()).to(h)},
        {"addcmul", addcmul(x, y, z, 0.25), addcmul(f(x), f(y), f(z), 0.25).to(h)},
        {"exp", exp(x), exp(f(x)).to(h)},
        {"gt", gt(x, z), gt(f(x), f(z))},
        {"gt_transposed", gt(m, k.t()), gt(f(m), f(k).t().contiguous())},
        {"mul_in_place_transposed",
         [&] {
           Tensor out = k.clone();
           out.t().mul_(m);
           return out;
         }(),
         [&] {
           Tensor out = f(k).clone();
           out.t().mul_(f(m).contiguous());
           return out.to(h);
         }()},
    };
    for (const auto& [name, got, want] : cases) {
      EXPECT_EQ(got.dtype(), want.dtype()) << name << " " << h;
      EXPECT_EQ(bit_diff(got, want), "") << name << " " << h;
    }
  }
}

// bfloat16 runs that are contiguous or broadcast convert in registers (Note [bfloat16 in
// registers] in backend/cpu/elementwise.h): every result must be the float op rounded once by
// BFloat16's own conversion — ties to even both ways, sums that round up into Inf, NaN made
// 0x7FC0 (also from an input NaN with payload), -0 — at lengths around the vector width and from
// a misaligned start, with a broadcast operand, and through the math path (exp, gelu).
TEST(HalfTypes, BFloat16RoundsOnceInRegisters) {
  // Pairs of bfloat16 bit patterns whose float sum is a special case.
  const std::vector<std::pair<uint16_t, uint16_t>> specials = {
      {0x3f80, 0x3b80},  // 1 + 2^-8: a tie, to even: down to 1
      {0x3f81, 0x3b80},  // (1 + 2^-7) + 2^-8: a tie, to even: up
      {0x7f7f, 0x7f7f},  // the largest finite, doubled: +Inf
      {0x7fc0, 0x3f80},  // NaN + 1
      {0x7f81, 0x0000},  // a signalling NaN with a payload
      {0x8000, 0x8000},  // -0 + -0
      {0x8001, 0x0001},  // subnormals cancelling
      {0x4040, 0xbfc0},  // 3 - 1.5
  };
  std::vector<BFloat16> a, b;
  for (int r = 0; r < 9; ++r)
    for (const auto& [x, y] : specials) {
      a.push_back(BFloat16::from_bits(x));
      b.push_back(BFloat16::from_bits(y));
    }
  const Tensor ta = from_vector(a), tb = from_vector(b);
  for (const int64_t start : {0, 1, 3})
    for (const int64_t len : {1, 7, 8, 9, 15, 16, 17, 33, 64}) {
      const Tensor x = ta.slice(0, start, start + len), y = tb.slice(0, start, start + len);
      const Tensor s = x.select(0, 0);  // a broadcast scalar operand
      std::vector<BFloat16> want_add, want_mul_s, want_exp, want_gelu;
      for (int64_t i = 0; i < len; ++i) {
        const float u = float(a[size_t(start + i)]), v = float(b[size_t(start + i)]);
        want_add.push_back(BFloat16(u + v));
        want_mul_s.push_back(BFloat16(u * float(a[size_t(start)])));
        want_exp.push_back(BFloat16(exp(full({}, u)).item<float>()));
        want_gelu.push_back(BFloat16(gelu(full({}, u)).item<float>()));
      }
      const std::string at = " start " + std::to_string(start) + " len " + std::to_string(len);
      EXPECT_EQ(bit_diff(add(x, y), from_vector(want_add)), "") << "add" << at;
      EXPECT_EQ(bit_diff(mul(x, s), from_vector(want_mul_s)), "") << "mul" << at;
      EXPECT_EQ(bit_diff(exp(x), from_vector(want_exp)), "") << "exp" << at;
      EXPECT_EQ(bit_diff(gelu(x), from_vector(want_gelu)), "") << "gelu" << at;
    }
  // The specials themselves, bit for bit.
  const Tensor sum = add(ta, tb);
  const auto* bits = static_cast<const uint16_t*>(sum.data_ptr());
  EXPECT_EQ(bits[0], 0x3f80);  // tie to even: down
  EXPECT_EQ(bits[1], 0x3f82);  // tie to even: up
  EXPECT_EQ(bits[2], 0x7f80);  // +Inf
  EXPECT_EQ(bits[3], 0x7fc0);  // NaN
  EXPECT_EQ(bits[4], 0x7fc0);  // NaN, payload dropped
  EXPECT_EQ(bits[5], 0x8000);  // -0 + -0
}

// An error raised inside a parallel kernel reaches the caller as an ember::Error.
TEST(Threads, ErrorInsideAParallelKernel) {
  ThreadGuard guard;
  set_num_threads(2);
  const Tensor a = arange(int64_t(1) << 20), b = a.remainder(1000);  // zeros every 1000
  for (const auto& fn : std::vector<std::function<Tensor()>>{
           [&] { return remainder(a, b); }, [&] { return floor_divide(a, b); },
           [&] { return div(a, b, {"trunc"}); }, [&] { return fmod(a, b); }}) {
    try {
      fn();
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("ZeroDivisionError"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
