// Elementwise kernels over the shared strided loop. Operands arrive normalised by the front end
// (src/ops/elementwise.h): equal shapes (broadcast by stride 0) and one storage dtype per
// operand. `F` is a functor with a templated operator() (see Note [Inner loops] in vec.h); half
// types are computed in float.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <exception>

#include <unistd.h>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "backend/backend.h"
#include "backend/cpu/dispatch.h"
#include "backend/cpu/half_convert.h"
#include "backend/cpu/level.h"
#include "backend/cpu/loop.h"
#include "backend/cpu/vec.h"
#include "backend/cpu/vec_bf16.h"
#include "core/convert.h"
#include "core/dispatch.h"
#include "ember/tensor.h"

namespace EMBER_CPU_NS {

namespace detail {

template <class F, class C, class... Args>
concept VectorizableWith =
    (std::is_same_v<C, float> || std::is_same_v<C, double>) &&
    requires(const F& f, Args... args) {
      { f(args...) } -> std::convertible_to<Vec<C>>;
    };

// Vec<C> for float/double (named, not instantiated, for other types).
template <class C>
using VecOrScalar = std::conditional_t<std::is_same_v<C, float> || std::is_same_v<C, double>,
                                       Vec<C>, C>;

// Reads operand k of a row as compute type C.
template <class S, class C>
inline C load_as(const char* p) {
  return convert<C>(*reinterpret_cast<const S*>(p));
}

template <class F, class C, size_t... K>
constexpr bool vectorizable(std::index_sequence<K...>) {
  return VectorizableWith<F, C, decltype(K, std::declval<VecOrScalar<C>>())...>;
}

// Note [Streaming stores]: an output bigger than the last-level cache is written with
// non-temporal stores. A normal store first reads its line into the cache (for c = a + b a
// third more memory traffic) and evicts lines that are still wanted, for an output that cannot
// stay in the cache anyway; measured on a Zen 3 VM, 16M-float a + b ran ~20% faster streamed.
// Smaller outputs keep normal stores: the next op usually reads them from the cache. Only long
// dense runs stream (a fence per run, full lines): from the first vector-aligned element, with
// the misaligned head computed as one zero-padded vector like the tail (Note [Padded tail]), so
// every element takes the same arithmetic and the result does not depend on the path.
inline int64_t stream_store_min_bytes() {
  static const int64_t bytes = [] {
    const int64_t mib = int64_t(1) << 20;
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);  // 0 or -1 where the OS does not say
    return l3 > 0 ? std::clamp<int64_t>(l3, mib, 32 * mib) : 8 * mib;
  }();
  return bytes;
}
/// A non-temporal store of v to p, aligned to kVecBytes: the line goes to memory without being
/// read first and without evicting the cache. stream_fence() orders them before later stores.
template <class C>
inline void stream_store(Vec<C> v, C* p) {
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<C, float>) _mm512_stream_ps(p, __m512(v.v));
  else _mm512_stream_pd(p, __m512d(v.v));
#elif defined(__AVX__)
  if constexpr (std::is_same_v<C, float>) _mm256_stream_ps(p, __m256(v.v));
  else _mm256_stream_pd(p, __m256d(v.v));
#elif defined(__SSE2__)
  if constexpr (std::is_same_v<C, float>) _mm_stream_ps(p, __m128(v.v));
  else _mm_stream_pd(p, __m128d(v.v));
#else
  v.store(p);
#endif
}
inline void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}
/// The shortest run that streams: below it the fence and the padded head cost more than the
/// bandwidth saved.
inline constexpr int64_t kStreamMinRunBytes = int64_t(16) << 10;

