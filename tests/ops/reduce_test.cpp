// Every reduction in ember/tensor.h and ember/reduce.h against PyTorch 1.13: golden/reduce.json
// (written by golden/gen_reduce.py) holds each op's input (contiguous, transposed, permuted,
// NCHW/NHWC, sliced with steps, expanded, 0-d, empty; float16/bfloat16/float32/float64, ints,
// bool) with its options, and PyTorch's result or error. The table below maps each golden op
// name to one ember call; adding an op is one row here and one in the generator. Also: 1 and 2
// threads give the same results, and long float32 sums are no less accurate than PyTorch's.
#include "golden_dir.h"
#include <gtest/gtest.h>

#include <ember/ember.h>
#include <ember/reduce.h>

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

#include "ops/op_table.h"
#include "test_support.h"

using namespace ember;
using json = nlohmann::json;

namespace {

using test::dtype_named;

// One golden case as the table's lambdas see it (the op table's, ops/op_table.h).
using Case = test::ReduceCase;

// Allowed difference for a floating result e: ulps * ulp(e) + rtol * |e| + abs_ulps * ulp(1) +
// the case's atol.
// float16/bfloat16 results always get one ulp: float accumulation rounds once at the end, and
// PyTorch's order of float operations differs from ember's.
struct Tol {
  double ulps = 0;
  double rtol = 0;
  double abs_ulps = 0;
};
constexpr Tol kExact{0, 0};
constexpr Tol kSum{1, 0};        // plus the case's atol: another summation order
constexpr Tol kRounded{2, 0};    // computed in double both sides, rounded once (var, std)
constexpr Tol kMath{4, 0};       // exp/log/pow (SLEEF or libm, 1 ulp each) in a short chain
constexpr Tol kProd{4, 2e-6};    // a product rounds once per factor, in another order
constexpr Tol kSoftmax{4, 1e-6};  // exp of shifted values, sum, scale
// x - max - log(sum): the absolute error of its terms (about 1), many ulps of a result near 0
// (seen at the baseline level, whose vector exp rounds differently from PyTorch's AVX2 one).
constexpr Tol kLogSoftmax{4, 1e-6, 2};

using test::Results;
using OpFn = std::function<Results(const Case&)>;
struct Row {
  Tol tol;
  OpFn fn;
};

Results one(const Tensor& t) { return {t}; }
Results two(const std::tuple<Tensor, Tensor>& t) { return {std::get<0>(t), std::get<1>(t)}; }

// clang-format off
const std::map<std::string, Row>& table() {
  static const std::map<std::string, Row> rows = {
    {"sum", {kSum, [](const Case& c) {
      if (!c.has("dims") && !c.keepdim()) return one(c.x().sum(c.dtype()));
      if (c.dims_is_int()) return one(c.x().sum(c.dims()[0], c.keepdim(), c.dtype()));
      return one(sum(c.x(), c.dims(), c.keepdim(), c.dtype()));
    }}},
    {"nansum", {kSum, [](const Case& c) {
      if (!c.has("dims") && !c.keepdim()) return one(c.x().nansum(c.dtype()));
      return one(c.x().nansum(c.dims(), c.keepdim(), c.dtype()));
    }}},
    {"mean", {kSum, [](const Case& c) {
      if (!c.has("dims") && !c.keepdim()) return one(c.x().mean(c.dtype()));
      if (c.dims_is_int()) return one(c.x().mean(c.dims()[0], c.keepdim(), c.dtype()));
      return one(c.x().mean(c.dims(), c.keepdim(), c.dtype()));
    }}},
    {"nanmean", {kSum, [](const Case& c) {
      const auto d = c.odims();
      return one(d ? c.x().nanmean(IntArrayRef(*d), c.keepdim()) : c.x().nanmean({}, c.keepdim()));
    }}},
    {"prod", {kProd, [](const Case& c) {
      return one(c.dim() ? c.x().prod(*c.dim(), c.keepdim(), c.dtype()) : c.x().prod(c.dtype()));
    }}},
    {"var", {kRounded, [](const Case& c) {
      if (c.dims_is_int()) return one(c.x().var(c.dims()[0], c.correction(), c.keepdim()));
      const auto d = c.odims();
      return one(var(c.x(), d ? std::optional<IntArrayRef>(*d) : std::nullopt, c.correction(), c.keepdim()));
    }}},
    {"std", {kRounded, [](const Case& c) {
      if (c.dims_is_int()) return one(c.x().std(c.dims()[0], c.correction(), c.keepdim()));
      const auto d = c.odims();
      return one(ember::std(c.x(), d ? std::optional<IntArrayRef>(*d) : std::nullopt, c.correction(), c.keepdim()));
    }}},
    {"var_mean", {kRounded, [](const Case& c) {
      const auto d = c.odims();
      return two(var_mean(c.x(), d ? std::optional<IntArrayRef>(*d) : std::nullopt, c.correction(), c.keepdim()));
    }}},
    {"std_mean", {kRounded, [](const Case& c) {
      const auto d = c.odims();
      return two(std_mean(c.x(), d ? std::optional<IntArrayRef>(*d) : std::nullopt, c.correction(), c.keepdim()));
    }}},
    {"max", {kExact, [](const Case& c) { return one(c.x().max()); }}},
    {"min", {kExact, [](const Case& c) { return one(c.x().min()); }}},
    {"max.dim", {kExact, [](const Case& c) { return two(c.x().max(*c.dim(), c.keepdim())); }}},
    {"min.dim", {kExact, [](const Case& c) { return two(c.x().min(*c.dim(), c.keepdim())); }}},
    {"argmax", {kExact, [](const Case& c) { return one(argmax(c.x(), c.dim(), c.keepdim())); }}},
    {"argmin", {kExact, [](const Case& c) { return one(c.x().argmin(c.dim(), c.keepdim())); }}},
    {"amax", {kExact, [](const Case& c) { return one(c.x().amax(c.dims(), c.keepdim())); }}},
    {"amin", {kExact, [](const Case& c) { return one(amin(c.x(), c.dims(), c.keepdim())); }}},
    {"aminmax", {kExact, [](const Case& c) { return two(aminmax(c.x(), c.dim(), c.keepdim())); }}},
    {"linalg_vector_norm", {kMath, [](const Case& c) {
      return one(linalg_vector_norm(c.x(), c.p(), c.dims(), c.keepdim()));
    }}},
    {"norm", {kMath, [](const Case& c) {
      return one(c.has("dims") ? c.x().norm(c.p(), c.dims(), c.keepdim()) : c.x().norm(c.p()));
    }}},
    {"logsumexp", {kMath, [](const Case& c) {
      if (c.dims_is_int()) return one(c.x().logsumexp(c.dims()[0], c.keepdim()));
      return one(logsumexp(c.x(), c.dims(), c.keepdim()));
    }}},
    {"softmax", {kSoftmax, [](const Case& c) { return one(softmax(c.x(), *c.dim(), c.dtype())); }}},
    {"log_softmax", {kLogSoftmax, [](const Case& c) { return one(c.x().log_softmax(*c.dim(), c.dtype())); }}},
    {"cumprod", {kExact, [](const Case& c) { return one(c.x().cumprod(*c.dim(), c.dtype())); }}},
    {"all", {kExact, [](const Case& c) { return one(c.dim() ? c.x().all(*c.dim(), c.keepdim()) : c.x().all()); }}},
    {"any", {kExact, [](const Case& c) { return one(c.dim() ? c.x().any(*c.dim(), c.keepdim()) : c.x().any()); }}},
    {"count_nonzero", {kExact, [](const Case& c) {
      const auto d = c.odims();
      return one(d ? c.x().count_nonzero(IntArrayRef(*d)) : c.x().count_nonzero());
    }}},
  };
  return rows;
}
// clang-format on

const json& golden() {
  static const json j = test::golden_table("reduce.json");
  return j;
}

// Ops in the order the golden file first names them (the test parameters).
std::vector<std::string> golden_ops() { return test::golden_ops(golden()); }

std::string test_name(std::string op) {
  for (char& ch : op)
    if (ch == '.') ch = '_';
  return op;
}

// Compares a result with a golden output; returns what differs, empty when nothing does.
std::string compare(const Tensor& got, const json& out, Tol tol, double atol) {
  std::ostringstream err;
  const Dtype dtype = dtype_named(out["dtype"]);
  if (got.dtype() != dtype) err << "dtype " << got.dtype() << ", PyTorch " << dtype << "; ";
  const std::vector<int64_t> shape = out["shape"];
  if (got.sizes().vec() != shape) {
    err << "shape " << got.sizes() << ", PyTorch " << IntArrayRef(shape) << "; ";
    return err.str();
  }
  const Tensor want = test::golden_tensor(out);
  if (!is_floating_point(dtype) || !got.is_floating_point())
    return err.str() + test::mismatches(got.tolist<int64_t>(), want.tolist<int64_t>(), 1);
  const std::vector<double> v = got.tolist<double>();
  const double ulps = dtype == kFloat16 || dtype == kBFloat16 ? std::max(tol.ulps, 1.0) : tol.ulps;
  const std::string bad = test::mismatches(
      v, want.tolist<double>(),
      [&](double a, double e) {
        return std::abs(a - e) <= ulps * test::ulp(e, dtype) + tol.rtol * std::abs(e) +
                                      tol.abs_ulps * test::ulp(1, dtype) + atol;
      },
      3);
  if (!bad.empty()) err << bad << ": got " << test::show_values(v) << "; ";
  return err.str();
}

std::string describe(const json& c) {
  std::string s = c["op"].get<std::string>() + " / " + c["name"].get<std::string>();
  // Appended in two steps: `" " + string` trips GCC 12's -Wrestrict false positive.
  if (!c["args"].empty()) s.append(" ").append(c["args"].dump());
  return s;
}

class Golden : public testing::TestWithParam<std::string> {};

TEST_P(Golden, MatchesPyTorch) {
  const std::string& op = GetParam();
  // This file's rows, or the op table's (ops/op_table.h: golden_reduce, its tol's ulps and abs_ulps).
  Row row;
  if (const auto own = table().find(op); own != table().end()) {
    row = own->second;
  } else if (const test::OpInfo* info = test::find_op(op); info && info->golden_reduce) {
    row = {Tol{info->tol.ulps, 0, info->tol.abs_ulps}, info->golden_reduce};
  } else {
    FAIL() << "no table row for golden op " << op;
  }
  int n = 0;
  for (const json& c : golden()["cases"]) {
    if (c["op"] != op) continue;
    ++n;
    const Case input(c);
    if (c.contains("error")) {  // PyTorch rejects it: the same error, as an ember::Error
      const std::string want = c["error"];
      const std::string got = test::message_of([&] { row.fn(input); });
      EXPECT_NE(got.find(want), std::string::npos) << describe(c) << ": message \"" << got
                                                    << "\" lacks \"" << want
                                                    << "\"; PyTorch raises: " << c["torch_error"];
      continue;
    }
    Results got;
    try {
      got = row.fn(input);
    } catch (const std::exception& e) {
      ADD_FAILURE() << describe(c) << ": threw " << e.what();
      continue;
    }
    const json outs = c.contains("outs") ? c["outs"] : json::array({c["out"]});
    ASSERT_EQ(got.size(), outs.size()) << describe(c);
    for (size_t k = 0; k < outs.size(); ++k) {
      const double atol = c.contains("atol") ? c["atol"][k].get<double>() : 0.0;
      const std::string diff = compare(got[k], outs[k], row.tol, atol);
      EXPECT_TRUE(diff.empty()) << describe(c) << (outs.size() > 1 ? " output " + std::to_string(k) : "")
                                << ": " << diff;
    }
  }
  EXPECT_GT(n, 0);
}

INSTANTIATE_TEST_SUITE_P(Ops, Golden, testing::ValuesIn(golden_ops()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return test_name(info.param);
                         });

TEST(GoldenFile, LoadedAndEveryRowHasCases) {
  ASSERT_GT(golden()["cases"].size(), 1000u) << "missing " << ember::test::golden_path("reduce.json");
  const std::vector<std::string> ops = golden_ops();
  const std::set<std::string> named(ops.begin(), ops.end());
  for (const auto& [op, row] : table()) EXPECT_TRUE(named.count(op)) << "table row " << op << " has no golden cases";
  for (const test::OpInfo& row : test::op_table()) {
    if (row.golden_reduce) {
      EXPECT_TRUE(named.count(row.name)) << "op table row " << row.name << " has no golden cases";
    }
  }
}

// ── threads ─────────────────────────────────────────────────────────────
using test::ThreadGuard;

bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.sizes() != b.sizes()) return false;
  const Tensor x = a.contiguous(), y = b.contiguous();
  return std::memcmp(x.data_ptr(), y.data_ptr(), size_t(x.nbytes())) == 0;
}

