// instance_norm: torch.nn.functional.instance_norm over the normalisations ember already has.
// With the input's own statistics, each (sample, channel) plane normalised over its elements is
// exactly group_norm with one group per channel (its fused kernels and backward); PyTorch gets
// the same numbers by folding the batch into the channels of a batch_norm. By running statistics
// it is batch_norm in eval mode. The running statistics move as PyTorch's do: every sample
// updates its own copy of them, and the copies are averaged over the batch.
#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/math.h"
#include "ember/nn/functional/layers.h"
#include "ember/reduce.h"

namespace ember::nn::functional {
namespace {

void check_per_channel(const char* op, const char* what, const Tensor& t, const Tensor& input) {
  const int64_t C = input.size(1);
  EMBER_CHECK(!t.defined() || (t.dim() == 1 && t.numel() == C), op, "Expected ", what,
              " to be a vector of size ", C, " (the channels of input of shape ", input.sizes(),
              "), but got ", what, " of shape ", t.defined() ? t.sizes() : IntArrayRef());
}

// running = mean over samples of ((1 - momentum) running + momentum stat_n), the variance
// unbiased over each plane's elements.
void update_running_stats(const Tensor& input, const Tensor& running_mean,
                          const Tensor& running_var, double momentum) {
  NoGradGuard no_grad;
  const int64_t N = input.size(0), C = input.size(1);
  const Tensor planes = input.detach().to(kFloat64).reshape({N, C, -1});
  const Tensor mean = planes.mean(-1), var = planes.var(-1);
  if (running_mean.defined()) {
    Tensor rm = running_mean;
    rm.copy_((running_mean.to(kFloat64) * (1.0 - momentum) + mean * momentum).mean(0));
  }
  if (running_var.defined()) {
    Tensor rv = running_var;
    rv.copy_((running_var.to(kFloat64) * (1.0 - momentum) + var * momentum).mean(0));
  }
}

}  // namespace

Tensor instance_norm(const Tensor& input, InstanceNormFuncOptions o) {
  const char* op = "instance_norm";
  EMBER_CHECK(input.dim() >= 2, op, "Expected at least 2 dimensions for input (N, C, *), got ",
              "input of shape ", input.sizes());
  check_per_channel(op, "weight", o.weight, input);
  check_per_channel(op, "bias", o.bias, input);
  check_per_channel(op, "running_mean", o.running_mean, input);
  check_per_channel(op, "running_var", o.running_var, input);
  if (!o.use_input_stats) {
    EMBER_CHECK(o.running_mean.defined() && o.running_var.defined(), op,
                "Expected running_mean and running_var to be defined when use_input_stats is "
                "false");
    return batch_norm(input, o.running_mean, o.running_var,
                      {.weight = o.weight, .bias = o.bias, .training = false, .eps = o.eps});
  }
  EMBER_CHECK(input.numel() == 0 || input.numel() / (input.size(0) * input.size(1)) > 1, op,
              "Expected more than 1 spatial element when training, got input size ", input.sizes());
  Tensor out = group_norm(input, input.size(1), {.weight = o.weight, .bias = o.bias, .eps = o.eps});
  if (o.running_mean.defined() || o.running_var.defined())
    update_running_stats(input, o.running_mean, o.running_var, o.momentum);
  return out;
}

}  // namespace ember::nn::functional
