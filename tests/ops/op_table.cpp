// The op table's rows (tests/ops/op_table.h says what each field drives). One row per op, in the
// groups of golden/elementwise.json, then the other families' rows (index, scan).
#include "ops/op_table.h"

#include <algorithm>
#include <cmath>

namespace ember::test {

using json = nlohmann::json;

// ── GoldenCase / ReduceCase ──────────────────────────────────────────────────────────────────

namespace {
Scalar to_scalar(const json& v) {
  if (v.is_boolean()) return Scalar(v.get<bool>());
  if (v.is_number_integer()) return Scalar(v.get<int64_t>());
  return Scalar(golden_number(v));
}
}  // namespace

GoldenCase::GoldenCase(const json& j) : j_(j) {
  for (const json& in : j["inputs"]) inputs_.push_back(in.is_object() ? golden_tensor(in) : Tensor());
}
Tensor& GoldenCase::t(size_t i) {
  if (!inputs_.at(i).defined()) throw std::runtime_error("input is not a tensor");
  return inputs_[i];
}
Scalar GoldenCase::s(size_t i) const { return to_scalar(j_["inputs"].at(i)); }
Scalar GoldenCase::s(const char* key, Scalar fallback) const {
  return has(key) ? to_scalar(arg(key)) : fallback;
}
std::optional<Scalar> GoldenCase::os(const char* key) const {
  return has(key) ? std::optional(to_scalar(arg(key))) : std::nullopt;
}
double GoldenCase::d(const char* key, double fallback) const {
  return has(key) ? golden_number(arg(key)) : fallback;
}
std::optional<double> GoldenCase::od(const char* key) const {
  return has(key) ? std::optional(golden_number(arg(key))) : std::nullopt;
}
std::optional<std::string> GoldenCase::str(const char* key) const {
  return has(key) ? std::optional(arg(key).get<std::string>()) : std::nullopt;
}
int64_t GoldenCase::i(const char* key, int64_t fallback) const {
  return has(key) ? arg(key).get<int64_t>() : fallback;
}
bool GoldenCase::b(const char* key, bool fallback) const {
  return has(key) ? arg(key).get<bool>() : fallback;
}
bool GoldenCase::has(const char* key) const {
  return j_["args"].contains(key) && !arg(key).is_null();
}
const json& GoldenCase::arg(const char* key) const { return j_["args"][key]; }

ReduceCase::ReduceCase(const json& j) : j_(j), x_(golden_tensor(j["inputs"][0])) {}
bool ReduceCase::has(const char* key) const {
  return args().contains(key) && !args()[key].is_null();
}
bool ReduceCase::keepdim() const { return has("keepdim") && args()["keepdim"].get<bool>(); }
DimVector ReduceCase::dims() const {
  if (!has("dims")) return {};
  const json& d = args()["dims"];
  if (d.is_number()) return {d.get<int64_t>()};
  return DimVector(d.get<std::vector<int64_t>>());
}
std::optional<DimVector> ReduceCase::odims() const {
  return has("dims") ? std::optional(dims()) : std::nullopt;
}
bool ReduceCase::dims_is_int() const { return has("dims") && args()["dims"].is_number(); }
std::optional<int64_t> ReduceCase::dim() const {
  return has("dim") ? std::optional(args()["dim"].get<int64_t>()) : std::nullopt;
}
std::optional<Dtype> ReduceCase::dtype() const {
  return has("dtype") ? std::optional(dtype_named(args()["dtype"])) : std::nullopt;
}
int64_t ReduceCase::correction() const {
  return has("correction") ? args()["correction"].get<int64_t>() : 1;
}
double ReduceCase::p() const { return golden_number(args()["p"]); }

// ── the rows ─────────────────────────────────────────────────────────────────────────────────

namespace {

using Case = GoldenCase;
using K = backend::ElementwiseKernel;
using backend::ElementwiseArgs;
using gradtest::c;
using gradtest::In;
using gradtest::pos;
using gradtest::x;
using gradtest::xt;

// Gradient samples' inputs.
Tensor mask34() { return tensor({true, false, true, false}).expand({3, 4}); }
// Values kept away from a kink at `k` (so finite differences do not straddle it).
Tensor away(IntArrayRef shape, double k = 0) {
  Tensor t = c(shape);
  Tensor s = where(t >= 0, 1.0, -1.0);
  return (t + s * 0.1 + k).requires_grad_();
}
Tensor idx(const NestedList& v) { return tensor(v, kInt64); }
// A one-input gradient sample: name, grad_fn node, input, expression of t[0].
#define U(name, node, input, expr) \
  {#name, node, [] { return In{input}; }, [](const In& t) { return expr; }}

// Kernel samples' arguments.
const ElementwiseArgs kAlpha2{.scalar = {Scalar(2)}};  // a power of two: exact, fma or not
const ElementwiseArgs kMinus2{.scalar = {Scalar(-2)}};
const ElementwiseArgs kValue{.scalar = {Scalar(-2.5)}};
ElementwiseArgs pow_exponent(double v) { return {.real = {v, 0, 0}}; }

// Golden samples of gather (indexing.json): a (4, 5) int64 source.
Tensor t20() { return arange(20).reshape({4, 5}); }
Tensor gather_ref_index() { return tensor({{0, 1, 2, 3}, {3, 2, 1, 0}, {0, 0, 0, 0}}); }

// The float32, float64 and half dtypes of the CPU levels' math rows.
const std::vector<Dtype> kLevelAll{kFloat32, kFloat64, kFloat16, kBFloat16};

std::vector<OpInfo> make_table() {
  // clang-format off
  return {
    // arithmetic
    {.name = "add",
     .family = Family::binary,
     .tol = kFusedMultiplyAdd,
     .golden = [](Case& c) { return add(c.t(0), c.t(1), c.s("alpha", 1)); },
     .grad = {
        {"add", "AddBackward0", [] { return In{x({3, 4}), x({3, 4})}; },
         [](const In& t) { return t[0] + t[1]; }},
        {"add_alpha_broadcast", "AddBackward0", [] { return In{x({3, 4}), x({4})}; },
         [](const In& t) { return add(t[0], t[1], 2.5); }},
      },
     .device = {
        {"add", [](const Tensor& a, const Tensor& p) { return add(a, p, 2); }},
      },
     .device_int = {
        {"add", [](const Tensor& x, const Tensor& y) { return add(x, y); }},
      },
     .kernel = {
        {K::add, "ss", 0, kAlpha2},
      }},
    {.name = "add.scalar",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return add(c.t(0), c.s(1), c.s("alpha", 1)); },
     .grad = {
        {"add_scalar", "AddBackward1", [] { return In{xt({3, 4})}; },
         [](const In& t) { return t[0] + 3; }},
      }},
    {.name = "sub",
     .family = Family::binary,
     .tol = kFusedMultiplyAdd,
     .golden = [](Case& c) { return sub(c.t(0), c.t(1), c.s("alpha", 1)); },
     .grad = {
        {"sub_broadcast_both", "SubBackward0", [] { return In{x({3, 1}), x({1, 4})}; },
         [](const In& t) { return sub(t[0], t[1], 0.5); }},
      },
     .device = {
        {"sub", [](const Tensor& a, const Tensor& p) { return sub(a, p, 0.5); }},
      },
     .device_int = {
        {"sub", [](const Tensor& x, const Tensor& y) { return sub(x, y, 3); }, false, false},
      },
     .kernel = {
        {K::sub, "ss", 0, kMinus2},
      }},
    {.name = "sub.scalar",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return sub(c.t(0), c.s(1), c.s("alpha", 1)); }},
    {.name = "rsub.scalar",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return rsub(c.t(0), c.s(1)); },
     .grad = {
        {"rsub_scalar", "RsubBackward1", [] { return In{x({5})}; },
         [](const In& t) { return 2 - t[0]; }},
      }},
    {.name = "mul",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return mul(c.t(0), c.t(1)); },
     .grad = {
        {"mul", "MulBackward0", [] { return In{xt({3, 4}), x({3, 4})}; },
         [](const In& t) { return t[0] * t[1]; }},
        {"mul_constant", "MulBackward0", [] { return In{x({3, 4}), c({4})}; },
         [](const In& t) { return t[0] * t[1]; }},
        {"mul_0d", "MulBackward0", [] { return In{x({}), x({2, 3})}; },
         [](const In& t) { return t[0] * t[1]; }},
      },
     .device = {
        {"mul", [](const Tensor& a, const Tensor& p) { return mul(a, p); }},
      },
     .device_int = {
        {"mul", [](const Tensor& x, const Tensor& y) { return mul(x, y); }},
      },
     .kernel = {
        {K::mul, "ss", 0},
      }},
    {.name = "mul.scalar",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return mul(c.t(0), c.s(1)); },
     .grad = {
        {"mul_scalar", "MulBackward1", [] { return In{x({2, 3})}; },
         [](const In& t) { return t[0] * -1.5; }},
      }},
    {.name = "div",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return div(c.t(0), c.t(1), {c.str("rounding_mode")}); },
     .grad = {
        {"div", "DivBackward0", [] { return In{x({3, 4}), pos({4})}; },
         [](const In& t) { return t[0] / t[1]; }},
        {"div_method", "DivBackward0", [] { return In{x({3, 4}), pos({4})}; },
         [](const In& t) { return t[0].div(t[1]); }},
      },
     .device = {
        {"div", [](const Tensor& a, const Tensor& p) { return div(a, p); }},
        {"div_trunc", [](const Tensor& a, const Tensor& p) { return div(a, p, {"trunc"}); }},
      },
     .device_int = {
        {"div_trunc", [](const Tensor& x, const Tensor& y) { return div(x, y, {"trunc"}); }, false, false},
      },
     .kernel = {
        {K::true_div, "sn", 0},
        {K::trunc_div, "sn", 0},
      }},
    {.name = "div.scalar",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return div(c.t(0), c.s(1), {c.str("rounding_mode")}); },
     .grad = {
        {"div_scalar", "DivBackward1", [] { return In{x({3})}; },
         [](const In& t) { return t[0] / 4; }},
      }},
    {.name = "div.rscalar",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return div(c.s(0), c.t(1), {c.str("rounding_mode")}); },
     .grad = {
        {"rdiv_scalar", "", [] { return In{pos({3})}; },
         [](const In& t) { return 2 / t[0]; }},
      }},
    {.name = "floor_divide",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return floor_divide(c.t(0), c.t(1)); },
     .device = {
        {"floor_divide", [](const Tensor& a, const Tensor& p) { return floor_divide(a, p); }},
      },
     .device_int = {
        {"floor_divide", [](const Tensor& x, const Tensor& y) { return floor_divide(x, y); }, false, false},
      },
     .kernel = {
        {K::floor_div, "sn", 0},
      }},
    {.name = "floor_divide.scalar",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return floor_divide(c.t(0), c.s(1)); }},
    {.name = "remainder",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return remainder(c.t(0), c.t(1)); },
     .grad = {
        {"remainder", "RemainderBackward1", [] { return In{x({3, 4}, 0.1, 0.9), x({4}, 1.2, 1.8)}; },
         [](const In& t) { return (t[0] + 3) % t[1]; }},
      },
     .device = {
        {"remainder", [](const Tensor& a, const Tensor& p) { return remainder(a, p); }},
      },
     .device_int = {
        {"remainder", [](const Tensor& x, const Tensor& y) { return remainder(x, y); }, false, false},
      },
     .kernel = {
        {K::remainder, "sn", 0},
      }},
    {.name = "remainder.scalar",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return remainder(c.t(0), c.s(1)); },
     .grad = {
        {"remainder_scalar", "RemainderBackward0", [] { return In{xt({3, 4})}; },
         [](const In& t) { return t[0].remainder(7.5); }},
      }},
    {.name = "remainder.rscalar",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return remainder(c.s(0), c.t(1)); }},
    {.name = "fmod",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return fmod(c.t(0), c.t(1)); },
     .grad = {
        {"fmod", "FmodBackward1", [] { return In{x({3, 4}, 3.1, 3.9), x({3, 1}, 1.2, 1.8)}; },
         [](const In& t) { return fmod(t[0], t[1]); }},
      },
     .device = {
        {"fmod", [](const Tensor& a, const Tensor& p) { return fmod(a, p); }},
      },
     .device_int = {
        {"fmod", [](const Tensor& x, const Tensor& y) { return fmod(x, y); }, false, false},
      },
     .kernel = {
        {K::fmod, "sn", 0},
      }},
    {.name = "fmod.scalar",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return fmod(c.t(0), c.s(1)); },
     .grad = {
        {"fmod_scalar", "FmodBackward0", [] { return In{x({5})}; },
         [](const In& t) { return fmod(t[0], 7.5); }},
      }},
    {.name = "pow",
     .family = Family::binary,
     .tol = kMath,
     .golden = [](Case& c) { return pow(c.t(0), c.t(1)); },
     .grad = {
        {"pow_tensor", "PowBackward1", [] { return In{pos({3, 4}), x({4})}; },
         [](const In& t) { return t[0].pow(t[1]); }},
      },
     .device = {
        {"pow", [](const Tensor& a, const Tensor& p) { return pow(p, a); }},
      },
     .device_int = {
        {"pow", [](const Tensor& x, const Tensor& y) { return pow(x, remainder(y, 4)); }, false, false},
      },
     .kernel = {
        {K::pow, "pu", 2},
        {K::pow, "pe", 2},
        {K::pow, "ae", 2},
      }},
    {.name = "pow.scalar",
     .family = Family::binary,
     .tol = kMath,
     .golden = [](Case& c) { return pow(c.t(0), c.s(1)); },
     .grad = {
        {"pow_scalar", "PowBackward0", [] { return In{x({3, 4})}; },
         [](const In& t) { return t[0].pow(3); }},
        {"pow_fractional", "PowBackward0", [] { return In{pos({4})}; },
         [](const In& t) { return t[0].pow(1.7); }},
      },
     .device = {
        {"pow_scalar", [](const Tensor& a, const Tensor&) { return pow(a, 3); }},
        {"pow_sqrt", [](const Tensor&, const Tensor& p) { return pow(p, 0.5); }},
        {"pow_fraction", [](const Tensor&, const Tensor& p) { return pow(p, 1.7); }},
      },
     .device_int = {
        {"pow_scalar", [](const Tensor& x, const Tensor&) { return pow(x, 3); }, false, false},
      },
     .kernel = {
        {K::pow_scalar, "px", 0, pow_exponent(1)},
        {K::pow_scalar, "ax", 0, pow_exponent(2)},
        {K::pow_scalar, "ax", 0, pow_exponent(3)},
        {K::pow_scalar, "px", 0, pow_exponent(0.5)},
        {K::pow_scalar, "px", 0, pow_exponent(-0.5)},
        {K::pow_scalar, "ax", 0, pow_exponent(-1)},
        {K::pow_scalar, "ax", 0, pow_exponent(-2)},
        {K::pow_scalar, "px", 2, pow_exponent(1.7)},
      }},
    {.name = "pow.rscalar",
     .family = Family::binary,
     .tol = kMath,
     .golden = [](Case& c) { return pow(c.s(0), c.t(1)); },
     .grad = {
        {"pow_scalar_base", "PowBackward2", [] { return In{x({4})}; },
         [](const In& t) { return pow(2.5, t[0]); }},
      }},
    {.name = "atan2",
     .family = Family::binary,
     .tol = kMath,
     .golden = [](Case& c) { return atan2(c.t(0), c.t(1)); },
     .grad = {
        {"atan2", "Atan2Backward0", [] { return In{x({3, 4}), xt({3, 4})}; },
         [](const In& t) { return atan2(t[0], t[1]); }},
        {"atan2_broadcast", "Atan2Backward0", [] { return In{x({3, 1}), pos({4})}; },
         [](const In& t) { return atan2(t[0], t[1]); }},
      },
     .device = {
        {"atan2", [](const Tensor& a, const Tensor& p) { return atan2(a, p - 2); }},
      },
     .kernel = {
        {K::atan2, "aa", 2},
      }},
    {.name = "maximum",
     .family = Family::binary,
     .tol = kZeroTie,
     .golden = [](Case& c) { return maximum(c.t(0), c.t(1)); },
     .grad = {
        {"maximum", "MaximumBackward0", [] { return In{x({3, 4}), xt({3, 4})}; },
         [](const In& t) { return maximum(t[0], t[1]); }},
      },
     .device = {
        {"maximum", [](const Tensor& a, const Tensor& p) { return maximum(a, p); }},
      },
     .device_int = {
        {"maximum", [](const Tensor& x, const Tensor& y) { return maximum(x, y); }},
      },
     .kernel = {
        {K::maximum, "ss", 0},
      }},
    {.name = "minimum",
     .family = Family::binary,
     .tol = kZeroTie,
     .golden = [](Case& c) { return minimum(c.t(0), c.t(1)); },
     .grad = {
        {"minimum_broadcast", "MinimumBackward0", [] { return In{x({3, 1}), x({4})}; },
         [](const In& t) { return minimum(t[0], t[1]); }},
      },
     .device = {
        {"minimum", [](const Tensor& a, const Tensor& p) { return minimum(a, p); }},
      },
     .kernel = {
        {K::minimum, "ss", 0},
      }},
    {.name = "fmax",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return fmax(c.t(0), c.t(1)); },
     .grad = {
        {"fmax", "FmaxBackward0", [] { return In{x({3, 4}), x({4})}; },
         [](const In& t) { return fmax(t[0], t[1]); }},
      },
     .device = {
        {"fmax", [](const Tensor& a, const Tensor& p) { return fmax(a, p); }},
      },
     .kernel = {
        {K::fmax, "ss", 0},
      }},
    {.name = "fmin",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return fmin(c.t(0), c.t(1)); },
     .grad = {
        {"fmin", "FminBackward0", [] { return In{xt({3, 4}), x({3, 4})}; },
         [](const In& t) { return fmin(t[0], t[1]); }},
      },
     .device = {
        {"fmin", [](const Tensor& a, const Tensor& p) { return fmin(a, p); }},
      },
     .device_int = {
        {"fmin", [](const Tensor& x, const Tensor& y) { return fmin(x, y); }},
      },
     .kernel = {
        {K::fmin, "ss", 0},
      }},
    {.name = "lerp.scalar",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return lerp(c.t(0), c.t(1), c.s(2)); },
     .grad = {
        {"lerp_scalar", "LerpBackward0", [] { return In{x({3, 4}), x({4})}; },
         [](const In& t) { return lerp(t[0], t[1], 0.3); }},
      },
     .device = {
        {"lerp_scalar", [](const Tensor& a, const Tensor& p) { return lerp(a, p, 0.75); }},
      },
     .kernel = {
        {K::lerp_scalar, "aa", 0, {.scalar = {0.25}}},
        {K::lerp_scalar, "aa", 0, {.scalar = {0.75}}},
      }},
    {.name = "lerp",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return lerp(c.t(0), c.t(1), c.t(2)); },
     .grad = {
        {"lerp_tensor", "LerpBackward1", [] { return In{x({3, 4}), xt({3, 4}), x({4}, 0, 1)}; },
         [](const In& t) { return lerp(t[0], t[1], t[2]); }},
        {"lerp_0d_weight", "LerpBackward1", [] { return In{x({3}), x({3}), x({})}; },
         [](const In& t) { return lerp(t[0], t[1], t[2]); }},
      },
     .device = {
        {"lerp", [](const Tensor& a, const Tensor& p) { return lerp(a, p, p - 2); }},
      },
     .kernel = {
        {K::lerp, "aaa", 0},
      }},
    {.name = "addcmul",
     .family = Family::binary,
     .tol = kFusedMultiplyAdd,
     .golden = [](Case& c) { return addcmul(c.t(0), c.t(1), c.t(2), c.s("value", 1)); },
     .grad = {
        {"addcmul", "AddcmulBackward0", [] { return In{x({4}), x({3, 4}), xt({3, 4})}; },
         [](const In& t) { return addcmul(t[0], t[1], t[2], 0.5); }},
        {"addcmul_constant", "AddcmulBackward0", [] { return In{x({3, 4}), c({3, 4}), x({4})}; },
         [](const In& t) { return addcmul(t[0], t[1], t[2]); }},
      },
     .device = {
        {"addcmul", [](const Tensor& a, const Tensor& p) { return addcmul(a, p, a, 0.5); }},
      },
     .kernel = {
        {K::addcmul, "ahh", 0, kAlpha2},
      }},
    {.name = "addcdiv",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return addcdiv(c.t(0), c.t(1), c.t(2), c.s("value", 1)); },
     .grad = {
        {"addcdiv", "AddcdivBackward0", [] { return In{x({3, 4}), x({3, 4}), pos({4})}; },
         [](const In& t) { return addcdiv(t[0], t[1], t[2], -2); }},
      },
     .device = {
        {"addcdiv", [](const Tensor& a, const Tensor& p) { return addcdiv(a, a, p, 0.5); }},
      },
     .kernel = {
        {K::addcdiv, "aan", 0, kAlpha2},
      }},
    {.name = "hypot",
     .family = Family::binary,
     .tol = kMath,
     .golden = [](Case& c) { return hypot(c.t(0), c.t(1)); },
     .grad = {
        {"hypot", "HypotBackward0", [] { return In{pos({3, 4}), x({4})}; },
         [](const In& t) { return hypot(t[0], t[1]); }},
      },
     .device = {
        {"hypot", [](const Tensor& a, const Tensor& p) { return hypot(a, p); }},
      },
     .kernel = {
        {K::hypot, "aa", 0},
      }},
    {.name = "xlogy",
     .family = Family::binary,
     .tol = kMath,
     .golden = [](Case& c) { return xlogy(c.t(0), c.t(1)); },
     .grad = {
        {"xlogy", "XlogyBackward0", [] { return In{x({3, 4}), pos({4})}; },
         [](const In& t) { return xlogy(t[0], t[1]); }},
      },
     .device = {
        {"xlogy", [](const Tensor& a, const Tensor& p) { return xlogy(a, p); }},
      },
     .kernel = {
        {K::xlogy, "sp", 0},
      }},
    // unary
    {.name = "neg",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) { return neg(c.t(0)); },
     .grad = {
        U(neg, "NegBackward0", xt({3, 4}), -t[0]),
        U(neg_0d, "NegBackward0", x({}), t[0].neg()),
      },
     .device = {
        {"neg", [](const Tensor& a, const Tensor&) { return neg(a); }},
      },
     .device_int = {
        {"neg", [](const Tensor& x, const Tensor&) { return neg(x); }, false, false},
      },
     .kernel = {
        {K::neg, "s", 0},
      }},
    {.name = "abs",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) { return abs(c.t(0)); },
     .grad = {
        U(abs, "AbsBackward0", away({3, 4}), t[0].abs()),
      },
     .device = {
        {"abs", [](const Tensor& a, const Tensor&) { return abs(a); }},
      },
     .device_int = {
        {"abs", [](const Tensor& x, const Tensor&) { return abs(x); }, false, false},
      },
     .kernel = {
        {K::abs, "s", 0},
      }},
    {.name = "sign",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) { return sign(c.t(0)); },
     .grad = {
        U(sign, "SignBackward0", away({3, 4}), t[0].sign()),
      },
     .device = {
        {"sign", [](const Tensor& a, const Tensor&) { return sign(a); }},
      },
     .device_int = {
        {"sign", [](const Tensor& x, const Tensor&) { return sign(x); }},
      },
     .kernel = {
        {K::sign, "s", 0},
      }},
    {.name = "sqrt",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) { return sqrt(c.t(0)); },
     .grad = {
        U(sqrt, "SqrtBackward0", pos({3, 4}), t[0].sqrt()),
      },
     .device = {
        {"sqrt", [](const Tensor&, const Tensor& p) { return sqrt(p); }},
      },
     .kernel = {
        {K::sqrt, "p", 0},
      }},
    {.name = "rsqrt",
     .family = Family::unary,
     .tol = kRound,
     .golden = [](Case& c) { return rsqrt(c.t(0)); },
     .grad = {
        U(rsqrt, "RsqrtBackward0", pos({4}), t[0].rsqrt()),
      },
     .device = {
        {"rsqrt", [](const Tensor&, const Tensor& p) { return rsqrt(p); }},
      },
     .kernel = {
        {K::rsqrt, "p", 0},
      }},
    {.name = "square",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) { return square(c.t(0)); },
     .grad = {
        U(square, "PowBackward0", xt({3, 4}), t[0].square()),
      },
     .device = {
        {"square", [](const Tensor& a, const Tensor&) { return square(a); }},
      },
     .kernel = {
        {K::square, "s", 0},
      }},
    {.name = "exp",
     .family = Family::unary,
     .tol = kMath,
     .golden = [](Case& c) { return exp(c.t(0)); },
     .grad = {
        U(exp, "ExpBackward0", xt({3, 4}), t[0].exp()),
        U(exp_0d, "ExpBackward0", x({}), exp(t[0])),
      },
     .device = {
        {"exp", [](const Tensor& a, const Tensor&) { return exp(a); }},
      },
     .kernel = {
        {K::exp, "a", 4},
      },
     .level = [](const Tensor& a) { return a.exp(); },
     .level_dtypes = kLevelAll},
    {.name = "exp2",
     .family = Family::unary,
     .tol = kMath,
     .golden = [](Case& c) { return exp2(c.t(0)); },
     .grad = {
        U(exp2, "Exp2Backward0", x({5}), t[0].exp2()),
      },
     .device = {
        {"exp2", [](const Tensor& a, const Tensor&) { return exp2(a); }},
      },
     .kernel = {
        {K::exp2, "a", 2},
      }},
    {.name = "expm1",
     .family = Family::unary,
     .tol = kMath,
     .golden = [](Case& c) { return expm1(c.t(0)); },
     .grad = {
        U(expm1, "Expm1Backward0", x({5}), t[0].expm1()),
      },
     .device = {
        {"expm1", [](const Tensor& a, const Tensor&) { return expm1(a); }},
      },
     .kernel = {
        {K::expm1, "a", 2},
      }},
    {.name = "log",
     .family = Family::unary,
     .tol = kMath,
     .golden = [](Case& c) { return log(c.t(0)); },
     .grad = {
        U(log, "LogBackward0", pos({3, 4}), t[0].log()),
      },
     .device = {
        {"log", [](const Tensor&, const Tensor& p) { return log(p); }},
      },
     .kernel = {
        {K::log, "p", 2},
      },
     .level = [](const Tensor& a) { return a.abs().log(); },
     .level_dtypes = {kFloat32}},
    {.name = "log2",
     .family = Family::unary,
     .tol = kMath,
     .golden = [](Case& c) { return log2(c.t(0)); },
     .grad = {
        U(log2, "Log2Backward0", pos({5}), t[0].log2()),
      },
     .device = {
        {"log2", [](const Tensor&, const Tensor& p) { return log2(p); }},
      },
     .kernel = {
        {K::log2, "p", 2},
      }},
    {.name = "log10",
     .family = Family::unary,
     .tol = kMath,
     .golden = [](Case& c) { return log10(c.t(0)); },
     .grad = {
        U(log10, "Log10Backward0", pos({5}), t[0].log10()),
      },
     .device = {
        {"log10", [](const Tensor&, const Tensor& p) { return log10(p); }},
      },
     .kernel = {
        {K::log10, "p", 2},
      }},
    {.name = "log1p",
     .family = Family::unary,
     .tol = kMath,
     .golden = [](Case& c) { return log1p(c.t(0)); },
     .grad = {
        U(log1p, "Log1PBackward0", pos({5}), t[0].log1p()),
      },
     .device = {
        {"log1p", [](const Tensor&, const Tensor& p) { return log1p(p); }},
      },
     .kernel = {
        {K::log1p, "p", 2},
      }},
    {.name = "sin",
     .family = Family::unary,
     .tol = kMath,
     .golden = [](Case& c) { return sin(c.t(0)); },
     .grad = {
        U(sin, "SinBackward0", xt({3, 4}), t[0].sin()),
      },
     .device = {
        {"sin", [](const Tensor& a, const Tensor&) { return sin(a); }},
      },
     .kernel = {
        {K::sin, "a", 2},
      }},
    {.name = "cos",
     .family = Family::unary,
     .tol = kMath,
     .golden = [](Case& c) { return cos(c.t(0)); },
     .grad = {
        U(cos, "CosBackward0", x({5}), t[0].cos()),
      },
     .device = {
        {"cos", [](const Tensor& a, const Tensor&) { return cos(a); }},
      },
     .kernel = {
        {K::cos, "a", 2},
      }},
    {.name = "tan",
     .family = Family::unary,
     .tol = kMath,
     .golden = [](Case& c) { return tan(c.t(0)); },
     .grad = {
        U(tan, "TanBackward0", x({5}, -1, 1), t[0].tan()),
      },
     .device = {
        {"tan", [](const Tensor& a, const Tensor&) { return tan(a * 0.4); }},
      },
     .kernel = {
        {K::tan, "u", 2},
      }},
    {.name = "asin",
     .family = Family::unary,
     .tol = kMath,
     .golden = [](Case& c) { return asin(c.t(0)); },
     .grad = {
        U(asin, "AsinBackward0", x({5}, -0.9, 0.9), t[0].asin()),
      },
     .device = {
        {"asin", [](const Tensor& a, const Tensor&) { return asin(a * 0.3); }},
      },
     .kernel = {
        {K::asin, "u", 2},
      }},
    {.name = "acos",
     .family = Family::unary,
     .tol = kMath,
     .golden = [](Case& c) { return acos(c.t(0)); },
     .grad = {
        U(acos, "AcosBackward0", x({5}, -0.9, 0.9), t[0].acos()),
      },
     .device = {
        {"acos", [](const Tensor& a, const Tensor&) { return acos(a * 0.3); }},
      },
     .kernel = {
        {K::acos, "u", 2},
      }},
    {.name = "atan",
     .family = Family::unary,
     .tol = kMath,
     .golden = [](Case& c) { return atan(c.t(0)); },
     .grad = {
        U(atan, "AtanBackward0", x({5}), t[0].atan()),
      },
     .device = {
        {"atan", [](const Tensor& a, const Tensor&) { return atan(a); }},
      },
     .kernel = {
        {K::atan, "a", 2},
      }},
    {.name = "sinh",
     .family = Family::unary,
     .tol = kMath,
     .golden = [](Case& c) { return sinh(c.t(0)); },
     .grad = {
        U(sinh, "SinhBackward0", x({5}), t[0].sinh()),
      },
     .device = {
        {"sinh", [](const Tensor& a, const Tensor&) { return sinh(a); }},
      },
     .kernel = {
        {K::sinh, "a", 0},
      }},
    {.name = "cosh",
     .family = Family::unary,
     .tol = kMath,
     .golden = [](Case& c) { return cosh(c.t(0)); },
     .grad = {
        U(cosh, "CoshBackward0", x({5}), t[0].cosh()),
      },
     .device = {
        {"cosh", [](const Tensor& a, const Tensor&) { return cosh(a); }},
      },
     .kernel = {
        {K::cosh, "a", 0},
      }},
    {.name = "tanh",
     .family = Family::unary,
     .tol = kMath,
     .golden = [](Case& c) { return tanh(c.t(0)); },
     .grad = {
        U(tanh, "TanhBackward0", xt({3, 4}), t[0].tanh()),
      },
     .device = {
        {"tanh", [](const Tensor& a, const Tensor&) { return tanh(a); }},
      },
     .kernel = {
        {K::tanh, "a", 2},
      },
     .level = [](const Tensor& a) { return a.tanh(); },
     .level_dtypes = {kFloat32, kFloat16, kBFloat16}},
    {.name = "erf",
     .family = Family::unary,
     .tol = kMath,
     .golden = [](Case& c) { return erf(c.t(0)); },
     .grad = {
        U(erf, "ErfBackward0", x({5}), t[0].erf()),
      },
     .device = {
        {"erf", [](const Tensor& a, const Tensor&) { return erf(a); }},
      },
     .kernel = {
        {K::erf, "a", 4},
      },
     .level = [](const Tensor& a) { return a.erf(); },
     .level_dtypes = {kFloat32}},
    {.name = "erfc",
     .family = Family::unary,
     .tol = kMath,
     .golden = [](Case& c) { return erfc(c.t(0)); },
     .grad = {
        U(erfc, "ErfcBackward0", x({5}), t[0].erfc()),
      },
     .device = {
        {"erfc", [](const Tensor& a, const Tensor&) { return erfc(a); }},
      },
     .kernel = {
        {K::erfc, "a", 2},
      }},
    {.name = "floor",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) { return floor(c.t(0)); },
     .grad = {
        U(floor, "FloorBackward0", away({5}, 0.5), t[0].floor()),
      },
     .device = {
        {"floor", [](const Tensor& a, const Tensor&) { return floor(a * 2); }},
      },
     .kernel = {
        {K::floor, "s", 0},
      }},
    {.name = "ceil",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) { return ceil(c.t(0)); },
     .grad = {
        U(ceil, "CeilBackward0", away({5}, 0.5), t[0].ceil()),
      },
     .device = {
        {"ceil", [](const Tensor& a, const Tensor&) { return ceil(a * 2); }},
      },
     .kernel = {
        {K::ceil, "s", 0},
      }},
    {.name = "round",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) { return round(c.t(0), c.i("decimals", 0)); },
     .grad = {
        U(round, "RoundBackward0", away({5}, 0.25), t[0].round()),
        U(round_decimals, "RoundBackward1", x({5}), t[0].round(3)),
      },
     .device = {
        {"round", [](const Tensor& a, const Tensor&) { return round(a * 2); }},
        {"round_decimals", [](const Tensor& a, const Tensor&) { return round(a, 1); }},
      },
     .kernel = {
        {K::round, "h", 0},
        {K::round_decimals, "a", 0, {.integer = 2}},
        {K::round_decimals, "a", 0, {.integer = -1}},
      }},
    {.name = "trunc",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) { return trunc(c.t(0)); },
     .grad = {
        U(trunc, "TruncBackward0", away({5}, 0.5), t[0].trunc()),
      },
     .device = {
        {"trunc", [](const Tensor& a, const Tensor&) { return trunc(a * 2); }},
      },
     .kernel = {
        {K::trunc, "s", 0},
      }},
    {.name = "frac",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) { return frac(c.t(0)); },
     .grad = {
        U(frac, "FracBackward0", away({5}, 0.5), t[0].frac()),
      },
     .device = {
        {"frac", [](const Tensor& a, const Tensor&) { return frac(a * 2); }},
      },
     .kernel = {
        {K::frac, "a", 0},
      }},
    {.name = "reciprocal",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) { return reciprocal(c.t(0)); },
     .grad = {
        U(reciprocal, "ReciprocalBackward0", pos({3, 4}), t[0].reciprocal()),
      },
     .device = {
        {"reciprocal", [](const Tensor&, const Tensor& p) { return reciprocal(p); }},
      },
     .kernel = {
        {K::reciprocal, "s", 0},
      }},
    {.name = "nan_to_num",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) {
       return nan_to_num(c.t(0), c.od("nan"), c.od("posinf"), c.od("neginf")); },
     .grad = {
        U(nan_to_num, "NanToNumBackward0", x({5}), t[0].nan_to_num()),
      },
     .device = {
        {"nan_to_num", [](const Tensor& a, const Tensor& p) { return nan_to_num(a / (p - 1.5)); }},
      },
     .kernel = {
        {K::nan_to_num, "s", 0, reals(0.5, 100, -100)},
      }},
    {.name = "clamp",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) { return clamp(c.t(0), c.os("min"), c.os("max")); },
     .grad = {
        U(clamp, "ClampBackward1", away({3, 4}, 0.05), t[0].clamp(-0.5, 0.5)),
        U(clamp_min_only, "ClampBackward1", away({3, 4}), t[0].clamp(0.0)),
        U(clamp_max_only, "ClampBackward1", away({3, 4}), clamp(t[0], std::nullopt, 0.0)),
      },
     .device = {
        {"clamp", [](const Tensor& a, const Tensor&) { return clamp(a, -1.5, 2); }},
      },
     .device_int = {
        {"clamp", [](const Tensor& x, const Tensor&) { return clamp(x, -7, 9); }, false, false},
      },
     .kernel = {
        {K::clamp, "s", 0, {.scalar = {Scalar(-1.5), Scalar(2)}}},
        {K::clamp, "s", 0, {.scalar = {std::nullopt, Scalar(1)}}},
      }},
    {.name = "clamp.tensor",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) { return clamp(c.t(0), c.t(1), c.t(2)); },
     .grad = {
        {"clamp_tensor", "ClampBackward0",
         [] {
           return In{x({3, 4}), (c({4}) - 1.2).requires_grad_(), (c({3, 1}) + 1.2).requires_grad_()};
         },
         [](const In& t) { return t[0].clamp(t[1], t[2]); }},
      },
     .device = {
        {"clamp_tensor", [](const Tensor& a, const Tensor& p) { return clamp(a, -p, p); }},
      },
     .kernel = {
        {K::clamp_tensor, "saa", 0},
      }},
    {.name = "clamp_min",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) { return clamp_min(c.t(0), c.s(1)); },
     .grad = {
        U(clamp_min, "ClampMinBackward0", away({3, 4}), t[0].clamp_min(0.0)),
      }},
    {.name = "clamp_max",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) { return clamp_max(c.t(0), c.s(1)); },
     .grad = {
        U(clamp_max, "ClampMaxBackward0", away({3, 4}), t[0].clamp_max(0.0)),
      }},
    {.name = "clip",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) { return clip(c.t(0), c.os("min"), c.os("max")); }},
    // activations
    {.name = "sigmoid",
     .family = Family::activation,
     .tol = kMath,
     .golden = [](Case& c) { return sigmoid(c.t(0)); },
     .grad = {
        U(sigmoid, "SigmoidBackward0", xt({3, 4}), t[0].sigmoid()),
        U(sigmoid_0d, "SigmoidBackward0", x({}), sigmoid(t[0])),
      },
     .device = {
        {"sigmoid", [](const Tensor& a, const Tensor&) { return sigmoid(a); }},
      },
     .kernel = {
        {K::sigmoid, "a", 4},
      },
     .level = [](const Tensor& a) { return sigmoid(a); },
     .level_dtypes = {kFloat32, kFloat64}},
    {.name = "logit",
     .family = Family::activation,
     .tol = kMath,
     .golden = [](Case& c) { return logit(c.t(0), c.od("eps")); },
     .grad = {
        U(logit, "LogitBackward0", x({5}, 0.1, 0.9), t[0].logit()),
        U(logit_eps, "LogitBackward0", x({6}, 0.1, 0.9), t[0].logit(0.3)),
      },
     .device = {
        {"logit", [](const Tensor&, const Tensor& p) { return logit(p / 4); }},
        {"logit_eps", [](const Tensor&, const Tensor& p) { return logit(p / 4, 0.2); }},
      },
     .kernel = {
        {K::logit, "u", 0, reals(0.2, 0.8, 0, true)},
        {K::logit, "u", 0},
      }},
    {.name = "relu",
     .family = Family::activation,
     .tol = kExact,
     .golden = [](Case& c) { return relu(c.t(0)); },
     .grad = {
        U(relu, "ReluBackward0", away({3, 4}), t[0].relu()),
      },
     .device = {
        {"relu", [](const Tensor& a, const Tensor&) { return relu(a); }},
      },
     .device_int = {
        {"relu", [](const Tensor& x, const Tensor&) { return relu(x); }, false, false},
      },
     .kernel = {
        {K::relu, "s", 0},
      }},
    {.name = "relu6",
     .family = Family::activation,
     .tol = kExact,
     .golden = [](Case& c) { return relu6(c.t(0)); },
     .grad = {
        U(relu6, "HardtanhBackward0", away({3, 4}, 3), relu6(t[0] * 2)),
      }},
    {.name = "leaky_relu",
     .family = Family::activation,
     .tol = kExact,
     .golden = [](Case& c) { return leaky_relu(c.t(0), c.d("negative_slope", 0.01)); },
     .grad = {
        U(leaky_relu, "LeakyReluBackward0", away({3, 4}), leaky_relu(t[0], 0.2)),
      },
     .device = {
        {"leaky_relu", [](const Tensor& a, const Tensor&) { return leaky_relu(a, 0.1); }},
      },
     .kernel = {
        {K::leaky_relu, "s", 0, reals(0.01)},
      }},
    {.name = "elu",
     .family = Family::activation,
     .tol = kExpMinus1,
     .golden = [](Case& c) {
       return elu(c.t(0), c.d("alpha", 1), c.d("scale", 1), c.d("input_scale", 1)); },
     .grad = {
        U(elu, "EluBackward0", away({3, 4}), elu(t[0], 1.3)),
        U(elu_scaled, "EluBackward0", away({3, 4}), elu(t[0], 1.3, 0.7, 1.5)),
      },
     .device = {
        // elu's exp(x) - 1 cancels near 0: the two sides' exp differ there by more than the
        // relative tolerance, so each branch is taken away from it.
        {"elu", [](const Tensor& a, const Tensor& p) { return elu(where(a > 0, a, -p)); }},
      },
     .kernel = {
        {K::elu, "a", 4, reals(1.0507 * 1.6733, 1.0507, 1)},
      }},
    {.name = "selu",
     .family = Family::activation,
     .tol = kExpMinus1,
     .golden = [](Case& c) { return selu(c.t(0)); },
     .grad = {
        U(selu, "EluBackward0", xt({3, 4}), selu(t[0])),
      },
     .device = {
        {"selu", [](const Tensor&, const Tensor& p) { return selu(-p); }},
      }},
    {.name = "gelu",
     .family = Family::activation,
     .tol = kGelu,
     .golden = [](Case& c) { return gelu(c.t(0), {c.str("approximate").value_or("none")}); },
     .grad = {
        U(gelu, "GeluBackward0", xt({3, 4}), gelu(t[0])),
        U(gelu_tanh, "GeluBackward0", x({5}), gelu(t[0], {"tanh"})),
      },
     .device = {
        {"gelu", [](const Tensor& a, const Tensor&) { return gelu(a); }},
        {"gelu_tanh", [](const Tensor& a, const Tensor&) { return gelu(a, {"tanh"}); }},
      },
     .kernel = {
        {K::gelu, "a", 4},
        {K::gelu_tanh, "a", 4},
      },
     .level = [](const Tensor& a) { return gelu(a); },
     .level_dtypes = {kFloat32, kFloat16, kBFloat16}},
    {.name = "silu",
     .family = Family::activation,
     .tol = kMath,
     .golden = [](Case& c) { return silu(c.t(0)); },
     .grad = {
        U(silu, "SiluBackward0", xt({3, 4}), silu(t[0])),
      },
     .device = {
        {"silu", [](const Tensor& a, const Tensor&) { return silu(a); }},
      },
     .kernel = {
        {K::silu, "a", 4},
      }},
    {.name = "mish",
     .family = Family::activation,
     .tol = kMath,
     .golden = [](Case& c) { return mish(c.t(0)); },
     .grad = {
        U(mish, "MishBackward0", x({5}), mish(t[0])),
      },
     .device = {
        {"mish", [](const Tensor& a, const Tensor&) { return mish(a); }},
      },
     .kernel = {
        {K::mish, "a", 4},
      }},
    {.name = "softplus",
     .family = Family::activation,
     .tol = kMath,
     .golden = [](Case& c) { return softplus(c.t(0), c.d("beta", 1), c.d("threshold", 20)); },
     .grad = {
        U(softplus, "SoftplusBackward0", x({5}), softplus(t[0])),
        U(softplus_beta_threshold, "SoftplusBackward0", away({3, 4}, 0.5), softplus(t[0], 2, 1.5)),
      },
     .device = {
        {"softplus", [](const Tensor& a, const Tensor&) { return softplus(a, 2, 1); }},
      },
     .kernel = {
        {K::softplus, "a", 2, reals(1, 20)},
        {K::softplus, "a", 2, reals(2, 1)},
      }},
    {.name = "hardtanh",
     .family = Family::activation,
     .tol = kExact,
     .golden = [](Case& c) { return hardtanh(c.t(0), c.d("min_val", -1), c.d("max_val", 1)); },
     .grad = {
        U(hardtanh, "HardtanhBackward0", away({3, 4}), hardtanh(t[0], -0.5, 1.0)),
      },
     .device = {
        {"hardtanh", [](const Tensor& a, const Tensor&) { return hardtanh(a); }},
      },
     .kernel = {
        {K::hardtanh, "s", 0, reals(-1, 2)},
      }},
    {.name = "hardsigmoid",
     .family = Family::activation,
     .tol = kExact,
     .golden = [](Case& c) { return hardsigmoid(c.t(0)); },
     .grad = {
        U(hardsigmoid, "HardsigmoidBackward0", away({3, 4}), hardsigmoid(t[0] * 2)),
      },
     .device = {
        {"hardsigmoid", [](const Tensor& a, const Tensor&) { return hardsigmoid(a); }},
      },
     .kernel = {
        {K::hardsigmoid, "s", 0},
      }},
    {.name = "hardswish",
     .family = Family::activation,
     .tol = kExact,
     .golden = [](Case& c) { return hardswish(c.t(0)); },
     .grad = {
        U(hardswish, "HardswishBackward0", away({3, 4}), hardswish(t[0] * 2)),
      },
     .device = {
        {"hardswish", [](const Tensor& a, const Tensor&) { return hardswish(a); }},
      },
     .kernel = {
        {K::hardswish, "a", 0},
      }},
    {.name = "hardshrink",
     .family = Family::activation,
     .tol = kExact,
     .golden = [](Case& c) { return hardshrink(c.t(0), c.d("lambd", 0.5)); },
     .grad = {
        U(hardshrink, "HardshrinkBackward0", x({3, 4}), hardshrink(t[0])),
        U(hardshrink_lambd, "HardshrinkBackward0", xt({3, 4}), hardshrink(t[0], 1.25)),
      },
     .device = {
        {"hardshrink", [](const Tensor& a, const Tensor&) { return hardshrink(a, 1.5); }},
      },
     .kernel = {
        {K::hardshrink, "s", 0, reals(0.5)},
      }},
    // comparison and logic
    {.name = "eq",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return eq(c.t(0), c.t(1)); },
     .device = {
        {"eq", [](const Tensor& a, const Tensor& p) { return eq(round(a), round(p)); }},
      },
     .device_int = {
        {"eq", [](const Tensor& x, const Tensor& y) { return eq(x, y); }},
      },
     .kernel = {
        {K::eq, "hh", 0},
        {K::eq, "ss", 0},
      }},
    {.name = "ne",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return ne(c.t(0), c.t(1)); },
     .device = {
        {"ne", [](const Tensor& a, const Tensor& p) { return ne(round(a), round(p)); }},
      },
     .kernel = {
        {K::ne, "hh", 0},
      }},
    {.name = "lt",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return lt(c.t(0), c.t(1)); },
     .device = {
        {"lt", [](const Tensor& a, const Tensor& p) { return lt(a, p); }},
      },
     .device_int = {
        {"lt", [](const Tensor& x, const Tensor& y) { return lt(x, y); }},
      },
     .kernel = {
        {K::lt, "sa", 0},
      }},
    {.name = "le",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return le(c.t(0), c.t(1)); },
     .device = {
        {"le", [](const Tensor& a, const Tensor& p) { return le(a, p); }},
      },
     .kernel = {
        {K::le, "hh", 0},
      }},
    {.name = "gt",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return gt(c.t(0), c.t(1)); },
     .device = {
        {"gt", [](const Tensor& a, const Tensor&) { return a > 0; }},
      },
     .kernel = {
        {K::gt, "sa", 0},
      }},
    {.name = "ge",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return ge(c.t(0), c.t(1)); },
     .device = {
        {"ge", [](const Tensor& a, const Tensor& p) { return ge(a, p); }},
      },
     .device_int = {
        {"ge", [](const Tensor& x, const Tensor& y) { return ge(x, y); }},
      },
     .kernel = {
        {K::ge, "hh", 0},
      }},
    {.name = "eq.scalar",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).eq(c.s(1)); }},
    {.name = "ne.scalar",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).ne(c.s(1)); }},
    {.name = "lt.scalar",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).lt(c.s(1)); }},
    {.name = "le.scalar",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).le(c.s(1)); }},
    {.name = "gt.scalar",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).gt(c.s(1)); }},
    {.name = "ge.scalar",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).ge(c.s(1)); }},
    {.name = "logical_and",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return logical_and(c.t(0), c.t(1)); },
     .device = {
        {"logical_and", [](const Tensor& a, const Tensor& p) { return logical_and(a > 0, p > 2); }},
      },
     .kernel = {
        {K::logical_and, "bb", 0},
      }},
    {.name = "logical_or",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return logical_or(c.t(0), c.t(1)); },
     .device = {
        {"logical_or", [](const Tensor& a, const Tensor& p) { return logical_or(a > 0, p > 2); }},
      },
     .kernel = {
        {K::logical_or, "bb", 0},
      }},
    {.name = "logical_xor",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return logical_xor(c.t(0), c.t(1)); },
     .device = {
        {"logical_xor", [](const Tensor& a, const Tensor& p) { return logical_xor(a > 0, p > 2); }},
      },
     .kernel = {
        {K::logical_xor, "bb", 0},
      }},
    {.name = "logical_not",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return logical_not(c.t(0)); },
     .device = {
        {"logical_not", [](const Tensor& a, const Tensor&) { return logical_not(a > 0); }},
      },
     .kernel = {
        {K::logical_not, "b", 0},
      }},
    {.name = "bitwise_and",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return bitwise_and(c.t(0), c.t(1)); },
     .device_int = {
        {"bitwise_and", [](const Tensor& x, const Tensor& y) { return bitwise_and(x, y); }},
      },
     .kernel = {
        {K::bitwise_and, "aa", 0},
      }},
    {.name = "bitwise_or",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return bitwise_or(c.t(0), c.t(1)); },
     .kernel = {
        {K::bitwise_or, "aa", 0},
      }},
    {.name = "bitwise_xor",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return bitwise_xor(c.t(0), c.t(1)); },
     .device_int = {
        {"bitwise_xor", [](const Tensor& x, const Tensor& y) { return bitwise_xor(x, y); }},
      },
     .kernel = {
        {K::bitwise_xor, "aa", 0},
      }},
    {.name = "bitwise_not",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return bitwise_not(c.t(0)); },
     .device_int = {
        {"bitwise_not", [](const Tensor& x, const Tensor&) { return bitwise_not(x); }},
      },
     .kernel = {
        {K::bitwise_not, "a", 0},
      }},
    {.name = "isnan",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return isnan(c.t(0)); },
     .device = {
        {"isnan", [](const Tensor& a, const Tensor&) { return isnan(log(a)); }},
      },
     .device_int = {
        {"isnan", [](const Tensor& x, const Tensor&) { return isnan(x); }},
      },
     .kernel = {
        {K::isnan, "s", 0},
      }},
    {.name = "isinf",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return isinf(c.t(0)); },
     .device = {
        {"isinf", [](const Tensor& a, const Tensor&) { return isinf(reciprocal(round(a))); }},
      },
     .kernel = {
        {K::isinf, "s", 0},
      }},
    {.name = "isfinite",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return isfinite(c.t(0)); },
     .device = {
        {"isfinite", [](const Tensor& a, const Tensor&) { return isfinite(log(a)); }},
      },
     .kernel = {
        {K::isfinite, "s", 0},
      }},
    {.name = "where",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return where(c.t(0), c.t(1), c.t(2)); },
     .grad = {
        {"where", "WhereBackward0", [] { return In{x({3, 4}), xt({3, 4})}; },
         [](const In& t) { return where(mask34(), t[0], t[1]); }},
        {"where_broadcast", "WhereBackward0", [] { return In{x({3, 1}), x({4})}; },
         [](const In& t) { return where(mask34(), t[0], t[1]); }},
        {"where_0d", "WhereBackward0", [] { return In{x({}), x({3, 4})}; },
         [](const In& t) { return where(mask34(), t[0], t[1]); }},
      },
     .device = {
        {"where", [](const Tensor& a, const Tensor& p) { return where(a > 0, a, p); }},
      },
     .device_int = {
        {"where", [](const Tensor& x, const Tensor& y) { return where(x > y, x, y); }},
      },
     .kernel = {
        {K::where, "bss", 0},
      }},
    {.name = "where.scalar_other",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return where(c.t(0), c.t(1), c.s(2)); },
     .grad = {
        {"where_scalar", "WhereBackward0", [] { return In{x({3, 4})}; },
         [](const In& t) { return where(mask34(), t[0], 2.0); }},
      }},
    {.name = "where.scalar_self",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return where(c.t(0), c.s(1), c.t(2)); }},
    {.name = "where.scalars",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return where(c.t(0), c.s(1), c.s(2)); }},
    {.name = "Tensor.where",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).where(c.t(1), c.t(2)); }},
    {.name = "masked_fill",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return masked_fill(c.t(0), c.t(1), c.s(2)); },
     .grad = {
        {"masked_fill", "MaskedFillBackward0", [] { return In{xt({3, 4})}; },
         [](const In& t) { return t[0].masked_fill(mask34(), 1.5); }},
        {"masked_fill_broadcast", "MaskedFillBackward0", [] { return In{x({4})}; },
         [](const In& t) { return t[0].masked_fill(mask34(), 1.5); }},
      },
     .device = {
        {"masked_fill", [](const Tensor& a, const Tensor& p) { return a.masked_fill(p > 2, -1.5); }},
      },
     .kernel = {
        {K::masked_fill, "sb", 0, kValue},
      }},
    {.name = "masked_fill.tensor",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).masked_fill(c.t(1), c.t(2)); },
     .grad = {
        {"masked_fill_tensor", "MaskedFillBackward1", [] { return In{x({3, 4}), x({})}; },
         [](const In& t) { return t[0].masked_fill(mask34(), t[1]); }},
      }},
    {.name = "isclose",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) {
       return isclose(c.t(0), c.t(1), c.d("rtol", 1e-5), c.d("atol", 1e-8), c.b("equal_nan", false)); },
     .device = {
        {"isclose", [](const Tensor& a, const Tensor& p) { return isclose(a, p, 0.5, 0.1); }},
      },
     .kernel = {
        {K::isclose, "sc", 0, reals(1e-2, 1e-3, 0, true)},
        {K::isclose, "sc", 0, reals(0, 0)},
      }},
    {.name = "allclose",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) {
       return tensor(allclose(c.t(0), c.t(1), c.d("rtol", 1e-5), c.d("atol", 1e-8), c.b("equal_nan", false))); }},
    // C++ operators
    {.name = "a+b",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) + c.t(1); }},
    {.name = "a-b",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) - c.t(1); }},
    {.name = "a*b",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) * c.t(1); }},
    {.name = "a/b",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) / c.t(1); }},
    {.name = "a%b",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) % c.t(1); }},
    {.name = "a+s",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) + c.s(1); }},
    {.name = "a-s",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) - c.s(1); }},
    {.name = "a*s",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) * c.s(1); }},
    {.name = "a/s",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) / c.s(1); }},
    {.name = "a%s",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) % c.s(1); }},
    {.name = "s+a",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.s(0) + c.t(1); }},
    {.name = "s-a",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.s(0) - c.t(1); }},
    {.name = "s*a",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.s(0) * c.t(1); }},
    {.name = "s/a",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.s(0) / c.t(1); }},
    {.name = "s%a",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.s(0) % c.t(1); }},
    {.name = "-a",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return -c.t(0); }},
    {.name = "!a",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return !c.t(0); }},
    {.name = "~a",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return ~c.t(0); }},
    {.name = "a==b",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) == c.t(1); }},
    {.name = "a!=b",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) != c.t(1); }},
    {.name = "a<b",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) < c.t(1); }},
    {.name = "a<=b",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) <= c.t(1); }},
    {.name = "a>b",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) > c.t(1); }},
    {.name = "a>=b",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) >= c.t(1); }},
    {.name = "a==s",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) == c.s(1); }},
    {.name = "s==a",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.s(0) == c.t(1); }},
    {.name = "a<s",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) < c.s(1); }},
    {.name = "s<a",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.s(0) < c.t(1); }},
    {.name = "s<=a",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.s(0) <= c.t(1); }},
    {.name = "s>a",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.s(0) > c.t(1); }},
    {.name = "s>=a",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.s(0) >= c.t(1); }},
    {.name = "s!=a",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.s(0) != c.t(1); }},
    {.name = "a!=s",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) != c.s(1); }},
    {.name = "a<=s",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) <= c.s(1); }},
    {.name = "a>s",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) > c.s(1); }},
    {.name = "a>=s",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) >= c.s(1); }},
    {.name = "a&b",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) & c.t(1); }},
    {.name = "a|b",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) | c.t(1); }},
    {.name = "a^b",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) ^ c.t(1); }},
    {.name = "a&s",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) & c.s(1); }},
    {.name = "a|s",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) | c.s(1); }},
    {.name = "a^s",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) ^ c.s(1); }},
    {.name = "a+=b",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) += c.t(1); }},
    {.name = "a+=s",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) += c.s(1); }},
    {.name = "a-=b",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) -= c.t(1); }},
    {.name = "a-=s",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) -= c.s(1); }},
    {.name = "a*=b",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) *= c.t(1); }},
    {.name = "a*=s",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) *= c.s(1); }},
    {.name = "a/=b",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) /= c.t(1); }},
    {.name = "a/=s",
     .family = Family::operators,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0) /= c.s(1); }},
    // in place
    {.name = "add_",
     .family = Family::binary,
     .tol = kFusedMultiplyAdd,
     .golden = [](Case& c) { return c.t(0).add_(c.t(1), c.s("alpha", 1)); },
     .grad = {
        {"add_inplace", "AddBackward0", [] { return In{x({3, 4}), x({4})}; },
         [](const In& t) { Tensor a = t[0] * 1; a.add_(t[1], 2); return a; }},
      }},
    {.name = "add_.scalar",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).add_(c.s(1), c.s("alpha", 1)); }},
    {.name = "sub_",
     .family = Family::binary,
     .tol = kFusedMultiplyAdd,
     .golden = [](Case& c) { return c.t(0).sub_(c.t(1), c.s("alpha", 1)); }},
    {.name = "sub_.scalar",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).sub_(c.s(1), c.s("alpha", 1)); }},
    {.name = "mul_",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).mul_(c.t(1)); },
     .grad = {
        {"mul_inplace", "MulBackward0", [] { return In{x({3, 4}), x({3, 4})}; },
         [](const In& t) { Tensor a = t[0] * 1; a.mul_(t[1]); return a; }},
      }},
    {.name = "mul_.scalar",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).mul_(c.s(1)); }},
    {.name = "div_",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).div_(c.t(1), c.str("rounding_mode")); },
     .grad = {
        {"div_inplace", "DivBackward0", [] { return In{x({3, 4}), pos({3, 4})}; },
         [](const In& t) { Tensor a = t[0] + 0; a.div_(t[1]); return a; }},
      }},
    {.name = "div_.scalar",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).div_(c.s(1), c.str("rounding_mode")); }},
    {.name = "pow_",
     .family = Family::binary,
     .tol = kMath,
     .golden = [](Case& c) { return c.t(0).pow_(c.t(1)); }},
    {.name = "pow_.scalar",
     .family = Family::binary,
     .tol = kMath,
     .golden = [](Case& c) { return c.t(0).pow_(c.s(1)); },
     .grad = {
        {"pow_inplace", "PowBackward0", [] { return In{x({3})}; },
         [](const In& t) { Tensor a = t[0] * 1; a.pow_(2); return a; }},
      }},
    {.name = "addcmul_",
     .family = Family::binary,
     .tol = kFusedMultiplyAdd,
     .golden = [](Case& c) { return c.t(0).addcmul_(c.t(1), c.t(2), c.s("value", 1)); },
     .grad = {
        {"addcmul_inplace", "AddcmulBackward0", [] { return In{x({3, 4}), x({3, 4}), x({4})}; },
         [](const In& t) { Tensor a = t[0] * 1; return a.addcmul_(t[1], t[2], 2); }},
      }},
    {.name = "addcdiv_",
     .family = Family::binary,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).addcdiv_(c.t(1), c.t(2), c.s("value", 1)); },
     .grad = {
        {"addcdiv_inplace", "AddcdivBackward0", [] { return In{x({3, 4}), x({4}), pos({3, 4})}; },
         [](const In& t) { Tensor a = t[0] * 1; return a.addcdiv_(t[1], t[2], 2); }},
      }},
    {.name = "neg_",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).neg_(); },
     .grad = {
        {"neg_inplace", "NegBackward0", [] { return In{x({3, 4})}; },
         [](const In& t) { Tensor a = t[0] * 1; return a.neg_(); }},
      }},
    {.name = "abs_",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).abs_(); },
     .grad = {
        {"abs_inplace", "AbsBackward0", [] { return In{away({3, 4})}; },
         [](const In& t) { Tensor a = t[0] * 1; return a.abs_(); }},
      }},
    {.name = "sqrt_",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).sqrt_(); },
     .grad = {
        {"sqrt_inplace", "SqrtBackward0", [] { return In{pos({3, 4})}; },
         [](const In& t) { Tensor a = t[0] * 1; return a.sqrt_(); }},
      }},
    {.name = "exp_",
     .family = Family::unary,
     .tol = kMath,
     .golden = [](Case& c) { return c.t(0).exp_(); },
     .grad = {
        {"exp_inplace", "ExpBackward0", [] { return In{x({3, 4})}; },
         [](const In& t) { Tensor a = t[0] * 1; return a.exp_(); }},
      }},
    {.name = "log_",
     .family = Family::unary,
     .tol = kMath,
     .golden = [](Case& c) { return c.t(0).log_(); },
     .grad = {
        {"log_inplace", "LogBackward0", [] { return In{pos({3, 4})}; },
         [](const In& t) { Tensor a = t[0] * 1; return a.log_(); }},
      }},
    {.name = "tanh_",
     .family = Family::unary,
     .tol = kMath,
     .golden = [](Case& c) { return c.t(0).tanh_(); },
     .grad = {
        {"tanh_inplace", "TanhBackward0", [] { return In{x({3, 4})}; },
         [](const In& t) { Tensor a = t[0] * 1; return a.tanh_(); }},
      }},
    {.name = "sigmoid_",
     .family = Family::activation,
     .tol = kMath,
     .golden = [](Case& c) { return c.t(0).sigmoid_(); },
     .grad = {
        {"sigmoid_inplace", "SigmoidBackward0", [] { return In{x({3, 4})}; },
         [](const In& t) { Tensor a = t[0] * 1; return a.sigmoid_(); }},
      }},
    {.name = "relu_",
     .family = Family::activation,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).relu_(); },
     .grad = {
        {"relu_inplace", "ReluBackward0", [] { return In{away({3, 4})}; },
         [](const In& t) { Tensor a = t[0] * 1; return a.relu_(); }},
      }},
    {.name = "reciprocal_",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).reciprocal_(); },
     .grad = {
        {"reciprocal_inplace", "ReciprocalBackward0", [] { return In{pos({3, 4})}; },
         [](const In& t) { Tensor a = t[0] * 1; return a.reciprocal_(); }},
      }},
    {.name = "clamp_",
     .family = Family::unary,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).clamp_(c.os("min"), c.os("max")); },
     .grad = {
        {"clamp_inplace", "ClampBackward1", [] { return In{away({3, 4}, 0.05)}; },
         [](const In& t) { Tensor a = t[0] * 1; return a.clamp_(-0.5, 0.5); }},
      }},
    {.name = "masked_fill_",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).masked_fill_(c.t(1), c.s(2)); },
     .grad = {
        {"masked_fill_inplace", "MaskedFillBackward0", [] { return In{x({3, 4})}; },
         [](const In& t) { Tensor a = t[0] * 1; return a.masked_fill_(mask34(), -1); }},
      }},
    {.name = "masked_fill_.scalar",
     .family = Family::compare,
     .tol = kExact,
     .golden = [](Case& c) { return c.t(0).masked_fill_(c.t(1), c.t(2)); },
     .grad = {
        {"masked_fill_tensor_inplace", "MaskedFillBackward1", [] { return In{x({3, 4}), x({})}; },
         [](const In& t) { Tensor a = t[0] * 1; return a.masked_fill_(mask34(), t[1]); }},
      }},
    // index (the rest of the family: indexing_test, index_grad_test)
    {.name = "gather",
     .family = Family::index,
     .golden_named = {
        {"gather/ref", [] { return gather(t20(), 1, gather_ref_index()); }},
        {"gather/ref", [] { return t20().gather(1, gather_ref_index()); }},
        {"gather/dim0", [] { return gather(t20(), 0, tensor({{0, 1, 2, 3, 0}, {3, 2, 1, 0, 1}})); }},
        {"gather/noncontig", [] { return gather(t20().t(), 1, tensor({{3, 0}, {1, 1}})); }},
        {"gather/negdim", [] { return gather(t20().to(kFloat32), -1, tensor({{4}, {0}, {2}, {1}})); }},
        {"gather/empty", [] { return gather(t20(), 1, zeros({4, 0}, {.dtype = kInt64})); }},
      },
     .grad = {
        {"gather", "GatherBackward0", [] { return In{x({3, 4})}; },
         [](const In& t) { return t[0].gather(1, idx({{0, 0}, {3, 1}, {2, 2}})); }},
        {"gather_nc", "GatherBackward0", [] { return In{xt({3, 4})}; },
         [](const In& t) { return gather(t[0], 0, idx({{2, 0, 1, 1}})); }},
      }},
    // scan (the rest of the family: reduce_test, reduce_grad_test)
    {.name = "cumsum",
     .family = Family::scan,
     .tol = kExact,
     .golden_reduce = [](const ReduceCase& c) { return Results{c.x().cumsum(*c.dim(), c.dtype())}; },
     .grad = {
        {"cumsum", "CumsumBackward0", [] { return In{x({3, 4})}; },
         [](const In& t) { return t[0].cumsum(1); }},
        {"cumsum_dim0", "CumsumBackward0", [] { return In{xt({3, 4})}; },
         [](const In& t) { return t[0].cumsum(0); }},
      }},
  };
  // clang-format on
}
#undef U

}  // namespace

