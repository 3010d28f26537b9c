// The op table (PyTorch's OpInfo idea): ONE row per op names everything the op's tests need, and
// the suites are instantiated from it instead of keeping their own per-op lists:
//
//   suite                                   reads                 program
//   golden forward against PyTorch 1.13     golden / tol          ops_elementwise_test (elementwise.json)
//                                           golden_reduce         ops_reduce_test (reduce.json)
//                                           golden_named          ops_indexing_test (indexing.json)
//   gradcheck + gradgradcheck               grad                  autograd_{unary,binary,index,reduce}_grad_test
//   CPU levels (every compiled level)       level / level_dtypes  backend_cpu_cpu_levels_test
//   dtype sweep on a device vs the CPU      device, device_int    cuda_elementwise_test (a GPU),
//                                                                 backend_cuda_emulation_test (emulated)
//   CUDA kernel vs the CPU kernel           kernel                backend_cuda_emulation_test
//
// `name` is the op's golden key (the "op" of its golden cases). Adding an elementwise op is one
// row in op_table.cpp (and its cases in tests/golden/gen_elementwise.py); docs/adding-an-op.md.
#pragma once

#include <ember/ember.h>

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "autograd/grad_table.h"
#include "backend/backend.h"
#include "test_support.h"

namespace ember::test {

// ── golden forward (elementwise.json) ────────────────────────────────────────────────────────

// Allowed difference for floating results: `ulps` units in the last place of the result's dtype
// (float16/bfloat16 results may differ by one when float32 math lands near a rounding boundary).
// Inexact rows also accept any two subnormal results, and `abs_ulps` units of ulp(1.0): the error
// of a difference like exp(x) - 1, whose terms are near 1. Unary rows may also accept `x_ulps` units
// of ulp(x), x the input element: the error of x * p with p known to an absolute error.
struct Tol {
  double ulps = 0;
  double abs_ulps = 0;
  bool zero_sign = true;  // whether +0.0 and -0.0 must match
  double x_ulps = 0;
  bool fused = false;  // exact at a CPU level with FMA, not below (kFusedMultiplyAdd)
};
constexpr Tol kExact{0};
constexpr Tol kMath{2};          // SLEEF/libm transcendentals: each within 1 ulp of the true value
constexpr Tol kRound{1};         // a few float ops in a different order than PyTorch's kernel
constexpr Tol kExpMinus1{2, 2};  // elu's exp(x) - 1 (as PyTorch's kernel, not expm1)
// maximum/minimum of +0.0 and -0.0: PyTorch's SIMD body returns the second operand and its scalar
// tail (all of a short tensor) the first; ember returns the second everywhere.
constexpr Tol kZeroTie{0, 0, false};
// Exact gelu, x * Phi(x), against float64 over every 61st float in [-12, 12]: PyTorch 1.13's
// kernels behind these values (ATen's, scalar and vectorized) are within 1.65 ulp of the result
// for x > 0 and 0.75 ulp of x for x < 0, where 1 + erf(x / sqrt 2) cancels (101 ulp of the result
// at x = -2.99, -0.0 for x < -5.6); ember's float gelu is within 1.1 ulp of the result and 0.63 ulp
// of x (tests/backend/cpu/gelu_float_test.cpp) and follows the tail much closer. Allowed: PyTorch's
// own largest error in ulp of x, 1.4 (1.39, at x > 0); these cases differ by less than 0.5. The
// tanh rows, x * sigmoid(2y) in ember: 1.85 ulp of the result / 0.99 ulp of x (PyTorch 1.74 / 0.88).
constexpr Tol kGelu{2, 0, true, 1.4};
// x + alpha * y and x + value * y * z: PyTorch's AVX2 kernel, which made the golden values, fuses
// the multiply and the add; at a CPU level without FMA (baseline x86-64) ember rounds the product
// first, as PyTorch's own kernel for such CPUs does: one ulp of the result, or of x where the
// product cancels it.
constexpr Tol kFusedMultiplyAdd{0, 0, true, 0, true};

/// One elementwise.json case as a row's `golden` sees it: inputs by position, options by name.
/// JSON numbers keep the Python scalar's kind: 2 is an int, 2.0 a float, true a bool.
class GoldenCase {
 public:
  explicit GoldenCase(const nlohmann::json& j);
  /// Input i, a tensor (built once, so an in-place op writes into it).
  Tensor& t(size_t i);
  /// Input i, a Python scalar.
  Scalar s(size_t i) const;
  Scalar s(const char* key, Scalar fallback) const;
  std::optional<Scalar> os(const char* key) const;
  double d(const char* key, double fallback) const;
  std::optional<double> od(const char* key) const;
  std::optional<std::string> str(const char* key) const;
  int64_t i(const char* key, int64_t fallback) const;
  bool b(const char* key, bool fallback) const;

 private:
  // A key given as None in Python is absent, like an omitted argument.
  bool has(const char* key) const;
  const nlohmann::json& arg(const char* key) const;

