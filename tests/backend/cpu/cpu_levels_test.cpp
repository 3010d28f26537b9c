// The CPU levels (Note [CPU levels] in src/backend/cpu/dispatch.h): every dispatched family run
// at each level this machine supports gives the baseline level's results, and the choice of
// level follows the CPU and EMBER_CPU_CAPABILITY, refusing what it cannot honour.
//
// Tolerances: plain arithmetic (one +, -, *, / per op), comparisons, selections and conversions
// are exact at every level: those rows must match bit for bit. (g++ contracts a * b + c into an
// FMA inside one expression wherever the level has FMA — its ISO-mode -ffp-contract=off default
// is for C only — so the exact rows hold no multiply-add within one kernel.) Rows that differ
// legitimately use `tol` as rtol and atol: SLEEF's vector math (exp, tanh, erf, ... at 4, 8 or 16
// lanes, some with FMA; 1 ulp each way, so 1e-6) and sums whose order follows the vector width
// (softmax, norms, batch norm, avg pooling, the convolution's own loops: 1e-5 on O(1) results).
// Plain sums and products are the same bits at every level (Note [Sums independent of the CPU
// level] in backend/cpu/reduce.h).
#include <ember/creation.h>
#include <ember/generator.h>
#include <ember/math.h>
#include <ember/nn/functional/conv.h>
#include <ember/nn/functional/layers.h>
#include <ember/optim/adam.h>
#include <ember/reduce.h>
#include <ember/shape.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/cpu/dispatch.h"
#include "ops/op_table.h"
#include "test_support.h"

