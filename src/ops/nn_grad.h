// Autograd helpers shared by the nn kernels (pool, resize, embedding): the backward of an op
// that is linear in its input is itself a linear op of grad_output, whose adjoint is the
// forward. Recording that backward as a node whose own backward calls the (recorded) forward
// makes double backward, and every order above it, work on the fused kernels:
//   gi = linear_grad("AvgPool2DBackwardBackward0", g, [&](const Tensor& g) { return kernel(g); },
//                    [=](const Tensor& gg) { return avg_pool2d(gg, ...); });
#pragma once

#include "autograd/function.h"

namespace ember::nn::functional {

/// apply(g) under a node named `node` whose backward is adjoint(grad of the result). apply runs
/// with grad mode off; the node is recorded only when g requires grad (create_graph).
template <class Apply, class Adjoint>
Tensor linear_grad(const char* node, const Tensor& g, const Apply& apply, Adjoint adjoint) {
  autograd::Recorder rec(node, {&g});
  Tensor r = apply(g);
  if (rec)
    rec.record(node, {r}, {},
               [adjoint = std::move(adjoint)](const autograd::Grads& gg, const autograd::Saved&) {
                 return autograd::TensorList{gg[0].defined() ? adjoint(gg[0]) : Tensor()};
               });
  return r;
}

}  // namespace ember::nn::functional
