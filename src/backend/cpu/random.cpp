// CPU kernels of the random fills (src/ops/random.cpp): uniform_, normal_, random_, bernoulli_,
// exponential_, randperm and multinomial's sampling with replacement, drawing PyTorch 1.13's CPU
// numbers for a given seed (Note [Matching PyTorch's random streams]).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <numbers>
#include <type_traits>
#include <vector>

#include "backend/cpu/kernels.h"
#include "core/convert.h"
#include "core/dispatch.h"
#include "core/float_limits.h"
#include "ember/generator.h"

namespace ember::cpu {
namespace {

// Note [Matching PyTorch's random streams]
// Every element takes the same draws, in the same order, through the same floating-point
// operations as PyTorch 1.13's CPU kernels (ATen/core/DistributionsHelper.h,
// TransformationHelper.h, native/cpu/DistributionTemplates.h):
//  * a uniform keeps the low `digits` bits of one 32-bit draw (float 24, half 11, bfloat16 8;
//    double: 53 bits of a 64-bit draw), scales them by 2^-digits, then x * (to - from) + from;
//  * normal on a contiguous tensor of >= 16 elements first fills every element with a uniform,
//    then runs Box–Muller on each block of 16 (u1 = 1 - d[j], u2 = d[j + 8], j < 8); a partial
//    last block is redone on the final 16 elements with 16 fresh uniforms. Other tensors take
//    the scalar double Box–Muller, which caches its sine half in the generator for the next call;
//  * elements are visited in TensorIterator's order: memory order, i.e. dims by falling stride.
// PyTorch's x86 binaries run these kernels from their AVX2 build (also on AVX-512 CPUs). There,
// float normals use the Cephes log/sincos polynomials of ATen's avx_mathfun.h, and GCC fused each
// multiply that feeds an add into an FMA. We write those FMAs out as std::fma, so the result does
// not depend on this compiler's contraction or on the host having FMA hardware.

using State = Generator::State;

// Holds a generator's lock for one op, as PyTorch's kernels do.
struct LockedState {
  explicit LockedState(Generator* gen)
      : state(gen ? gen->state() : default_generator().state()), lock(state.mutex) {}
  State& state;
  std::lock_guard<std::mutex> lock;
};

// The dims of a lone output in TensorIterator's order (falling stride, size-1 dims dropped),
// checking that no two elements share memory. Not a template: every kernel's element walk shares
// it, so the sort is compiled once rather than once per dtype and kernel.
std::vector<int64_t> element_order(const Tensor& t, const char* op) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) == 1) continue;
    EMBER_CHECK(t.stride(d) != 0, op, "unsupported operation: more than one element of the ",
                "written-to tensor refers to a single memory location");
    dims.push_back(d);
  }
  std::stable_sort(dims.begin(), dims.end(),
                   [&](int64_t a, int64_t b) { return t.stride(a) > t.stride(b); });
  return dims;
}

// Calls visit(T&) on every element in TensorIterator's order for a lone output.
template <class T, class F>
void for_each_element(const Tensor& t, const char* op, F&& visit) {
  T* data = t.data_ptr<T>();
  const int64_t n = t.numel();
  if (t.is_contiguous()) {
    for (int64_t i = 0; i < n; ++i) visit(data[i]);
    return;
  }
  const std::vector<int64_t> dims = element_order(t, op);
  const size_t nd = dims.size();
  std::vector<int64_t> index(nd, 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < n; ++i) {
    visit(data[offset]);
    for (size_t k = nd; k-- > 0;) {  // odometer step, innermost (smallest stride) first
      const int64_t size = t.size(dims[k]), stride = t.stride(dims[k]);
      offset += stride;
      if (++index[k] < size) break;
      offset -= stride * size;
      index[k] = 0;
    }
  }
}

// ── uniform ────────────────────────────────────────────────────────────────

