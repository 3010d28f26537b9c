// The host half of the CUDA creation kernels, apart from the CUDA build so that every build
// compiles and tests it: arange, linspace and logspace become a kernels::RangeLaunch, their
// scalars converted as the CPU kernel converts them. No device is touched.
#pragma once

#include "backend/cuda/creation_launch.h"
#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember::cuda {

/// CreationKernels::arange's arguments: t[i] = start + i * step into t (contiguous, 1-D).
kernels::RangeLaunch plan_arange_launch(const Tensor& t, Scalar start, Scalar step);

/// CreationKernels::linspace's arguments for two or more steps (t's numel); one step is a fill
/// of start, which the caller does.
kernels::RangeLaunch plan_linspace_launch(const Tensor& t, Scalar start, Scalar end);

/// CreationKernels::logspace's arguments: t[i] = base ^ exponents[i] (float64, t's shape).
kernels::RangeLaunch plan_logspace_launch(const Tensor& t, const Tensor& exponents, double base);

}  // namespace ember::cuda