// map_row's SIMD path: a run whose operands are contiguous or broadcast, all stored as S and
// computed as C = compute_t<S>. A separate template, instantiated only for vectorisable functors
// (clang checks the non-dependent parts of a generic lambda's discarded branches, so they cannot
// sit behind an `if constexpr` there).
template <class S, int NIn, class F>
void map_row_simd(const F& f, std::array<char*, NIn + 1>& p, const std::array<int64_t, NIn + 1>& s,
                  int64_t n, bool dense, bool stream) {
  using C = compute_t<S>;
  S* o = reinterpret_cast<S*>(p[0]);
  int64_t i = 0;
  [&]<size_t... K>(std::index_sequence<K...>) {
    constexpr int W = Vec<C>::size;
    const auto in = [&](size_t k) { return reinterpret_cast<const S*>(p[k + 1]); };
    // Elements [j, j + m) (m < W) through one zero-padded vector.
    const auto partial = [&](int64_t j, int64_t m) {
      S buf[NIn][W] = {};
      for (size_t k = 0; k < size_t(NIn); ++k)
        for (int64_t t = 0; t < m; ++t) buf[k][t] = in(k)[s[k + 1] == 0 ? 0 : j + t];
      S res[W];
      store_vec(Vec<C>(f(load_vec(buf[K])...)), res);
      std::copy(res, res + m, o + j);
    };
    if (dense) {
      const auto at = [&](int64_t j) { return Vec<C>(f(load_vec(in(K) + j)...)); };
      if constexpr (std::is_same_v<S, C>) {  // (streaming stores are float/double vectors)
        const auto addr = reinterpret_cast<uintptr_t>(o);
        if (stream && n * int64_t(sizeof(C)) >= kStreamMinRunBytes && addr % sizeof(C) == 0) {
          const int64_t head = int64_t((kVecBytes - addr % kVecBytes) % kVecBytes / sizeof(C));
          if (head > 0) partial(0, head);
          for (i = head; i + W <= n; i += W) stream_store(at(i), o + i);
          stream_fence();
        }
      }
      for (; i + W <= n; i += W) store_vec(at(i), o + i);
    } else {
      const auto lane = [&](size_t k, int64_t j) {
        return s[k + 1] == 0 ? Vec<C>(C(in(k)[0])) : load_vec(in(k) + j);
      };
      for (; i + W <= n; i += W) store_vec(Vec<C>(f(lane(K, i)...)), o + i);
    }
    if (i < n) partial(i, n - i);
  }(std::make_index_sequence<NIn>());
}

// One 1-D run of map_kernel for every dtype but float16 (which takes float blocks): out = p[0],
// inputs p[1..NIn], byte strides s, n elements. Row kinds: every input contiguous (the hot
// case), contiguous or broadcast (a scalar or a bias row, stride 0), or anything else (plain
// strided loop). Note [Padded tail]: with a SIMD functor the last partial vector of a contiguous
// or broadcast run is computed as one zero-padded vector, so every element of such a run takes
// the same code path and a result never depends on where a thread's chunk happens to end.
template <class Out, class In, int NIn, class F>
void map_row_direct(const F& f, std::array<char*, NIn + 1>& p,
                    const std::array<int64_t, NIn + 1>& s, int64_t n, bool stream) {
  using C = compute_t<In>;
  constexpr int N = NIn + 1;
  bool dense = s[0] == sizeof(Out), bcast_ok = dense;
  for (int k = 1; k < N; ++k) {
    dense &= s[k] == sizeof(In);
    bcast_ok &= s[k] == sizeof(In) || s[k] == 0;
  }
  // float and double, and bfloat16 in registers (Note [bfloat16 in registers])
  constexpr bool vectorize = (std::is_same_v<In, C> || std::is_same_v<In, BFloat16>) &&
                             std::is_same_v<Out, In> &&
                             vectorizable<F, C>(std::make_index_sequence<NIn>());
  if constexpr (vectorize) {
    if (bcast_ok) return map_row_simd<In, NIn>(f, p, s, n, dense, stream);
  }
  Out* o = reinterpret_cast<Out*>(p[0]);
  [&]<size_t... K>(std::index_sequence<K...>) {
    int64_t i = 0;
    if constexpr (!vectorize) {  // (a vectorised functor has handled dense runs above)
      if (dense) {
        for (; i < n; ++i)
          o[i] = convert<Out>(f(convert<C>(reinterpret_cast<const In*>(p[K + 1])[i])...));
        return;
      }
    }
    for (; i < n; ++i)
      *reinterpret_cast<Out*>(p[0] + i * s[0]) =
          convert<Out>(f(load_as<In, C>(p[K + 1] + i * s[K + 1])...));
  }(std::make_index_sequence<NIn>());
}

// Note [float16 in float blocks]: a float16 run is widened to float a block at a time (with
// F16C where the CPU has it), computed by the float dtype's own instantiation of the same
// functor (a half dtype's functor is made for its compute type, float, so it is the very type
// the float dtype runs) and narrowed back, instead of a scalar loop of software conversions:
// 4M elements at 1 thread on a Zen 3, add 31 -> 3.6 ms, exp 50 -> 9.6, gelu 75 -> 10.4.
// Widening is exact and narrowing rounds to nearest even as the scalar conversion does, so the
// float arithmetic alone decides the result, as for float tensors. bfloat16 does not take
// blocks: through them add ran 1.5x slower (3.0 -> 4.5 ms) than its fused loop, which GCC
// vectorises with the conversions; it converts in registers instead (Note [bfloat16 in
// registers]).
inline constexpr int64_t kHalfBlock = 512;

// A block's operand in float: contiguous runs through the bulk conversion (half_convert.h: F16C
// where the CPU has it), strided ones element by element.
inline void widen_half_block(const char* src, int64_t stride, float* dst, int64_t m) {
  if (stride == int64_t(sizeof(Half)))
    return ::ember::cpu::to_float(reinterpret_cast<const Half*>(src), dst, m);
  for (int64_t i = 0; i < m; ++i) dst[i] = float(*reinterpret_cast<const Half*>(src + i * stride));
}