// PyTorch's uniform_real_distribution<T> before it is scaled: [0, 1) with T's digits.
template <class T>
compute_t<T> uniform_unit(State& s) {
  using A = compute_t<T>;
  constexpr uint64_t kScale = uint64_t(1) << kDigits<T>;
  const uint64_t bits = std::is_same_v<T, double> ? s.draw64() : s.draw32();
  return A(bits & (kScale - 1)) * (A(1) / A(kScale));
}

// PyTorch's uniform_real_distribution<T>(from, to), in T's compute type.
template <class T>
compute_t<T> uniform_real(State& s, T from, T to) {
  using A = compute_t<T>;
  const A x = uniform_unit<T>(s);
  // to - from rounds to T first: c10's Half/BFloat16 arithmetic returns the narrow type.
  const A range = A(convert<T>(A(to) - A(from)));
  return std::fma(x, range, A(from));
}

template <class T>
void uniform_kernel(const char* op, const Tensor& t, double from, double to, State& s) {
  const T lo = convert<T>(from), hi = convert<T>(to);
  for_each_element<T>(t, op, [&](T& v) { v = T(uniform_real<T>(s, lo, hi)); });
}

// ── normal ─────────────────────────────────────────────────────────────────

// normal_distribution<double>: Box–Muller on two 53-bit uniforms; r * sin(theta) is cached in
// the generator and returned (scaled) by the next call.
double normal_scalar(State& s, double mean, double std) {
  if (s.next_double_normal) {
    const double cached = *s.next_double_normal;
    s.next_double_normal.reset();
    return std::fma(cached, std, mean);
  }
  const double u1 = uniform_real<double>(s, 0.0, 1.0);
  const double u2 = uniform_real<double>(s, 0.0, 1.0);
  const double r = std::sqrt(-2.0 * std::log(1.0 - u2));
  const double theta = 2.0 * std::numbers::pi * u1;
  s.next_double_normal = r * std::sin(theta);
  return std::fma(r * std::cos(theta), std, mean);
}

// avx_mathfun.h's log256_ps for one lane, restricted to x in [2^-24, 1] (u1 = 1 - u is never
// zero or subnormal, so its clamping and NaN masking never apply): the exponent e and a
// mantissa m in [sqrt(1/2) - 1, sqrt(2) - 1), then a degree-9 Cephes polynomial.
[[gnu::always_inline]] inline float cephes_log(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  float e = float(int32_t(bits >> 23) - 0x7f) + 1.0f;
  const uint32_t mant_bits = (bits & ~0x7f800000u) | 0x3f000000u;  // mantissa in [0.5, 1)
  float m;
  std::memcpy(&m, &mant_bits, 4);
  const bool small = m < 0.707106781186547524f;
  const float tmp = small ? m : 0.0f;
  m = m - 1.0f;
  e = e - (small ? 1.0f : 0.0f);
  m = m + tmp;
  const float z = m * m;
  constexpr float kP[] = {7.0376836292E-2f,  -1.1514610310E-1f, 1.1676998740E-1f,
                          -1.2420140846E-1f, 1.4249322787E-1f,  -1.6668057665E-1f,
                          2.0000714765E-1f,  -2.4999993993E-1f, 3.3333331174E-1f};
  float y = kP[0];
  for (int i = 1; i < 9; ++i) y = std::fma(y, m, kP[i]);
  y = y * m;
  y = std::fma(y, z, e * -2.12194440e-4f);
  y = std::fma(-z, 0.5f, y);
  return std::fma(e, 0.693359375f, m + y);
}

