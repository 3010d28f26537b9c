// The normalisation family's kernels (src/ops/norm.cpp): the fused forward sweeps of batch_norm,
// layer_norm, group_norm and rms_norm and their fused backward. The front end checks the shapes,
// converts the operands to the compute dtype (float32, or float64 for float64: PyTorch's opmath
// type) and makes them contiguous, allocates the outputs on the input's device, updates the
// running statistics and records autograd; with create_graph the backward formulas are public
// ops (src/ops/norm.cpp), which stay differentiable.
#pragma once

#include <cstdint>

#include "ember/tensor.h"

namespace ember::backend {

/// Planes (the S elements of one (n, c) of an (N, C, S) input) at least this long are swept one
/// contiguous run at a time (Note [Batch norm layouts]); batch_norm's fused backward takes them.
constexpr int64_t kNormPlanarMin = 32;

/// In every entry: x (and grad_out) is contiguous in the compute dtype, or in bfloat16/float16,
/// computed in float32 (Note [Reduced-precision norms]); weight, bias and the statistics are
/// contiguous in the compute dtype, weight and bias possibly undefined (1 and 0); the outputs are
/// new and contiguous, y and grad_input in x's dtype (no float32 copy of the activations), the
/// rest in the compute dtype.
struct NormKernels {
  /// Per-channel mean and biased variance of x (N, C, *), into float64 (C) tensors.
  void (*batch_norm_stats)(const Tensor& x, const Tensor& mean, const Tensor& var) = nullptr;
  /// y = (x - mean[c]) / sqrt(var[c] + eps) * weight[c] + bias[c] for x (N, C, *); mean and var
  /// are float64 (C) (the batch's or the running ones); save_mean and save_invstd (C) get mean
  /// and 1 / sqrt(var + eps).
  void (*batch_norm)(const Tensor& y, const Tensor& save_mean, const Tensor& save_invstd,
                     const Tensor& x, const Tensor& weight, const Tensor& bias,
                     const Tensor& mean, const Tensor& var, double eps) = nullptr;
  /// batch_norm's gradients from its saved statistics (C) for planes of kNormPlanarMin or more
  /// elements (Note [Fused batch norm backward]); an undefined output is not computed.
  void (*batch_norm_backward)(const Tensor& grad_input, const Tensor& grad_weight,
                              const Tensor& grad_bias, const Tensor& x, const Tensor& grad_out,
                              const Tensor& save_mean, const Tensor& save_invstd,
                              const Tensor& weight, bool training) = nullptr;
  /// x read as M rows of N: y = (x - mean) rstd weight + bias per row; mean and rstd hold M.
  void (*layer_norm)(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                     const Tensor& weight, const Tensor& bias, int64_t M, int64_t N,
                     double eps) = nullptr;
  /// layer_norm's gradients from its saved mean and rstd (M) for x and grad_out read as M rows
  /// of N (Note [Fused row norm backward]); an undefined mean means rms_norm's (x not centred,
  /// no bias); an undefined output is not computed.
  void (*layer_norm_backward)(const Tensor& grad_input, const Tensor& grad_weight,
                              const Tensor& grad_bias, const Tensor& x, const Tensor& grad_out,
                              const Tensor& mean, const Tensor& rstd, const Tensor& weight,
                              int64_t M, int64_t N) = nullptr;
  /// x read as M rows of N: y = x rstd weight with rstd = 1 / sqrt(mean(x²) + eps) per row.
  void (*rms_norm)(const Tensor& y, const Tensor& rstd, const Tensor& x, const Tensor& weight,
                   int64_t M, int64_t N, double eps) = nullptr;
  /// x (N, C, *) in G groups of C / G channels: normalised per (n, group), then weight[c] and
  /// bias[c] per channel; mean and rstd are (N, G).
  void (*group_norm)(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                     const Tensor& weight, const Tensor& bias, int64_t G, double eps) = nullptr;
  /// group_norm's gradients from its saved mean and rstd (N, G) (Note [Fused group norm
  /// backward]); an undefined output is not computed.
  void (*group_norm_backward)(const Tensor& grad_input, const Tensor& grad_weight,
                              const Tensor& grad_bias, const Tensor& x, const Tensor& grad_out,
                              const Tensor& mean, const Tensor& rstd, const Tensor& weight,
                              int64_t G) = nullptr;
};

}  // namespace ember::backend