Tensor uniform(std::mt19937& gen, std::vector<int64_t> shape, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  int64_t count = 1;
  for (int64_t s : shape) count *= s;
  std::vector<double> v(static_cast<size_t>(count));
  for (double& x : v) x = u(gen);
  return from_vector(v, shape).to(kFloat32);
}

// Where PyTorch's results do not depend on the thread count (each output reduced by one thread,
// or exact arithmetic), ember's must not either. ember also keeps full float sums independent of
// it (Note [Deterministic parallel sums] in backend/cpu/reduce.h), which PyTorch does not.
TEST(Threads, OneAndTwoThreadsGiveTheSameBits) {
  ThreadGuard guard;
  std::mt19937 gen(11);
  const Tensor big = uniform(gen, {(int64_t(1) << 21) + 5}, -3, 3);  // 2M: above every grain
  const Tensor m = uniform(gen, {1024, 1031}, -3, 3);
  const Tensor mt = uniform(gen, {1031, 1024}, -3, 3).t();
  const Tensor nchw = uniform(gen, {32, 16, 28, 28}, -3, 3);
  const Tensor nhwc = uniform(gen, {32, 28, 28, 16}, -3, 3).permute({0, 3, 1, 2});
  const Tensor ints = floor(big * 100).to(kInt32);
  const std::vector<std::pair<const char*, std::function<Tensor()>>> ops = {
      {"sum_all", [&] { return big.sum(); }},
      {"sum_all_strided", [&] { return big.slice(0, 0, std::nullopt, 3).sum(); }},
      // one output, 2048 runs of 1000 (the runs are 1024 apart): the tree over runs is cut
      {"sum_runs_one_output", [&] { return big.slice(0, 0, 2048 * 1024).view({2048, 1, 1024}).slice(2, 0, 1000).sum({0, 2}); }},
      {"mean_all_2d", [&] { return m.mean(); }},
      {"sum_dim0", [&] { return m.sum(0); }},
      {"sum_dim1", [&] { return m.sum(1); }},
      {"sum_dim0_t", [&] { return mt.sum(0); }},
      {"mean_nchw", [&] { return nchw.mean({0, 2, 3}); }},
      {"mean_nhwc", [&] { return nhwc.mean({0, 2, 3}); }},
      {"sum_int", [&] { return ints.sum(); }},
      {"prod_dim1", [&] { return (m * 0.001 + 1).prod(1); }},
      {"amax_all", [&] { return big.amax(); }},
      {"amin_dim0", [&] { return m.amin({0}); }},
      {"max_dim1_indices", [&] { return std::get<1>(m.max(1)); }},
      {"argmax_all", [&] { return big.argmax(); }},
      {"argmin_dim0", [&] { return mt.argmin(0); }},
      {"var_dim1", [&] { return m.var(1); }},
      {"var_nchw", [&] { return nchw.var(IntArrayRef({0, 2, 3})); }},
      {"norm_dim1", [&] { return m.norm(2, 1); }},
      {"logsumexp_dim1", [&] { return m.logsumexp(1); }},
      {"softmax_last", [&] { return m.softmax(-1); }},
      {"softmax_first", [&] { return m.softmax(0); }},
      {"log_softmax_t", [&] { return mt.log_softmax(1); }},
      {"cumsum_dim1", [&] { return m.cumsum(1); }},
      {"cumsum_dim0", [&] { return m.cumsum(0); }},
      {"all", [&] { return big.ne(0).all(); }},
      {"count_nonzero", [&] { return ints.count_nonzero(); }},
  };
  for (const auto& [name, fn] : ops) {
    set_num_threads(1);
    const Tensor one = fn();
    set_num_threads(2);
    const Tensor two = fn();
    EXPECT_TRUE(same_bits(one, two)) << name << ": " << one.flatten().slice(0, 0, 4) << " vs "
                                     << two.flatten().slice(0, 0, 4);
  }
}

