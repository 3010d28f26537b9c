// torch::nn::utils::clip_grad_norm_ and clip_grad_value_ with LibTorch's signatures (the norm
// type and the non-finite check positional), over a vector of parameters, a braced list or one
// tensor:
//   double norm = torch::nn::utils::clip_grad_norm_(model->parameters(), /*max_norm=*/1.0);
#pragma once

#include <initializer_list>
#include <vector>

#include "ember/nn/utils.h"
#include "ember/tensor.h"

namespace torch::nn::utils {

/// Scales the gradients so their total norm is at most max_norm; returns the norm before.
inline double clip_grad_norm_(const std::vector<ember::Tensor>& parameters, double max_norm,
                              double norm_type = 2.0, bool error_if_nonfinite = false) {
  return ember::nn::utils::clip_grad_norm_(
      parameters, max_norm, {.norm_type = norm_type, .error_if_nonfinite = error_if_nonfinite});
}
inline double clip_grad_norm_(std::initializer_list<ember::Tensor> parameters, double max_norm,
                              double norm_type = 2.0, bool error_if_nonfinite = false) {
  return clip_grad_norm_(std::vector<ember::Tensor>(parameters), max_norm, norm_type,
                         error_if_nonfinite);
}
inline double clip_grad_norm_(ember::Tensor parameter, double max_norm, double norm_type = 2.0,
                              bool error_if_nonfinite = false) {
  return clip_grad_norm_(std::vector<ember::Tensor>{parameter}, max_norm, norm_type,
                         error_if_nonfinite);
}

/// Clamps every gradient to [-clip_value, clip_value].
inline void clip_grad_value_(const std::vector<ember::Tensor>& parameters, double clip_value) {
  ember::nn::utils::clip_grad_value_(parameters, clip_value);
}
inline void clip_grad_value_(std::initializer_list<ember::Tensor> parameters, double clip_value) {
  clip_grad_value_(std::vector<ember::Tensor>(parameters), clip_value);
}
inline void clip_grad_value_(ember::Tensor parameter, double clip_value) {
  clip_grad_value_(std::vector<ember::Tensor>{parameter}, clip_value);
}

}  // namespace torch::nn::utils