// avx_mathfun.h's sincos256_ps for one lane, restricted to x >= 0 (theta = 2 pi u): reduce by
// pi/4 in three parts, then the Cephes cosine and sine polynomials, swapped by octant.
[[gnu::always_inline]] inline void cephes_sincos(float x, float& sin_out, float& cos_out) {
  const int32_t j = (int32_t(x * 1.27323954473516f) + 1) & ~1;  // 4/pi
  const float y = float(j);
  x = std::fma(y, -0.78515625f, x);
  x = std::fma(y, -2.4187564849853515625e-4f, x);
  x = std::fma(y, -3.77489497744594108e-8f, x);
  const float z = x * x;
  float yc = 2.443315711809948E-005f;
  yc = std::fma(yc, z, -1.388731625493765E-003f);
  yc = std::fma(yc, z, 4.166664568298827E-002f);
  yc = yc * z;
  yc = std::fma(yc, z, -(z * 0.5f));
  yc = yc + 1.0f;
  float ys = -1.9515295891E-4f;
  ys = std::fma(ys, z, 8.3321608736E-3f);
  ys = std::fma(ys, z, -1.6666654611E-1f);
  ys = ys * z;
  ys = std::fma(ys, x, x);
  // PyTorch selects with bit masks and adds the discarded polynomial's +0.0; kept for -0.0.
  const bool sin_poly = (j & 2) == 0;
  const float sin1 = sin_poly ? 0.0f : yc, sin2 = sin_poly ? ys : 0.0f;
  const float s = sin1 + sin2, c = (yc - sin1) + (ys - sin2);
  sin_out = (j & 4) ? -s : s;
  cos_out = (~(j - 2) & 4) ? -c : c;
}

// Box–Muller on one block of 16 uniforms, per dtype as PyTorch computes it. Compiled twice
// (target_clones; the loader picks the copy for the CPU): with FMA every std::fma is one
// instruction, in the baseline copy a call to libm. The same bits either way (fma is exact); randn
// of 16M floats on a Zen 5: 475 -> 250 ms. cephes_log and cephes_sincos are always inlined, so
// that the FMA copy has them too. (PyTorch's normal_fill_16_AVX2.)
[[gnu::target_clones("fma", "default")]] void normal_block(float* d, float mean, float std) {
  const float two_pi = float(2.0 * std::numbers::pi);
  for (int j = 0; j < 8; ++j) {
    const float radius = std::sqrt(-2.0f * cephes_log(1.0f - d[j]));
    float sin_theta, cos_theta;
    cephes_sincos(two_pi * d[j + 8], sin_theta, cos_theta);
    d[j] = std::fma(radius * cos_theta, std, mean);
    d[j + 8] = std::fma(radius * sin_theta, std, mean);
  }
}

void normal_block(double* d, double mean, double std) {  // normal_fill_16<double>
  for (int j = 0; j < 8; ++j) {
    const double radius = std::sqrt(-2.0 * std::log(1.0 - d[j]));
    const double theta = 2.0 * std::numbers::pi * d[j + 8];
    d[j] = std::fma(radius * std::cos(theta), std, mean);
    d[j + 8] = std::fma(radius * std::sin(theta), std, mean);
  }
}

// normal_fill_16<Half>: c10::Half arithmetic rounds to half on Half op Half, and widens to float
// (or double) when the other operand is float (double); libm runs in float.
void normal_block(Half* d, Half mean, Half std) {
  for (int j = 0; j < 8; ++j) {
    const Half u1 = Half(1.0f - float(d[j]));
    const Half radius = Half(std::sqrt(-2.0f * std::log(float(u1))));
    const Half theta = Half(float(2.0 * std::numbers::pi * double(float(d[j + 8]))));
    const float r = float(radius), t = float(theta);
    d[j] = Half(std::fma(r * std::cos(t), float(std), float(mean)));
    d[j + 8] = Half(std::fma(r * std::sin(t), float(std), float(mean)));
  }
}

// normal_fill_16<BFloat16>: c10's BFloat16-math.h makes log/sqrt/cos/sin return BFloat16, and
// every BFloat16 op BFloat16 rounds, so each step rounds to bfloat16.
void normal_block(BFloat16* d, BFloat16 mean, BFloat16 std) {
  auto bf = [](float f) { return float(BFloat16(f)); };
  for (int j = 0; j < 8; ++j) {
    const float u1 = bf(1.0f - float(d[j]));
    const float radius = bf(std::sqrt(bf(-2.0f * bf(std::log(u1)))));
    const float theta = bf(float(2.0 * std::numbers::pi * double(float(d[j + 8]))));
    const float c = bf(std::cos(theta)), s = bf(std::sin(theta));
    d[j] = BFloat16(bf(bf(radius * c) * float(std)) + float(mean));
    d[j + 8] = BFloat16(bf(bf(radius * s) * float(std)) + float(mean));
  }
}