const std::vector<OpInfo>& op_table() {
  static const std::vector<OpInfo> rows = make_table();
  return rows;
}

const OpInfo* find_op(const std::string& name) {
  static const std::map<std::string, const OpInfo*> by_name = [] {
    std::map<std::string, const OpInfo*> m;
    for (const OpInfo& row : op_table()) m.emplace(row.name, &row);
    return m;
  }();
  const auto it = by_name.find(name);
  return it == by_name.end() ? nullptr : it->second;
}

std::vector<gradtest::GradCase> grad_cases(std::initializer_list<Family> families) {
  std::vector<gradtest::GradCase> out;
  for (const OpInfo& row : op_table())
    if (std::find(families.begin(), families.end(), row.family) != families.end())
      out.insert(out.end(), row.grad.begin(), row.grad.end());
  return out;
}

std::vector<DeviceCase> device_cases() {
  std::vector<DeviceCase> out;
  for (const OpInfo& row : op_table()) out.insert(out.end(), row.device.begin(), row.device.end());
  return out;
}

std::vector<DeviceCase> device_int_cases(Dtype dtype) {
  std::vector<DeviceCase> out;
  for (const OpInfo& row : op_table())
    for (const DeviceCase& d : row.device_int)
      if (dtype != kBool || d.takes_bool) out.push_back(d);
  return out;
}

std::vector<KernelCase> kernel_cases() {
  std::vector<KernelCase> out;
  for (const OpInfo& row : op_table()) out.insert(out.end(), row.kernel.begin(), row.kernel.end());
  return out;
}

std::vector<Tensor> level_results(const Tensor& a) {
  std::vector<Tensor> out;
  for (const OpInfo& row : op_table())
    if (std::find(row.level_dtypes.begin(), row.level_dtypes.end(), a.dtype()) !=
        row.level_dtypes.end())
      out.push_back(row.level(a));
  return out;
}

}  // namespace ember::test