// ── accuracy of long float32 sums ──────────────────────────────────────
// ember's float32 sum of 10M elements must be no further from the exact sum than PyTorch's.
// Both ember's and PyTorch's generators are bit-identical to PyTorch's, so randn/rand here are
// the very numbers PyTorch summed (checked on the first four).
void expect_no_worse(const char* name, const Tensor& x, const json& rec) {
  const double got = x.sum().item<double>();
  const double ref = rec["ref"], torch_err = std::abs(double(rec["torch"]) - ref);
  const double err = std::abs(got - ref);
  std::cout << name << ": ember error " << err << ", PyTorch error " << torch_err << " (sum "
            << std::setprecision(10) << ref << ")\n";
  EXPECT_LE(err, torch_err) << name << ": ember " << got << ", PyTorch " << rec["torch"]
                            << ", exact " << ref;
}

// bool, uint8, int8, int16 and int32 sums and products accumulate in int64 (as PyTorch's do),
// over each layout: runs of 5003 (two leaves of the pairwise tree), rows of 5003 outputs, a
// transposed view. The references are plain int64 loops here, wrapping as the kernels must
// (products overflow 2^64; a sum into its own narrow dtype wraps there).
TEST(NarrowIntegers, SumsAndProductsAsInt64) {
  const int64_t rows = 3, cols = 5003;
  std::vector<int64_t> values(size_t(rows * cols));
  uint64_t state = 12345;
  for (int64_t& v : values) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v = int64_t(state >> 33);
  }
  for (const Dtype dtype : {kBool, kUInt8, kInt8, kInt16, kInt32}) {
    SCOPED_TRACE(dtype_name(dtype));
    const Tensor x = from_vector(values, std::vector<int64_t>{rows, cols}).to(dtype);
    const std::vector<int64_t> v = x.to(kInt64).tolist<int64_t>();  // the narrow values
    const auto at = [&](int64_t r, int64_t c) { return v[size_t(r * cols + c)]; };
    int64_t total = 0;
    std::vector<int64_t> row_sums(rows, 0), col_sums(cols, 0);
    std::vector<uint64_t> row_prods(rows, 1);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        total += at(r, c);
        row_sums[size_t(r)] += at(r, c);
        col_sums[size_t(c)] += at(r, c);
        row_prods[size_t(r)] *= uint64_t(at(r, c) | 1);  // odd factors: no zero product
      }
    EXPECT_EQ(x.sum().item<int64_t>(), total);
    EXPECT_EQ(x.sum(1).tolist<int64_t>(), row_sums);      // each output one run
    EXPECT_EQ(x.sum(0).tolist<int64_t>(), col_sums);      // rows of 5003 outputs
    EXPECT_EQ(x.t().sum(1).tolist<int64_t>(), col_sums);  // the same, from a transposed view
    if (dtype != kBool) {
      std::vector<int64_t> odd_values = values;
      for (int64_t& o : odd_values) o |= 1;
      const Tensor odd = from_vector(odd_values, std::vector<int64_t>{rows, cols}).to(dtype);
      std::vector<int64_t> want(rows);
      for (int64_t r = 0; r < rows; ++r) want[size_t(r)] = int64_t(row_prods[size_t(r)]);
      EXPECT_EQ(odd.prod(1).tolist<int64_t>(), want);
      // into the input's own dtype: the int64 sum, wrapped to it
      EXPECT_EQ(x.sum(1, false, dtype).to(kInt64).tolist<int64_t>(),
                from_vector(row_sums).to(dtype).to(kInt64).tolist<int64_t>());
    }
  }
}