  const nlohmann::json& j_;
  std::vector<Tensor> inputs_;
};

// ── golden forward (reduce.json) ─────────────────────────────────────────────────────────────

/// One reduce.json case as a row's `golden_reduce` sees it: the input and the options by name.
class ReduceCase {
 public:
  explicit ReduceCase(const nlohmann::json& j);
  const Tensor& x() const { return x_; }
  bool has(const char* key) const;
  bool keepdim() const;
  /// "dims" as a list: null -> {} (every dim), an int -> {d}.
  DimVector dims() const;
  std::optional<DimVector> odims() const;
  bool dims_is_int() const;
  std::optional<int64_t> dim() const;
  std::optional<Dtype> dtype() const;
  int64_t correction() const;
  double p() const;

 private:
  const nlohmann::json& args() const { return j_["args"]; }
  const nlohmann::json& j_;
  Tensor x_;
};
using Results = std::vector<Tensor>;

// ── device sweeps ────────────────────────────────────────────────────────────────────────────

/// An op through the public API on (any values, positive values) (tests/cuda/elementwise_cases.h
/// makes them), on a device against the CPU.
struct DeviceCase {
  const char* name;
  std::function<Tensor(const Tensor&, const Tensor&)> f;  // (any values, positive values)
  bool reads_back = false;  // the op copies a value to the host (binary_cross_entropy's check)
  bool takes_bool = true;   // integer cases: also run in bool
};

/// One comparison of a kernel of the cuda table with the CPU backend's entry of the same
/// ElementwiseKernel (tests/backend/cuda_emulation_test.cpp). `inputs` has a letter per operand
/// for its values (elementwise_input there); `ulps` is the tolerance in units of the output
/// dtype's epsilon (relative, and absolute near 0). 0, bit for bit (NaN where the CPU has NaN),
/// wherever the CPU kernel does the same correctly rounded operations or calls the same libm
/// function (sinh, cosh, hypot, logit, xlogy); else the two math libraries differ in float32 and
/// float64: the CPU's SLEEF vectors and its fast float exp/erf/gelu (exp_float.h, erf_float.h,
/// gelu_float.h) against the host's libm in the emulation (CUDA's on the device): exp, exp2,
/// expm1, the logs, the trigonometric functions, tanh, erf, erfc, pow, atan2, sigmoid, elu, gelu,
/// silu, mish, softplus and the binary cross entropies.
struct KernelCase {
  backend::ElementwiseKernel kernel;
  const char* inputs;
  double ulps;
  backend::ElementwiseArgs args = {};
};
inline backend::ElementwiseArgs reals(double r0, double r1 = 0, double r2 = 0, bool flag = false) {
  return {.real = {r0, r1, r2}, .flag = flag};
}

// ── the row ──────────────────────────────────────────────────────────────────────────────────

/// The op's family: which gradient suite runs its `grad` rows (unary_grad_test: unary,
/// activation, compare; binary_grad_test: binary; index_grad_test: index; reduce_grad_test:
/// scan). operators: the C++ operators, golden only.
enum class Family { unary, activation, binary, compare, operators, index, scan };

struct OpInfo {
  std::string name;  // the op's golden key
  Family family;
  // elementwise.json: the call for one golden case, and its tolerance.
  Tol tol = {};
  std::function<Tensor(GoldenCase&)> golden = {};
  // reduce.json (tol.ulps and tol.abs_ulps apply, as reduce_test's Tol).
  std::function<Results(const ReduceCase&)> golden_reduce = {};
  // indexing.json: (entry name, the call that must give it).
  std::vector<std::pair<std::string, std::function<Tensor()>>> golden_named = {};
  // gradcheck (and gradgradcheck where the sample says so) on float64 samples: grad_fn's name,
  // strided/0-d/broadcast/in-place variants (tests/autograd/grad_table.h).
  std::vector<gradtest::GradCase> grad = {};
  // The dtype sweep on a device: `device` in float32, float64, float16 and bfloat16; `device_int`
  // in int32, int64 and (takes_bool) bool, exactly.
  std::vector<DeviceCase> device = {};
  std::vector<DeviceCase> device_int = {};
  // The CUDA kernels' own comparison (every dtype the cuda table stores).
  std::vector<KernelCase> kernel = {};
  // CPU levels: level(a) on randn values in each of `level_dtypes`, at every compiled level
  // against the baseline (cpu_levels_test's tolerances by dtype).
  std::function<Tensor(const Tensor&)> level = {};
  std::vector<Dtype> level_dtypes = {};
};

/// Every row, in the golden file's groups.
const std::vector<OpInfo>& op_table();
/// The row named `name`, or null.
const OpInfo* find_op(const std::string& name);
/// The grad samples of every row of the given families, in table order.
std::vector<gradtest::GradCase> grad_cases(std::initializer_list<Family> families);
/// Every row's device (floating) and device_int samples, in table order.
std::vector<DeviceCase> device_cases();
std::vector<DeviceCase> device_int_cases(Dtype dtype);
/// Every row's kernel samples.
std::vector<KernelCase> kernel_cases();
/// level(a) of every row whose level_dtypes hold `dtype`, with a of that dtype.
std::vector<Tensor> level_results(const Tensor& a);

}  // namespace ember::test
