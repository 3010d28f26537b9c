// torch.nn.utils' clip_grad_norm_/clip_grad_value_/parameters_to_vector/vector_to_parameters.
// clip_grad_norm_ follows PyTorch 1.13 step by step: per-gradient norms in the gradients' dtype,
// the norm of their stack, coefficient max_norm / (total + 1e-6) clamped to 1, and every
// gradient multiplied by it (also when it is 1, as PyTorch does).
#include "ember/nn/utils.h"

#include <cmath>
#include <sstream>

#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/error.h"
#include "ember/math.h"
#include "ember/shape.h"
#include "ember/value.h"  // StateDict (ember/nn/utils.h declares it only)

namespace ember::nn::utils {

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm,
                       ClipGradNormOptions options) {
  const char* op = "nn.utils.clip_grad_norm_";
  NoGradGuard no_grad;
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters)
    if (p.defined() && p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty()) return 0.0;
  const double q = options.norm_type;
  std::vector<Tensor> norms;
  for (const Tensor& g : grads)
    norms.push_back(std::isinf(q) ? g.detach().abs().max() : g.detach().norm(q));
  Tensor total = norms.size() == 1 ? norms[0]
                 : std::isinf(q)   ? stack(norms).max()
                                   : stack(norms).norm(q);
  const double total_norm = total.item<double>();
  EMBER_CHECK(!options.error_if_nonfinite || std::isfinite(total_norm), op,
              "The total norm of order ", q,
              " for gradients from `parameters` is non-finite, so it cannot be clipped. To "
              "disable this error and scale the gradients by the non-finite norm anyway, set "
              "`error_if_nonfinite=false`");
  // In the norm's dtype, as PyTorch's tensor arithmetic: max_norm / (total + 1e-6), at most 1.
  Tensor coef = (total + 1e-6).reciprocal().mul_(max_norm).clamp_(std::nullopt, 1.0);
  for (Tensor& g : grads) {
    Tensor d = g.detach();
    d.mul_(coef.to(d.dtype()));
  }
  return total_norm;
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const Tensor& p : parameters)
    if (p.defined() && p.grad().defined()) {
      Tensor d = p.grad().detach();
      d.clamp_(-clip_value, clip_value);
    }
}

Tensor parameters_to_vector(const std::vector<Tensor>& parameters) {
  EMBER_CHECK(!parameters.empty(), "nn.utils.parameters_to_vector", "expects parameters");
  std::vector<Tensor> flat;
  for (const Tensor& p : parameters) {
    EMBER_CHECK(p.device() == parameters[0].device(), "nn.utils.parameters_to_vector",
                "Found two parameters on different devices");
    flat.push_back(p.reshape({-1}));
  }
  return cat(flat, 0);
}

void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters) {
  const char* op = "nn.utils.vector_to_parameters";
  EMBER_CHECK(vec.dim() == 1, op, "expected vec to be a 1-D tensor, got ", vec.dim(), " dims");
  int64_t total = 0;
  for (const Tensor& p : parameters) total += p.numel();
  EMBER_CHECK(total == vec.numel(), op, "vec has ", vec.numel(),
              " elements but the parameters hold ", total);
  NoGradGuard no_grad;
  int64_t offset = 0;
  for (const Tensor& p : parameters) {
    const int64_t n = p.numel();
    Tensor dst = p.detach();
    dst.copy_(vec.detach().narrow(0, offset, n).view(p.sizes()));
    offset += n;
  }
}

int64_t count_parameters(const std::vector<Tensor>& parameters, bool trainable_only) {
  int64_t n = 0;
  for (const Tensor& p : parameters)
    if (!trainable_only || p.requires_grad()) n += p.numel();
  return n;
}

void consume_prefix_in_state_dict_if_present(StateDict& state_dict, const std::string& prefix) {
  StateDict stripped;
  for (const auto& [key, value] : state_dict)
    stripped.insert(key.rfind(prefix, 0) == 0 ? key.substr(prefix.size()) : key, value);
  state_dict = std::move(stripped);
}

}  // namespace ember::nn::utils