inline void narrow_half_block(const float* src, char* dst, int64_t stride, int64_t m) {
  if (stride == int64_t(sizeof(Half)))
    return ::ember::cpu::from_float(src, reinterpret_cast<Half*>(dst), m);
  for (int64_t i = 0; i < m; ++i) *reinterpret_cast<Half*>(dst + i * stride) = Half(src[i]);
}

// The row of a float computation, out of line and with the functor passed untyped: the float
// dtype's rows and float16's blocks (Note [float16 in float blocks]) share this one copy of the
// SIMD loop, and the block loop around it is compiled once per arity, not per functor (inlined
// into each, the block loops made binary.cpp's code a fifth larger).
template <int NIn>
using FloatRow = void (*)(const void* f, std::array<char*, NIn + 1>& p,
                          const std::array<int64_t, NIn + 1>& s, int64_t n, bool stream);

template <class Out, int NIn, class F>
[[gnu::noinline]] void map_float_row(const void* f, std::array<char*, NIn + 1>& p,
                                     const std::array<int64_t, NIn + 1>& s, int64_t n,
                                     bool stream) {
  // A local copy, which the loop's stores cannot alias: read through the pointer, add_16M's
  // kernel ran 8% more instructions than on main (valgrind, 1 thread); from the copy, 17% fewer.
  const F local = *static_cast<const F*>(f);
  map_row_direct<Out, float, NIn>(local, p, s, n, stream);
}

// map_row for float16 (Note [float16 in float blocks]); Out is Half or bool, and `row` is
// map_float_row for Out's float counterpart.
template <class Out, int NIn>
[[gnu::noinline]] void map_half_row_in_float_blocks(FloatRow<NIn> row, const void* f,
                                                    const std::array<char*, NIn + 1>& p,
                                                    const std::array<int64_t, NIn + 1>& s,
                                                    int64_t n) {
  constexpr bool kBoolOut = std::is_same_v<Out, bool>;
  alignas(kVecBytes) float in[NIn][kHalfBlock];
  alignas(kVecBytes) float out[kBoolOut ? 1 : kHalfBlock];
  std::array<char*, NIn + 1> q;
  std::array<int64_t, NIn + 1> t;
  for (int k = 0; k < NIn; ++k) t[k + 1] = s[k + 1] == 0 ? 0 : int64_t(sizeof(float));
  // A broadcast operand (stride 0) is widened once and stays a broadcast.
  for (int k = 0; k < NIn; ++k)
    if (s[k + 1] == 0) widen_half_block(p[k + 1], 0, in[k], 1);
  for (int64_t j = 0; j < n; j += kHalfBlock) {
    const int64_t m = std::min(kHalfBlock, n - j);
    for (int k = 0; k < NIn; ++k) {
      if (s[k + 1] != 0) widen_half_block(p[k + 1] + j * s[k + 1], s[k + 1], in[k], m);
      q[k + 1] = reinterpret_cast<char*>(in[k]);
    }
    if constexpr (kBoolOut) {  // bool results are written in place, as the float dtype's are
      q[0] = p[0] + j * s[0];
      t[0] = s[0];
      row(f, q, t, m, /*stream=*/false);
    } else {
      q[0] = reinterpret_cast<char*>(out);
      t[0] = sizeof(float);
      row(f, q, t, m, /*stream=*/false);
      narrow_half_block(out, p[0] + j * s[0], s[0], m);
    }
  }
}

// One 1-D run of map_kernel: out = p[0], inputs p[1..NIn], byte strides s, n elements.
template <class Out, class In, int NIn, class F>
void map_row(const F& f, std::array<char*, NIn + 1>& p, const std::array<int64_t, NIn + 1>& s,
             int64_t n, bool stream) {
  if constexpr (std::is_same_v<In, Half>) {
    using OutFloat = std::conditional_t<std::is_same_v<Out, bool>, bool, float>;
    map_half_row_in_float_blocks<Out, NIn>(&map_float_row<OutFloat, NIn, F>, &f, p, s, n);
  } else if constexpr (std::is_same_v<In, float>) {
    map_float_row<Out, NIn, F>(&f, p, s, n, stream);
  } else {
    map_row_direct<Out, In, NIn>(f, p, s, n, stream);
  }
}

}  // namespace detail

