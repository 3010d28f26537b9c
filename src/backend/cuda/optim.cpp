// The host side of the CUDA fused optimizer updates: the kCUDA backend's optimizer entries.
// Each plans a kernels::OptimLaunch (optim_plan.cpp, tested in every build with the emulated
// kernel) and queues optim.cu's kernel on the current stream of the parameter's device.
#include "backend/backend.h"
#include "backend/cuda/optim_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

void launch(const char* op, const Tensor& param, const kernels::OptimLaunch& l) {
  if (l.numel == 0) return;
  launch_on(param.device(), op, &kernels::launch_optim, l);
}

void sgd(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer,
         const backend::SgdStep& s) {
  launch("optim.SGD", param, plan_sgd_launch(param, grad, momentum_buffer, s));
}

void adam(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
          const Tensor& max_exp_avg_sq, const backend::AdamStep& s) {
  launch("optim.Adam", param,
         plan_adam_launch(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, s));
}

void adamax(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_inf,
            const backend::AdamaxStep& s) {
  launch("optim.Adamax", param, plan_adamax_launch(param, grad, exp_avg, exp_inf, s));
}

void nadam(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
           const Tensor& exp_avg_sq, const backend::NAdamStep& s) {
  launch("optim.NAdam", param, plan_nadam_launch(param, grad, exp_avg, exp_avg_sq, s));
}

void radam(const Tensor& param, const Tensor& grad, const Tensor& exp_avg,
           const Tensor& exp_avg_sq, const backend::RAdamStep& s) {
  launch("optim.RAdam", param, plan_radam_launch(param, grad, exp_avg, exp_avg_sq, s));
}

void rmsprop(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
             const Tensor& grad_avg, const Tensor& momentum_buffer, const backend::RMSpropStep& s) {
  launch("optim.RMSprop", param,
         plan_rmsprop_launch(param, grad, square_avg, grad_avg, momentum_buffer, s));
}

void adagrad(const Tensor& param, const Tensor& grad, const Tensor& sum,
             const backend::AdagradStep& s) {
  launch("optim.Adagrad", param, plan_adagrad_launch(param, grad, sum, s));
}

}  // namespace

void install_optim_kernels(backend::Backend& b) {
  b.optim.sgd = &sgd;
  b.optim.adam = &adam;
  b.optim.adamax = &adamax;
  b.optim.nadam = &nadam;
  b.optim.radam = &radam;
  b.optim.rmsprop = &rmsprop;
  b.optim.adagrad = &adagrad;
}

}  // namespace ember::cuda
