// conv2d's backward composed from a backend's own entries (backend/conv_kernels.h).
#include "backend/backend.h"
#include "backend/family_kernel.h"

namespace ember::backend {

void conv2d_backward_in_parts(const ConvBackwardCall& c) {
  constexpr const char* op = "conv2d_backward";
  const Device device = c.grad.device();
  if (c.grad_input.defined())
    kernel(op, device, &Backend::conv, &ConvKernels::conv2d_adjoint)(c.grad, c.weight, Tensor(),
                                                                     c.grad_input, c.p);
  if (c.grad_weight.defined())
    kernel(op, device, &Backend::conv, &ConvKernels::conv2d_weight_grad)(c.grad, c.input,
                                                                         c.grad_weight, c.p);
  if (c.grad_bias.defined()) {
    const int64_t dims[] = {0, 2, 3};
    kernel(op, device, &Backend::reduce,
           &ReduceKernels::sum)({op, c.grad_bias, c.grad, IntArrayRef(dims, 3)});
  }
}

}  // namespace ember::backend