/// out[i] = f(in[i]...) with all inputs stored as In and computed as C = compute_t<In>;
/// the result is stored as Out.
template <class Out, class In, int NIn, class F>
void map_kernel(const Tensor& out, const std::array<const Tensor*, NIn>& in, const F& f) {
  constexpr int N = NIn + 1;
  std::array<const Tensor*, N> ops{&out};
  std::copy(in.begin(), in.end(), ops.begin() + 1);
  const auto plan = plan_tensors<N>(out.sizes(), ops);
  const bool stream = out.nbytes() >= detail::stream_store_min_bytes();
  // A functor may throw (integer division by zero), but an exception must not leave an OpenMP
  // region: the first one is kept, the remaining rows are skipped, and it is rethrown here.
  std::atomic<bool> failed = false;
  std::exception_ptr error;
  run_loop(plan, [&](std::array<char*, N>& p, const std::array<int64_t, N>& s, int64_t n) {
    if (failed.load(std::memory_order_relaxed)) return;
    try {
      detail::map_row<Out, In, NIn>(f, p, s, n, stream);
    } catch (...) {
      if (!failed.exchange(true)) error = std::current_exception();
    }
  });
  if (error) std::rethrow_exception(error);
}

// The dtype sets the kernel files register their entries for, by their short names.
inline constexpr auto kAll = DtypeSet::All;
inline constexpr auto kNumeric = DtypeSet::Numeric;
inline constexpr auto kFloating = DtypeSet::Floating;

/// What an elementwise kernel stores: the compute type, or bool (comparisons, predicates).
enum class Result { Compute, Bool };

// Note [Integer dtypes at the lowest level]: wider vectors pay for the floating dtypes (explicit
// SIMD for float/double, F16C and wider conversions for half and bfloat16), hardly for integer
// and bool arithmetic and comparisons, which no benchmark row uses: measured on a Zen 3 at 1
// thread, add/eq on int16/int32/int64/uint8 ran within 10% of the AVX2 copy from the baseline
// one. So only the lowest compiled level (EMBER_CPU_LEVEL_LOWEST, from CMakeLists.txt; the one
// level of a native build) instantiates the elementwise kernels for integer and bool dtypes, and
// a higher level hands such a call to the lowest level's entry of the same kernel
// (lowest_level_kernels() in dispatch.h): one extra indirect call on an integer op, for about a
// third of binary.cpp's and half of compare.cpp's code per level saved on every level but one.
// Reductions and casts keep every dtype per level: amax on int32 ran 2.5x slower from the
// baseline copy (SSE2 has no 32-bit min/max), int64 sums 1.2-1.7x.
#if defined(EMBER_CPU_LEVEL) && !defined(EMBER_CPU_LEVEL_LOWEST)
inline constexpr bool kIntegersAtLowestLevel = true;
#else
inline constexpr bool kIntegersAtLowestLevel = false;
#endif

/// Where an elementwise kernel's integer and bool dtypes are compiled (Note [Integer dtypes at
/// the lowest level]). Selections keep them at every level: SSE2 has no 64-bit compare
/// and no blend, and where() on int64 and bool ran 2.4x and 2x slower from the lowest level.
enum class Integers { AtLowestLevel, EveryLevel };

/// Runs `make`'s functor over an elementwise call with N operands: `make` is called with the
/// compute type C (float for half types) and returns the functor (Note [Inner loops] in vec.h);
/// dtypes outside S are `[op] not implemented for dtype ...`. `Id` is the kernel being run.
template <backend::ElementwiseKernel Id, DtypeSet S, int N, Result R = Result::Compute,
          Integers I = Integers::AtLowestLevel, class Make>
void run_elementwise(const backend::ElementwiseCall& c, const Make& make) {
  dispatch<S>(c.compute, c.op, [&]<class T>() {
    if constexpr (kIntegersAtLowestLevel && I == Integers::AtLowestLevel &&
                  std::is_integral_v<T>) {
      lowest_level_kernels().elementwise[size_t(Id)](c);
    } else {
      const auto f = make.template operator()<compute_t<T>>();
      using Out = std::conditional_t<R == Result::Bool, bool, T>;
      [&]<size_t... K>(std::index_sequence<K...>) {
        map_kernel<Out, T, N>(c.out, std::array<const Tensor*, N>{&c.in[K]...}, f);
      }(std::make_index_sequence<N>{});
    }
  });
}

/// The table entry of a functor without arguments.
template <backend::ElementwiseKernel Id, DtypeSet S, int N, auto Make, Result R, Integers I>
void elementwise_entry(const backend::ElementwiseCall& c) {
  run_elementwise<Id, S, N, R, I>(c, Make);
}

/// Puts the entry of kernel Id, a functor without arguments, into `b`: `set_entry<K::exp,
/// kFloating, 1, exp_fn>(b)`.
template <backend::ElementwiseKernel Id, DtypeSet S, int N, auto Make, Result R = Result::Compute,
          Integers I = Integers::AtLowestLevel>
void set_entry(backend::Backend& b) {
  b[Id] = &elementwise_entry<Id, S, N, Make, R, I>;
}

}  // namespace EMBER_CPU_NS
