// The normalisation kernels behind F::batch_norm / layer_norm / group_norm / rms_norm, in the
// forms autograd needs: each forward also returns the statistics its backward reads (mean and
// 1/sqrt(var + eps) per channel, row or group), and each backward is a plain function of them.
// Statistics are float32 for float16/bfloat16/float32 inputs and float64 for float64 (PyTorch's
// opmath type); gradients come back in the dtypes of the tensors they belong to.
#pragma once

#include <array>
#include <optional>
#include <tuple>

#include "ember/tensor.h"

namespace ember::nn::functional {

/// (output, save_mean (C), save_invstd (C)). In training the stats are the batch's (and the
/// running stats are updated in place with `momentum`); in eval they come from the running stats.
std::tuple<Tensor, Tensor, Tensor> batch_norm_forward(const Tensor& input, const Tensor& weight,
                                                      const Tensor& bias,
                                                      const Tensor& running_mean,
                                                      const Tensor& running_var, bool training,
                                                      std::optional<double> momentum, double eps);
/// (grad_input, grad_weight, grad_bias); an entry is undefined when its mask bit is false (or
/// grad_weight/grad_bias when weight is undefined). save_mean/save_invstd: batch_norm_forward's.
std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                       const Tensor& weight,
                                                       const Tensor& save_mean,
                                                       const Tensor& save_invstd, bool training,
                                                       std::array<bool, 3> output_mask = {
                                                           true, true, true});

/// (output, mean, rstd): mean and rstd have input's leading dims followed by 1s, like PyTorch's
/// native_layer_norm (shape (*, 1, ..., 1)).
std::tuple<Tensor, Tensor, Tensor> layer_norm_forward(const Tensor& input,
                                                      IntArrayRef normalized_shape,
                                                      const Tensor& weight, const Tensor& bias,
                                                      double eps);
std::tuple<Tensor, Tensor, Tensor> layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                       IntArrayRef normalized_shape,
                                                       const Tensor& mean, const Tensor& rstd,
                                                       const Tensor& weight,
                                                       std::array<bool, 3> output_mask = {
                                                           true, true, true});

/// (output, mean (N, G), rstd (N, G)).
std::tuple<Tensor, Tensor, Tensor> group_norm_forward(const Tensor& input, int64_t num_groups,
                                                      const Tensor& weight, const Tensor& bias,
                                                      double eps);
std::tuple<Tensor, Tensor, Tensor> group_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                       int64_t num_groups, const Tensor& mean,
                                                       const Tensor& rstd, const Tensor& weight,
                                                       std::array<bool, 3> output_mask = {
                                                           true, true, true});

/// (output, rstd): rstd shaped like layer_norm_forward's.
std::tuple<Tensor, Tensor> rms_norm_forward(const Tensor& input, IntArrayRef normalized_shape,
                                            const Tensor& weight, std::optional<double> eps);
/// (grad_input, grad_weight).
std::tuple<Tensor, Tensor> rms_norm_backward(const Tensor& grad_out, const Tensor& input,
                                             IntArrayRef normalized_shape, const Tensor& rstd,
                                             const Tensor& weight);

}  // namespace ember::nn::functional
