// The creation kernels' work (creation_launch.h), for the device (creation.cu) and the CPU
// emulation (creation_emulation.cpp) alike: each element computed on its own by the CPU kernel's
// formula for its position (Note [Range rounding] in backend/cpu/creation.cpp), so a range on the
// device has the CPU's bits. Every product that the CPU rounds on its own is rounded on its own
// here too (mul_rn): nvcc would otherwise fuse it into the addition that follows.
#pragma once

#include <cstdint>
#include <type_traits>

#include "backend/cuda/block.cuh"
#include "backend/cuda/copy_body.cuh"
#include "backend/cuda/creation_launch.h"

namespace ember::cuda::kernels {

template <class S>
struct RangeBody {
  /// arange's accumulate type (backend::arange_acc_t): int64, float for the half types, else
  /// double.
  using A = std::conditional_t<std::is_integral_v<S>, int64_t,
                               std::conditional_t<is_half_v<S>, float, double>>;

  /// The element a scalar step of the CPU kernel writes at i (its tail, and each vector run's
  /// first element).
  EMBER_HOST_DEVICE static S arange_at(const RangeLaunch& l, int64_t i) {
    if constexpr (std::is_integral_v<S>) {  // wraps like PyTorch's int64 arithmetic, without UB
      return S(int64_t(uint64_t(l.int_start) + uint64_t(l.int_step) * uint64_t(i)));
    } else {
      return convert<S>(math::fma(A(l.step), A(i), A(l.start)));
    }
  }

  /// linspace's k-th multiple of the step in the half types: each operation rounded to S.
  EMBER_HOST_DEVICE static float half_times(const RangeLaunch& l, int64_t k) {
    return float(S(float(l.step) * float(S(float(k)))));  // l.step holds an S exactly
  }

  /// linspace's element i of a scalar step: counted up from start in the first half, down from
  /// end in the second.
  EMBER_HOST_DEVICE static S linspace_at(const RangeLaunch& l, int64_t i) {
    const int64_t halfway = l.n / 2;
    if constexpr (is_half_v<S>) {
      return i < halfway ? S(float(l.start) + half_times(l, i))
                         : S(float(l.end) - half_times(l, l.n - i - 1));
    } else {
      using C = std::conditional_t<std::is_integral_v<S>, double, S>;  // the step's type
      const C step = C(l.step);
      return convert<S>(i < halfway ? math::fma(step, C(i), C(l.start))
                                    : math::fma(-step, C(l.n - i - 1), C(l.end)));
    }
  }

  /// Element k of the vector run from `base` (the run's first element).
  EMBER_HOST_DEVICE static S run_at(const RangeLaunch& l, S base, int64_t k) {
    if constexpr (!std::is_integral_v<S>)  // integer aranges have no runs (vector_end 0)
      if (l.kind == RangeLaunch::arange) return convert<S>(math::fma(A(k), A(l.step), A(base)));
    if constexpr (is_half_v<S>) {
      return S(float(base) + half_times(l, k));
    } else {
      using C = std::conditional_t<std::is_integral_v<S>, double, S>;
      return convert<S>(C(base) + math::mul_rn(C(k), C(l.step)));
    }
  }

  template <class Block>
  EMBER_HOST_DEVICE static void run(const Block& b, const RangeLaunch& l) {
    S* out = reinterpret_cast<S*>(l.out);
    grid_stride(b, l.n, [&](int64_t i) {
      if (l.kind == RangeLaunch::logspace) {
        out[i] = convert<S>(math::pow(l.base, l.exponents[i]));
        return;
      }
      auto at = [&](int64_t j) {
        return l.kind == RangeLaunch::arange ? arange_at(l, j) : linspace_at(l, j);
      };
      if (i >= l.vector_end) {
        out[i] = at(i);
        return;
      }
      const int64_t first = i - i % l.lanes;
      out[i] = run_at(l, at(first), i - first);
    });
  }
};

/// The bodies of a launch (launch.cuh): the floating types and int32/int64.
template <class F>
bool with_body(const RangeLaunch& l, F&& f) {
  return with_type_among<float, double, Half, BFloat16, int32_t, int64_t>(
      l.type, [&](auto s) { f(Tag<RangeBody<typename decltype(s)::type>>{}); });
}

}  // namespace ember::cuda::kernels
