// The creation family's kernels (src/ops/creation.cpp): the fills of new tensors that are not a
// single value (full's is the copy family's fill). The front end checks the bounds and the size
// and allocates the contiguous 1-D result on the requested device. tensor() and from_vector stage
// host values in a CPU tensor and copy it, as PyTorch does: they need no kernel.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/convert.h"
#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember::backend {

/// The type arange computes in for elements of type T (PyTorch's accumulate type: int64 for
/// integers, float for the half types, else double); its front end checks the bounds in it.
template <class T>
using arange_acc_t = std::conditional_t<std::is_integral_v<T>, int64_t,
                                        std::conditional_t<is_half_v<T>, float, double>>;

struct CreationKernels {
  /// Every byte of t (contiguous) zero: zeros().
  void (*zero)(const Tensor& t) = nullptr;
  /// t[i] = start + i * step, rounded as PyTorch 1.13's CPU kernel (Note [Range rounding]).
  void (*arange)(const Tensor& t, Scalar start, Scalar step) = nullptr;
  /// t (steps elements) = start .. end evenly, both endpoints exact (Note [Range rounding]).
  void (*linspace)(const Tensor& t, Scalar start, Scalar end) = nullptr;
  /// t[i] = base ^ exponents[i] (exponents: float64, t's shape).
  void (*logspace)(const Tensor& t, const Tensor& exponents, double base) = nullptr;
};

}  // namespace ember::backend