template <class T>
void normal_kernel(const char* op, const Tensor& t, double mean, double std, State& s) {
  const int64_t n = t.numel();
  if (n < 16 || !t.is_contiguous()) {
    for_each_element<T>(t, op, [&](T& v) { v = convert<T>(normal_scalar(s, mean, std)); });
    return;
  }
  T* d = t.data_ptr<T>();
  const T m = convert<T>(mean), sd = convert<T>(std);
  auto uniform = [&] { return T(uniform_real<T>(s, T(0.0f), T(1.0f))); };
  for (int64_t i = 0; i < n; ++i) d[i] = uniform();
  for (int64_t i = 0; i + 16 <= n; i += 16) normal_block(d + i, m, sd);
  if (n % 16 != 0) {
    T* tail = d + n - 16;  // overlaps the last full block
    for (int j = 0; j < 16; ++j) tail[j] = uniform();
    normal_block(tail, m, sd);
  }
}

// ── integers ───────────────────────────────────────────────────────────────

// uniform_int_from_to_distribution: (bits % range) + base, with 64-bit draws only for the types
// PyTorch lists when the range needs them.
template <class T>
void random_kernel(const char* op, const Tensor& t, uint64_t range, int64_t base, State& s) {
  constexpr bool kWide = std::is_same_v<T, int64_t> || std::is_same_v<T, double> ||
                         std::is_same_v<T, float> || std::is_same_v<T, BFloat16>;
  const bool use64 = kWide && range >= (uint64_t(1) << 32);
  for_each_element<T>(t, op, [&](T& v) {
    const uint64_t bits = use64 ? s.draw64() : s.draw32();
    v = convert<T>(int64_t(bits % range + uint64_t(base)));
  });
}

// ── exponential and multinomial ──────────────────────────────────────────────

// exponential_distribution<double>: -1/lambd * log(1 - u) of a 53-bit uniform, then cast (a
// c10::Half or BFloat16 from double goes through float, as static_cast does there).
template <class T>
void exponential_kernel(const char* op, const Tensor& t, double lambd, State& s) {
  for_each_element<T>(t, op, [&](T& v) {
    const double x = -1.0 / lambd * std::log(1.0 - uniform_unit<double>(s));
    if constexpr (is_half_v<T>)
      v = convert<T>(static_cast<float>(x));
    else
      v = convert<T>(x);
  });
}

// PyTorch's multinomial_with_replacement_apply: per row, the cumulative distribution in T's
// compute type (float for half and bfloat16) normalised by its sum, then per sample one 53-bit
// uniform and a binary search for the first bucket not below it (the last bucket pinned to 1).
template <class T>
void multinomial_kernel(const Tensor& probs, const Tensor& result, State& s) {
  using A = compute_t<T>;
  const char* op = "multinomial";
  const int64_t categories = probs.size(-1);
  const int64_t rows = probs.dim() > 1 ? probs.size(-2) : 1;
  const int64_t row_stride = probs.dim() > 1 ? probs.stride(-2) : 0;
  const int64_t col_stride = probs.stride(-1);
  const int64_t samples = result.size(-1);
  const T* p = probs.data_ptr<T>();
  int64_t* out = result.data_ptr<int64_t>();
  std::vector<A> cumulative(static_cast<size_t>(categories));
  for (int64_t i = 0; i < rows; ++i) {
    A sum = 0;
    for (int64_t j = 0; j < categories; ++j) {
      const A v = A(p[i * row_stride + j * col_stride]);
      EMBER_CHECK(v >= 0, op, "invalid multinomial distribution (encountering probability entry < 0)");
      EMBER_CHECK(std::isfinite(v), op,
                  "invalid multinomial distribution (encountering probability entry = infinity "
                  "or NaN)");
      sum += v;
      cumulative[size_t(j)] = sum;
    }
    EMBER_CHECK(sum > 0, op, "invalid multinomial distribution (sum of probabilities <= 0)");
    for (A& c : cumulative) c /= sum;
    cumulative.back() = 1;
    for (int64_t k = 0; k < samples; ++k) {
      const double u = uniform_unit<double>(s);
      int64_t left = 0, right = categories;
      while (right - left > 0) {
        const int64_t mid = left + (right - left) / 2;
        if (cumulative[size_t(mid)] < u)
          left = mid + 1;
        else
          right = mid;
      }
      out[i * samples + k] = left;
    }
  }
}

