// See batch_norm_plan.h.
#include "backend/cuda/batch_norm_plan.h"

#include <algorithm>
#include <initializer_list>

#include "backend/cuda/copy_plan.h"
#include "backend/cuda/elementwise_plan.h"
#include "backend/cuda/reduce_plan.h"

namespace ember::cuda {
namespace {

/// The launch's common part, after checking the layouts the kernels assume: x and the tensors
/// of `same` contiguous in x's floating dtype, those of `opmath` (C) in its op math dtype, those
/// of `stats` (C) in float64.
kernels::BatchNormLaunch batch_norm_common(const char* op, const Tensor& x,
                                           std::initializer_list<Tensor> same,
                                           std::initializer_list<Tensor> opmath,
                                           std::initializer_list<Tensor> stats) {
  EMBER_CHECK(x.is_floating_point() && x.dim() >= 2, op, "the cuda backend has no ",
              dtype_name(x.dtype()), " kernel yet (", op,
              " on cuda takes (N, C, *) float32, float64, float16 or bfloat16)");
  const Dtype cd = x.dtype() == kFloat64 ? kFloat64 : kFloat32;
  const int64_t C = x.size(1);
  bool ok = x.is_contiguous();
  for (const Tensor& t : same)
    ok &= !t.defined() || (t.is_contiguous() && t.dtype() == x.dtype() && t.sizes() == x.sizes());
  for (const Tensor& t : opmath)
    ok &= !t.defined() || (t.is_contiguous() && t.dtype() == cd && t.numel() == C);
  for (const Tensor& t : stats)
    ok &= !t.defined() || (t.is_contiguous() && t.dtype() == kFloat64 && t.numel() == C);
  EMBER_CHECK(ok, op, "expected contiguous operands of x's shape, (C) parameters in ",
              dtype_name(cd), " and (C) float64 statistics, got x ", x.sizes(), " ", x.dtype());
  kernels::BatchNormLaunch l{};
  l.type = storage_type(x.dtype(), op);
  l.N = x.size(0);
  l.C = C;
  l.S = l.N * C > 0 ? x.numel() / (l.N * C) : 0;
  l.x = data_or_null<const char>(x);
  return l;
}

/// A pass over one block per channel, or a thread per channel or per element.
kernels::BatchNormLaunch with_pass(kernels::BatchNormLaunch l, kernels::BatchNormLaunch::Pass p) {
  l.pass = p;
  switch (p) {
    case kernels::BatchNormLaunch::stats_pass:
    case kernels::BatchNormLaunch::grad_sums_pass:
      l.threads = block_threads(l.N * l.S, kBatchNormThreads);
      l.blocks = uint32_t(std::clamp<int64_t>(l.C, 1, 65536));
      break;
    case kernels::BatchNormLaunch::params_pass:
      l.threads = kElementwiseThreads;
      l.blocks = grid_blocks(l.C);
      break;
    default:
      l.threads = kElementwiseThreads;
      l.blocks = grid_blocks(l.N * l.C * l.S);
  }
  return l;
}

}  // namespace

kernels::BatchNormLaunch plan_batch_norm_stats_launch(const Tensor& x, const Tensor& mean,
                                                      const Tensor& var) {
  kernels::BatchNormLaunch l = batch_norm_common("batch_norm", x, {}, {}, {mean, var});
  l.batch_mean = data_or_null<double>(mean);
  l.batch_var = data_or_null<double>(var);
  return with_pass(l, kernels::BatchNormLaunch::stats_pass);
}

std::array<kernels::BatchNormLaunch, 2> plan_batch_norm_launches(
    const Tensor& y, const Tensor& save_mean, const Tensor& save_invstd, const Tensor& x,
    const Tensor& weight, const Tensor& bias, const Tensor& mean, const Tensor& var, double eps,
    void* scratch) {
  kernels::BatchNormLaunch l =
      batch_norm_common("batch_norm", x, {y}, {save_mean, save_invstd, weight, bias}, {mean, var});
  l.eps = eps;
  l.y = data_or_null(y);
  l.weight = data_or_null<const char>(weight);
  l.bias = data_or_null<const char>(bias);
  l.mean = data_or_null<const double>(mean);
  l.var = data_or_null<const double>(var);
  l.save_mean = data_or_null(save_mean);
  l.save_invstd = data_or_null(save_invstd);
  l.scratch = static_cast<char*>(scratch);
  return {with_pass(l, kernels::BatchNormLaunch::params_pass),
          with_pass(l, kernels::BatchNormLaunch::affine_pass)};
}

std::array<kernels::BatchNormLaunch, 2> plan_batch_norm_backward_launches(
    const Tensor& grad_input, const Tensor& grad_weight, const Tensor& grad_bias, const Tensor& x,
    const Tensor& grad_out, const Tensor& save_mean, const Tensor& save_invstd,
    const Tensor& weight, bool training, void* scratch) {
  kernels::BatchNormLaunch l =
      batch_norm_common("batch_norm_backward", x, {grad_out, grad_input},
                        {save_mean, save_invstd, weight, grad_weight, grad_bias}, {});
  l.training = training;
  l.grad_out = data_or_null<const char>(grad_out);
  l.grad_input = data_or_null(grad_input);
  l.weight = data_or_null<const char>(weight);
  l.save_mean = data_or_null(save_mean);
  l.save_invstd = data_or_null(save_invstd);
  l.grad_weight = data_or_null(grad_weight);
  l.grad_bias = data_or_null(grad_bias);
  l.scratch = static_cast<char*>(scratch);
  return {with_pass(l, kernels::BatchNormLaunch::grad_sums_pass),
          with_pass(l, kernels::BatchNormLaunch::grad_input_pass)};
}

}  // namespace ember::cuda
