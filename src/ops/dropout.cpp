// nn.functional's dropout: element-wise (through the device's fused native_dropout kernel where
// it has one, as on CUDA), and whole channels (dropout1d/2d/3d). The attention of
// ops/attention.cpp drops its probabilities through dropout_forward too.
#include "ops/dropout.h"

#include <tuple>

#include "autograd/function.h"
#include "backend/family_kernel.h"
#include "ember/creation.h"
#include "ember/math.h"
#include "ember/nn/functional/layers.h"
#include "ops/nn_grad.h"

namespace ember::nn::functional {

namespace {

using backend::Backend;
using backend::RandomKernels;

// native_dropout_backward: grad * mask * scale in the device's fused kernel. Linear in grad and
// its own adjoint, so double backward records it again (NativeDropoutBackwardBackward0).
Tensor native_dropout_backward(const Tensor& grad, const Tensor& mask, double scale) {
  return linear_grad(
      "NativeDropoutBackwardBackward0", grad,
      [&](const Tensor& g) {
        const char* op = "native_dropout_backward";
        Tensor dx = empty(g.sizes(), {.dtype = g.dtype(), .device = g.device()});
        backend::kernel(op, g.device(), &Backend::random, &RandomKernels::dropout_backward)(
            op, dx, g, mask, scale);
        return dx;
      },
      [mask, scale](const Tensor& gg) { return native_dropout_backward(gg, mask, scale); });
}

// PyTorch's native_dropout, which its dropout takes on CUDA (is_fused_kernel_acceptable: 0 < p
// < 1, not in place, not whole channels): one kernel draws the mask and scales the kept
// elements, and the backward reads the bool mask instead of a noise tensor of x's dtype.
std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p, Generator* gen) {
  const char* op = "native_dropout";
  autograd::Recorder rec(op, {&input});
  const auto kernel =
      backend::kernel(op, input.device(), &Backend::random, &RandomKernels::dropout);
  Tensor y = empty(input.sizes(), {.dtype = input.dtype(), .device = input.device()});
  Tensor mask = empty(input.sizes(), {.dtype = kBool, .device = input.device()});
  kernel(op, y, mask, input, p, gen);
  if (rec)
    rec.record("NativeDropoutBackward0", {y}, {mask},
               [scale = 1 / (1 - p)](const autograd::Grads& g, const autograd::Saved& s) {
                 return autograd::TensorList{native_dropout_backward(g[0], s[0], scale)};
               });
  return {y, mask};
}

}  // namespace

std::tuple<Tensor, Tensor> dropout_forward(const Tensor& input, double p, bool training,
                                           bool feature, bool inplace, Generator* gen) {
  const char* op = feature ? "feature_dropout" : "dropout";
  EMBER_CHECK(p >= 0 && p <= 1, op, "dropout probability has to be between 0 and 1, but got ", p);
  EMBER_CHECK(!feature || input.dim() >= 2, op,
              "Feature dropout requires at least 2 dimensions in the input");
  if (p == 0 || !training || input.numel() == 0) return {input, Tensor()};
  if (!feature && !inplace && p < 1 &&
      backend::optional_kernel(input.device(), &Backend::random, &RandomKernels::dropout))
    return native_dropout(input, p, gen);
  Tensor self = input;  // a handle, so the in-place forms can write through it
  // Whole channels share one draw: the noise is (N, C, 1, ..., 1) and broadcasts.
  DimVector noise_shape(input.sizes());
  if (feature)
    for (size_t d = 2; d < noise_shape.size(); ++d) noise_shape[d] = 1;
  const TensorOptions noise_options{.dtype = input.dtype(), .device = input.device()};
  Tensor noise;
  if (p == 1) {
    // PyTorch multiplies by zero rather than filling, so NaN and inf inputs give NaN.
    noise = zeros(noise_shape, noise_options);
  } else {
    noise = empty(noise_shape, noise_options);
    bernoulli_(noise, 1 - p, gen);
    noise.div_(1 - p);
  }
  if (inplace) return {self.mul_(noise), noise};
  return {input * noise, noise};
}

Tensor dropout(const Tensor& input, DropoutFuncOptions o) {
  return std::get<0>(dropout_forward(input, o.p, o.training, false, o.inplace, o.generator));
}

Tensor dropout2d(const Tensor& input, DropoutFuncOptions o) {
  // PyTorch 1.13 reads a 3-D input as (N, C, L) (channel-wise 1-D dropout), any rank >= 2 works.
  return std::get<0>(dropout_forward(input, o.p, o.training, true, o.inplace, o.generator));
}

namespace {
// dropout1d / dropout3d: a batched rank, or one less for an unbatched input (a batch of one).
Tensor feature_dropout_nd(const Tensor& input, const DropoutFuncOptions& o, int64_t rank,
                          const char* op) {
  EMBER_CHECK(input.dim() == rank || input.dim() == rank - 1, op, "Expected ", rank - 1, "D or ",
              rank, "D input, but received a ", input.dim(), "D input");
  EMBER_CHECK(o.p >= 0 && o.p <= 1, op, "dropout probability has to be between 0 and 1, but got ",
              o.p);
  const bool batched = input.dim() == rank;
  const Tensor x = batched ? input : input.unsqueeze(0);
  Tensor y = std::get<0>(dropout_forward(x, o.p, o.training, true, o.inplace, o.generator));
  if (batched) return y;
  return o.inplace ? input : y.squeeze(0);
}
}  // namespace

Tensor dropout1d(const Tensor& input, DropoutFuncOptions o) {
  return feature_dropout_nd(input, o, 3, "dropout1d");
}
Tensor dropout3d(const Tensor& input, DropoutFuncOptions o) {
  return feature_dropout_nd(input, o, 5, "dropout3d");
}

}  // namespace ember::nn::functional
