// See optim_plan.h.
#include "backend/cuda/optim_plan.h"

#include <initializer_list>

#include "backend/cuda/elementwise_plan.h"

namespace ember::cuda {
namespace {

char* data_or_null(const Tensor& t) {
  return t.defined() ? static_cast<char*>(t.data_ptr()) : nullptr;
}

// What the front end (src/optim/fused.h) guarantees, checked once more as the kernel reads
// flat buffers: contiguous float32/float64 tensors of the parameter's dtype and numel.
kernels::OptimLaunch plan_common(const char* op, const Tensor& param, const Tensor& grad,
                                 std::initializer_list<const Tensor*> buffers) {
  EMBER_CHECK(param.dtype() == kFloat32 || param.dtype() == kFloat64, op,
              "the cuda backend has no ", dtype_name(param.dtype()),
              " kernel yet (parameters must be float32 or float64)");
  for (const Tensor* t : buffers) {
    if (!t->defined()) continue;
    EMBER_CHECK(t->is_contiguous() && t->dtype() == param.dtype() && t->numel() == param.numel(),
                op, "expected contiguous ", param.dtype(), " buffers of ", param.numel(),
                " elements, got ", t->dtype(), " of shape ", t->sizes(),
                t->is_contiguous() ? "" : " (not contiguous)");
  }
  kernels::OptimLaunch l{};
  l.type = param.dtype() == kFloat32 ? kernels::Type::float32 : kernels::Type::float64;
  l.numel = param.numel();
  l.param = data_or_null(param);
  l.grad = data_or_null(grad);
  l.threads = kElementwiseThreads;
  l.blocks = grid_blocks(l.numel);
  return l;
}

// The Adam family's shared part: the moments' buffers and decay rates, the L2 term and eps.
void set_moments(kernels::OptimLaunch& l, const Tensor& exp_avg, const Tensor& second,
                 double beta1, double beta2, double l2, double eps) {
  l.exp_avg = data_or_null(exp_avg);
  l.exp_avg_sq = data_or_null(second);
  l.beta1 = beta1;
  l.beta2 = beta2;
  l.l2 = l2;
  l.eps = eps;
}

}  // namespace

kernels::OptimLaunch plan_sgd_launch(const Tensor& param, const Tensor& grad,
                                     const Tensor& momentum_buffer, const backend::SgdStep& s) {
  kernels::OptimLaunch l = plan_common("optim.SGD", param, grad, {&param, &grad, &momentum_buffer});
  l.op = kernels::OptimOp::sgd;
  l.momentum_buffer = data_or_null(momentum_buffer);
  l.lr = s.lr;
  l.weight_decay = s.weight_decay;
  l.momentum = s.momentum;
  l.dampening = s.dampening;
  l.nesterov = s.nesterov;
  l.first = s.first;
  l.maximize = s.maximize;
  return l;
}

kernels::OptimLaunch plan_adam_launch(const Tensor& param, const Tensor& grad,
                                      const Tensor& exp_avg, const Tensor& exp_avg_sq,
                                      const Tensor& max_exp_avg_sq, const backend::AdamStep& s) {
  kernels::OptimLaunch l = plan_common("optim.Adam", param, grad,
                                       {&param, &grad, &exp_avg, &exp_avg_sq, &max_exp_avg_sq});
  l.op = kernels::OptimOp::adam;
  set_moments(l, exp_avg, exp_avg_sq, s.beta1, s.beta2, s.l2, s.eps);
  l.max_exp_avg_sq = data_or_null(max_exp_avg_sq);
  l.decay = s.decay;
  l.bc2_sqrt = s.bc2_sqrt;
  l.neg_step_size = s.neg_step_size;
  l.decoupled = s.decoupled;
  l.maximize = s.maximize;
  return l;
}

kernels::OptimLaunch plan_adamax_launch(const Tensor& param, const Tensor& grad,
                                        const Tensor& exp_avg, const Tensor& exp_inf,
                                        const backend::AdamaxStep& s) {
  kernels::OptimLaunch l =
      plan_common("optim.Adamax", param, grad, {&param, &grad, &exp_avg, &exp_inf});
  l.op = kernels::OptimOp::adamax;
  set_moments(l, exp_avg, exp_inf, s.beta1, s.beta2, s.l2, s.eps);
  l.neg_clr = s.neg_clr;
  l.maximize = s.maximize;
  return l;
}

kernels::OptimLaunch plan_nadam_launch(const Tensor& param, const Tensor& grad,
                                       const Tensor& exp_avg, const Tensor& exp_avg_sq,
                                       const backend::NAdamStep& s) {
  kernels::OptimLaunch l =
      plan_common("optim.NAdam", param, grad, {&param, &grad, &exp_avg, &exp_avg_sq});
  l.op = kernels::OptimOp::nadam;
  set_moments(l, exp_avg, exp_avg_sq, s.beta1, s.beta2, s.l2, s.eps);
  l.bias_correction2 = s.bias_correction2;
  l.grad_coef = s.grad_coef;
  l.avg_coef = s.avg_coef;
  return l;
}

kernels::OptimLaunch plan_radam_launch(const Tensor& param, const Tensor& grad,
                                       const Tensor& exp_avg, const Tensor& exp_avg_sq,
                                       const backend::RAdamStep& s) {
  kernels::OptimLaunch l =
      plan_common("optim.RAdam", param, grad, {&param, &grad, &exp_avg, &exp_avg_sq});
  l.op = kernels::OptimOp::radam;
  set_moments(l, exp_avg, exp_avg_sq, s.beta1, s.beta2, s.l2, s.eps);
  l.bias_correction1 = s.bias_correction1;
  l.lr = s.lr;
  l.rectify = s.rectify;
  l.bc2_sqrt = s.bc2_sqrt;
  l.rect = s.rect;
  return l;
}

kernels::OptimLaunch plan_rmsprop_launch(const Tensor& param, const Tensor& grad,
                                         const Tensor& square_avg, const Tensor& grad_avg,
                                         const Tensor& momentum_buffer,
                                         const backend::RMSpropStep& s) {
  kernels::OptimLaunch l = plan_common("optim.RMSprop", param, grad,
                                       {&param, &grad, &square_avg, &grad_avg, &momentum_buffer});
  l.op = kernels::OptimOp::rmsprop;
  l.square_avg = data_or_null(square_avg);
  l.grad_avg = data_or_null(grad_avg);
  l.momentum_buffer = data_or_null(momentum_buffer);
  l.lr = s.lr;
  l.alpha = s.alpha;
  l.eps = s.eps;
  l.l2 = s.l2;
  l.momentum = s.momentum;
  l.maximize = s.maximize;
  return l;
}

kernels::OptimLaunch plan_adagrad_launch(const Tensor& param, const Tensor& grad, const Tensor& sum,
                                         const backend::AdagradStep& s) {
  kernels::OptimLaunch l = plan_common("optim.Adagrad", param, grad, {&param, &grad, &sum});
  l.op = kernels::OptimOp::adagrad;
  l.sum = data_or_null(sum);
  l.neg_clr = s.neg_clr;
  l.l2 = s.l2;
  l.eps = s.eps;
  l.maximize = s.maximize;
  return l;
}

}  // namespace ember::cuda