namespace ember {
namespace {

namespace F = nn::functional;
using cpu::CpuLevel;

const CpuLevel* compiled_level(std::string_view name) {
  for (const CpuLevel* l : cpu::compiled_cpu_levels())
    if (name == l->name) return l;
  return nullptr;
}

// f() with `level`'s kernels as the CPU backend (then the chosen level's again).
std::vector<Tensor> run_at(const CpuLevel& level, const std::function<std::vector<Tensor>()>& f) {
  cpu::set_cpu_kernels(&cpu::kernels_for(level));
  struct Restore {
    ~Restore() { cpu::set_cpu_kernels(nullptr); }
  } restore;
  manual_seed(7);  // the same inputs at every level
  return f();
}

struct Row {
  const char* name;
  double tol;  // 0: bit for bit
  std::function<std::vector<Tensor>()> run;
};

Tensor input(std::vector<int64_t> shape) { return randn(shape); }

// The math rows: each op table row's `level` call in the dtypes its `level_dtypes` name
// (ops/op_table.h: exp, log, tanh, sigmoid, gelu, erf).
std::vector<Tensor> half_transcendental(Dtype h) {
  Tensor a = input({100003}).to(h);
  std::vector<Tensor> out;
  for (const Tensor& r : test::level_results(a)) out.push_back(r.to(kFloat32));
  return out;
}
const std::vector<Row>& rows() {
  static const std::vector<Row> r = {
      // elementwise: exact arithmetic, broadcast and strided operands, odd lengths (tails)
      {"add_mul_div", 0,
       [] {
         Tensor a = input({1001, 37}), b = input({1001, 37}), row = input({37});
         return std::vector{a + b * 2.5, a * row, a / (b.abs() + 1), a.t() - b.t()};
       }},
      {"max_clamp_relu_where", 0,
       [] {
         Tensor a = input({100003}), b = input({100003});
         return std::vector{maximum(a, b), a.clamp(-0.5, 0.5), relu(a), where(a > b, a, b),
                            (a < b).to(kFloat32)};
       }},
      {"transcendental", 1e-6,
       [] {
         return test::level_results(input({100003}));
       }},
      {"float64", 1e-12,
       [] {
         Tensor a = input({30011}).to(kFloat64), b = input({30011}).to(kFloat64);
         std::vector<Tensor> out{a + b, a * b};
         for (const Tensor& r : test::level_results(a)) out.push_back(r);
         return out;
       }},
      // float16 through float blocks (Note [float16 in float blocks] in elementwise.h) and
      // bfloat16 converted in registers (Note [bfloat16 in registers]): each level's float loop
      // between the same conversions; plain arithmetic bit for bit, the math functions within one
      // ulp of the type (float16 2^-10, bfloat16 2^-7)
      {"half_types_exact", 0,
       [] {
         std::vector<Tensor> out;
         for (const Dtype h : {kFloat16, kBFloat16}) {
           Tensor a = input({1001, 37}).to(h), b = input({1001, 37}).to(h);
           Tensor row = input({37}).to(h);
           for (const Tensor& r : {a + b, a * row, a / (b.abs() + 1), a.t() - b.t(), a > b})
             out.push_back(r.to(kFloat32));
         }
         return out;
       }},
      {"float16_transcendental", 1e-3, [] { return half_transcendental(kFloat16); }},
      {"bfloat16_transcendental", 8e-3, [] { return half_transcendental(kBFloat16); }},
      // integer and bool dtypes, which a higher level hands to the lowest level's entry of the
      // same kernel (Note [Integer dtypes at the lowest level] in backend/cpu/elementwise.h): a
      // wrong kernel there gives another op's values
      {"integer_dtypes", 0,
       [] {
         Tensor a = (input({1001, 37}) * 50).to(kInt32), b = (input({1001, 37}) * 50).to(kInt32);
         Tensor nz = b.abs() + 1, big = a.to(kInt64), small = a.to(kInt8), mask = a > b;
         return std::vector{a + b * 3,
                            a - b,
                            a * b,
                            floor_divide(a, nz),
                            remainder(a, nz),
                            fmod(a, nz),
                            a.pow(2),
                            maximum(a, b),
                            square(big),
                            big.abs(),
                            small.neg(),
                            sign(a),
                            a.clamp(-5, 5),
                            relu(a.t()),
                            a.eq(b),
                            a.t() <= b.t(),
                            where(mask, a, b),
                            a.masked_fill(mask, 7),
                            a.bitwise_and(b),
                            bitwise_xor(a.to(kUInt8), b.to(kUInt8)),
                            a.to(kInt16).bitwise_not(),
                            logical_and(mask, a < 0),
                            logical_xor(mask, b > 0),
                            mask.logical_not(),
                            isclose(a, b + 1),
                            addcmul(big, big, big, 2)};
       }},
      // copies and casts
      {"copy_cast", 0,
       [] {
         Tensor a = input({257, 129}) * 100;
         return std::vector{a.t().contiguous(), a.to(kFloat16).to(kFloat32),
                            a.to(kBFloat16).to(kFloat32), a.to(kInt32).to(kFloat32),
                            a.to(kFloat64), full({1000}, 3.25)};
       }},
      // reductions
      {"reduce_exact", 0,
       [] {
         Tensor a = input({513, 67});
         return std::vector{amax(a, {1}), amax(a), argmax(a, 0).to(kFloat32),
                            std::get<0>(a.max(1))};
       }},
      // sums and products (Note [Sums independent of the CPU level] in backend/cpu/reduce.h):
      // long runs (a leaf's 64 slots, partial vectors), short runs (eight slots), the tree over
      // leaves, columns
      {"reduce_sum_exact", 0,
       [] {
         Tensor a = input({513, 67}), b = input({5, 12345}), c = input({1000, 37});
         std::vector<Tensor> out{sum(a, 1), sum(a, 0), sum(a), a.mean(1), a.prod(1)};
         for (const Tensor& t : {sum(b, 1), sum(c, 1), sum(c), b.to(kFloat64).sum(1)})
           out.push_back(t);
         return out;
       }},
      {"reduce_norm", 1e-5,
       [] {
         Tensor a = input({513, 67});
         return std::vector{a.norm() / 100, a.norm(2, 1), a.prod(1).abs().log()};
       }},
      {"softmax", 1e-5,
       [] {
         Tensor a = input({129, 1001});
         return std::vector{softmax(a, 1), log_softmax(a, 1), softmax(a, 0)};
       }},
      // pooling, batch norm, convolution
      {"max_pool", 0,
       [] {
         auto [v, i] = F::max_pool2d_with_indices(input({4, 8, 29, 29}), 3, {.stride = 2});
         return std::vector{v, i.to(kFloat32)};
       }},
      {"avg_pool", 1e-5, [] { return std::vector{F::avg_pool2d(input({4, 8, 29, 29}), 3)}; }},
      {"batch_norm", 1e-5,
       [] {
         Tensor mean = zeros({16}), var = ones({16});
         Tensor y = F::batch_norm(input({8, 16, 13, 13}), mean, var, {.training = true});
         return std::vector{y, mean, var};
       }},
      {"conv2d", 1e-5,
       [] {
         Tensor x = input({4, 3, 17, 17}), w = input({8, 3, 3, 3}) / 5, b = input({8});
         return std::vector{F::conv2d(x, w, {.bias = b, .padding = 1})};
       }},
      {"conv2d_winograd", 1e-5,  // 16 -> 12 channels: Winograd F(2x2, 3x3), conv_winograd.cpp
       [] {
         Tensor x = input({3, 16, 11, 9}), w = input({12, 16, 3, 3}) / 5, b = input({12});
         return std::vector{F::conv2d(x, w, {.bias = b, .padding = 1})};
       }},
      // the optimizers' fused update
      {"adam", 1e-6,
       [] {
         Tensor p = input({10007}).requires_grad_(true);
         optim::Adam opt({p}, {.lr = 0.01});
         for (int step = 0; step < 3; ++step) {
           opt.zero_grad();
           (p * p).sum().backward();
           opt.step();
         }
         return std::vector{p.detach()};
       }},
  };
  return r;
}

class CpuLevels : public ::testing::TestWithParam<const char*> {};

TEST_P(CpuLevels, GiveTheBaselineResults) {
  const CpuLevel* base = compiled_level("baseline");
  const CpuLevel* level = compiled_level(GetParam());
  if (!base || !level)
    GTEST_SKIP() << "this build did not compile the " << GetParam()
                 << " and baseline CPU levels (EMBER_CPU_LEVELS)";
  if (!cpu::has_all(cpu::cpu_features(), level->needs))
    GTEST_SKIP() << "this CPU lacks " << GetParam() << " (it needs "
                 << cpu::cpu_features_string(level->needs) << "; the CPU has "
                 << cpu::cpu_features_string() << ")";
  // Really another copy of the kernels, not the baseline table under another name.
  const backend::Backend& ours = cpu::kernels_for(*level);
  const backend::Backend& theirs = cpu::kernels_for(*base);
  const size_t add = size_t(backend::ElementwiseKernel::add);
  EXPECT_NE(ours.elementwise[add], theirs.elementwise[add]);
  EXPECT_NE(ours.softmax.softmax, theirs.softmax.softmax);
  for (const Row& row : rows()) {
    const std::vector<Tensor> want = run_at(*base, row.run);
    const std::vector<Tensor> got = run_at(*level, row.run);
    ASSERT_EQ(got.size(), want.size()) << row.name;
    for (size_t k = 0; k < got.size(); ++k) {
      ASSERT_EQ(got[k].sizes(), want[k].sizes()) << row.name << " output " << k;
      if (row.tol == 0)
        EXPECT_TRUE(got[k].equal(want[k])) << row.name << " output " << k << " differs at "
                                           << GetParam();
      else
        EXPECT_TRUE(allclose(got[k], want[k], row.tol, row.tol))
            << row.name << " output " << k << " at " << GetParam() << ": max difference "
            << (got[k] - want[k]).abs().max().item<double>();
    }
  }
}

// The FMA levels run one float exp (exp_float.h): avx512 scales by 2^n with vscalefps, avx2 by
// two exponent factors, both rounding once, so their exp and sigmoid agree bit for bit, subnormal
// and overflowing results included (every float was checked when vscalefps went in).
TEST(CpuLevelsExp, Avx512ScalesAsAvx2) {
  const CpuLevel* avx2 = compiled_level("avx2");
  const CpuLevel* avx512 = compiled_level("avx512");
  if (!avx2 || !avx512 || !cpu::has_all(cpu::cpu_features(), avx512->needs))
    GTEST_SKIP() << "this build or CPU has no avx2 and avx512 levels";
  Tensor x = linspace(-110, 95, 1 << 20);  // exp: 0, subnormal, normal, inf
  x = cat({x, x * 1e-3, -x * 1e-3 + 7e-3});
  auto run = [&] {
    return std::vector{x.exp(), x.sigmoid(), x.slice(0, 0, std::nullopt, 3).exp()};
  };
  const std::vector<Tensor> want = run_at(*avx2, run), got = run_at(*avx512, run);
  for (size_t k = 0; k < got.size(); ++k)
    EXPECT_TRUE(got[k].equal(want[k]))
        << "output " << k << ": " << (got[k] != want[k]).sum().item<int64_t>()
        << " elements differ";
}

// An integer kernel's error comes back through the hand-over to the lowest level.
TEST_P(CpuLevels, RaiseIntegerErrors) {
  const CpuLevel* level = compiled_level(GetParam());
  if (!level || !cpu::has_all(cpu::cpu_features(), level->needs))
    GTEST_SKIP() << "this build or CPU has no " << GetParam() << " level";
  const Tensor a = arange(5, kInt64), zero = zeros({5}, kInt64);
  EXPECT_ERROR(run_at(*level, [&] { return std::vector{floor_divide(a, zero)}; }),
               "ZeroDivisionError");
  EXPECT_ERROR(run_at(*level, [&] { return std::vector{remainder(a.to(kInt16), zero)}; }),
               "ZeroDivisionError");
}

INSTANTIATE_TEST_SUITE_P(Levels, CpuLevels, ::testing::Values("avx2", "avx512"),
                         [](const auto& info) { return std::string(info.param); });

TEST(CpuLevelChoice, HighestLevelTheCpuRuns) {
  const auto levels = cpu::compiled_cpu_levels();
  ASSERT_FALSE(levels.empty());
  const CpuLevel* best = nullptr;
  for (const CpuLevel* l : levels)
    if (cpu::has_all(cpu::cpu_features(), l->needs)) best = l;
  ASSERT_NE(best, nullptr) << "this CPU runs no compiled level";
  EXPECT_STREQ(cpu::choose_cpu_level(nullptr, cpu::cpu_features()).name, best->name);
  EXPECT_STREQ(cpu::choose_cpu_level("", cpu::cpu_features()).name, best->name);
  // A CPU with nothing beyond x86-64 runs the baseline.
  if (compiled_level("baseline")) {
    EXPECT_STREQ(cpu::choose_cpu_level(nullptr, cpu::CpuFeatures{}).name, "baseline");
  }
  // Each compiled level states features consistent with its name.
  if (const CpuLevel* l = compiled_level("avx2")) {
    EXPECT_TRUE(l->needs.avx2 && l->needs.fma && l->needs.f16c);
    EXPECT_FALSE(l->needs.avx512f);
  }
  if (const CpuLevel* l = compiled_level("avx512")) {
    EXPECT_TRUE(l->needs.avx512f && l->needs.avx512bw && l->needs.avx512dq && l->needs.avx512vl);
  }
}

TEST(CpuLevelChoice, RequestIsHonouredOrRefused) {
  for (const CpuLevel* l : cpu::compiled_cpu_levels()) {
    if (cpu::has_all(cpu::cpu_features(), l->needs)) {
      EXPECT_EQ(&cpu::choose_cpu_level(l->name, cpu::cpu_features()), l);
    }
  }
  // A level the CPU cannot run: names the level, what it needs and what the CPU has.
  const CpuLevel* top = cpu::compiled_cpu_levels().back();
  cpu::CpuFeatures old_cpu;  // nothing beyond x86-64
  if (top->needs.avx2) {
    const std::string msg =
        test::message_of([&] { cpu::choose_cpu_level(top->name, old_cpu); });
    EXPECT_NE(msg.find(std::string("[cpu_capability] EMBER_CPU_CAPABILITY=") + top->name +
                       " asks for a level this CPU cannot run"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("the CPU has none"), std::string::npos) << msg;
  }
  // An unknown name: lists the compiled levels.
  std::string compiled;
  for (const CpuLevel* l : cpu::compiled_cpu_levels())
    compiled += (compiled.empty() ? "" : ", ") + std::string(l->name);
  EXPECT_ERROR(cpu::choose_cpu_level("sse9", cpu::cpu_features()),
               "[cpu_capability] EMBER_CPU_CAPABILITY=sse9 names no CPU level of this build "
               "(compiled: " + compiled + ";");
}

}  // namespace
}  // namespace ember