// ── the entries (backend/random_kernels.h) ──────────────────────────────────

void uniform_entry(const char* op, const Tensor& t, double from, double to, Generator* gen) {
  LockedState ls(gen);
  dispatch<DtypeSet::Floating>(t.dtype(), op,
                               [&]<class T>() { uniform_kernel<T>(op, t, from, to, ls.state); });
}

void normal_entry(const char* op, const Tensor& t, double mean, double std, Generator* gen) {
  LockedState ls(gen);
  dispatch<DtypeSet::Floating>(t.dtype(), op,
                               [&]<class T>() { normal_kernel<T>(op, t, mean, std, ls.state); });
}

void random_entry(const char* op, const Tensor& t, uint64_t range, int64_t base, Generator* gen) {
  LockedState ls(gen);
  dispatch(t.dtype(), op, [&]<class T>() { random_kernel<T>(op, t, range, base, ls.state); });
}

void bernoulli_entry(const char* op, const Tensor& t, double p, Generator* gen) {
  LockedState ls(gen);
  dispatch(t.dtype(), op, [&]<class T>() {
    // bernoulli_distribution<double>: a 53-bit uniform below p. (Its uniform_real(0, 1) is
    // x * 1 + 0, exactly x: without the fma, which the baseline-compiled library calls in libm.)
    for_each_element<T>(
        t, op, [&](T& v) { v = convert<T>(uniform_unit<double>(ls.state) < p ? 1.0 : 0.0); });
  });
}

void randperm_entry(const Tensor& t, Generator* gen) {
  const int64_t n = t.numel();
  dispatch<DtypeSet::Numeric>(t.dtype(), "randperm", [&]<class T>() {
    T* r = t.data_ptr<T>();
    for (int64_t i = 0; i < n; ++i) r[i] = convert<T>(i);
    LockedState ls(gen);
    // Fisher–Yates from the front with one 32-bit draw per step, as PyTorch 1.13.
    for (int64_t i = 0; i + 1 < n; ++i) {
      const auto z = int64_t(ls.state.draw32() % uint64_t(n - i));
      std::swap(r[i], r[i + z]);
    }
  });
}

void exponential_entry(const char* op, const Tensor& t, double lambd, Generator* gen) {
  LockedState ls(gen);
  dispatch<DtypeSet::Floating>(t.dtype(), op,
                               [&]<class T>() { exponential_kernel<T>(op, t, lambd, ls.state); });
}

void multinomial_entry(const Tensor& probs, const Tensor& result, Generator* gen) {
  LockedState ls(gen);
  dispatch<DtypeSet::Floating>(probs.dtype(), "multinomial", [&]<class T>() {
    multinomial_kernel<T>(probs, result, ls.state);
  });
}

}  // namespace

void add_random_kernels(backend::Backend& b) {
  b.random.uniform = &uniform_entry;
  b.random.normal = &normal_entry;
  b.random.random = &random_entry;
  b.random.bernoulli = &bernoulli_entry;
  b.random.randperm = &randperm_entry;
  b.random.exponential = &exponential_entry;
  b.random.multinomial_with_replacement = &multinomial_entry;
}

}  // namespace ember::cpu