TEST(Accuracy, LongFloatSumsNoWorseThanPyTorch) {
  const json& acc = golden()["accuracy"];
  ASSERT_TRUE(acc.is_object());
  const int64_t n = acc["tenth"]["n"];
  expect_no_worse("0.1 x 10M", full({n}, 0.1, {.dtype = kFloat32}), acc["tenth"]);
  manual_seed(acc["randn"]["seed"].get<uint64_t>());
  const Tensor r = randn({n});
  const Tensor u = rand({n});
  ASSERT_EQ(r.slice(0, 0, 4).tolist<double>(), acc["randn"]["check"].get<std::vector<double>>());
  ASSERT_EQ(u.slice(0, 0, 4).tolist<double>(), acc["rand"]["check"].get<std::vector<double>>());
  expect_no_worse("randn 10M", r, acc["randn"]);
  expect_no_worse("rand 10M", u, acc["rand"]);
  // The same data as a matrix reduced along either dim: rows and runs layouts.
  const Tensor m = u.view({10000, 1000});
  const Tensor exact0 = m.to(kFloat64).sum(0), exact1 = m.to(kFloat64).sum(1);
  const double e0 = (m.sum(0).to(kFloat64) - exact0).abs().max().item<double>();
  const double e1 = (m.sum(1).to(kFloat64) - exact1).abs().max().item<double>();
  const double t0 = acc["rand_dim0"]["torch_max_err"], t1 = acc["rand_dim1"]["torch_max_err"];
  std::cout << "rand (10000, 1000) sum(0): ember max error " << e0 << ", PyTorch " << t0
            << "; sum(1): ember " << e1 << ", PyTorch " << t1 << "\n";
  EXPECT_LE(e0, t0) << "sum over dim 0 of (10000, 1000)";
  EXPECT_LE(e1, t1) << "sum over dim 1 of (10000, 1000)";
}

}  // namespace
