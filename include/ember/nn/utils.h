// nn::utils — gradient clipping and flattening parameters, as torch.nn.utils:
//
//   double norm = nn::utils::clip_grad_norm_(params, 1.0);             // returns the total norm
//   nn::utils::clip_grad_norm_(params, 1.0, {.norm_type = INFINITY, .error_if_nonfinite = true});
//   nn::utils::clip_grad_value_(params, 0.5);
//   Tensor flat = nn::utils::parameters_to_vector(params);
#pragma once

#include <string>
#include <vector>

#include "ember/tensor.h"

namespace ember {
class StateDict;
}

namespace ember::nn::utils {

struct ClipGradNormOptions {
  double norm_type = 2.0;  // any p-norm; INFINITY for the max norm
  bool error_if_nonfinite = false;
};

/// Scales the gradients of `parameters` in place so their combined norm (the norm of the
/// per-gradient norms) is at most max_norm; parameters without a grad are skipped. Returns the
/// total norm before clipping (0 when no parameter has a grad).
double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm,
                       ClipGradNormOptions options = {});

/// Clamps every gradient to [-clip_value, clip_value] in place.
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);

/// The parameters flattened and concatenated into one 1-D tensor (a copy).
Tensor parameters_to_vector(const std::vector<Tensor>& parameters);

/// Copies consecutive slices of the 1-D `vec` into the parameters (PyTorch rebinds each
/// parameter's .data to the slice; ember copies, so the parameters keep their own storage).
void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters);

/// The number of parameter elements (the reference's `sum(p.numel() for p in
/// model.parameters())`); with trainable_only, only parameters that require grad count.
int64_t count_parameters(const std::vector<Tensor>& parameters, bool trainable_only = false);

/// Strips `prefix` from every key of `state_dict` that starts with it, in place and in order
/// (torch.nn.modules.utils.consume_prefix_in_state_dict_if_present): a dict saved from
/// ddp->state_dict() loads into the bare model after consume_prefix...(sd, "module.").
void consume_prefix_in_state_dict_if_present(StateDict& state_dict, const std::string& prefix);

}  // namespace ember::nn::utils
