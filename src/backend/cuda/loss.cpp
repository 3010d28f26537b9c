// The host side of the CUDA class-index losses: the kCUDA backend's class_loss and
// class_loss_backward (cross_entropy and nll_loss). Each plans its passes (loss_plan.cpp, tested
// in every build with the emulated kernels), queues loss.cu's kernel for them on the current
// stream of the input's device, and reads the targets' record back (index_record.h).
#include "backend/backend.h"
#include "backend/buffers.h"
#include "backend/cuda/index_record.h"
#include "backend/cuda/loss_plan.h"
#include "backend/cuda/runtime.h"

namespace ember::cuda {
namespace {

void queue(const backend::ClassLossCall& c, const kernels::ClassLossLaunch& l) {
  launch_on(c.x.device(), c.op, &kernels::launch_class_loss, l);
}

void class_loss(const backend::ClassLossCall& c, const Tensor& out) {
  const Device device = c.x.device();
  const Tensor terms = backend::new_buffer({class_loss_scratch(c)}, c.x.dtype(), device, c.op);
  const Tensor record = new_index_record(device);
  const auto [rows, total] =
      plan_class_loss_launches(c, out, terms.data_ptr(), record.data_ptr<int64_t>());
  if (rows.R > 0) queue(c, rows);
  // With no positions the sums are 0 (a mean of NaN, as the CPU's).
  if (rows.reduction != kernels::ClassLossLaunch::none) queue(c, total);
  raise_bad_target(c.op, read_index_record(record).data());
}

void class_loss_backward(const backend::ClassLossCall& c, const Tensor& grad_input,
                         const Tensor& grad) {
  const Device device = c.x.device();
  const Tensor sums = backend::new_buffer({2}, c.x.dtype(), device, c.op);
  const Tensor g = grad.to(c.x.dtype());  // a 0-d grad comes in the loss's dtype
  const Tensor record = new_index_record(device);
  const auto [weight_sums, rows] = plan_class_loss_backward_launches(
      c, grad_input, g, sums.data_ptr(), record.data_ptr<int64_t>());
  if (rows.R == 0 || rows.C == 0) return;
  queue(c, weight_sums);
  queue(c, rows);
  raise_bad_target(c.op, read_index_record(record).data());
}

}  // namespace

void install_loss_kernels(backend::Backend& b) {
  b.loss.class_loss = &class_loss;
  b.loss.class_loss_backward = &class_loss_backward;
}

}  // namespace ember::cuda
