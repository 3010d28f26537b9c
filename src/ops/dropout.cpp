// nn.functional's dropout: element-wise, and whole channels (dropout1d/2d/3d). The attention of
// ops/attention.cpp drops its probabilities through dropout_forward too.
#include "ops/dropout.h"

#include "ember/creation.h"
#include "ember/math.h"
#include "ember/nn/functional/layers.h"

namespace ember::nn::functional {

std::tuple<Tensor, Tensor> dropout_forward(const Tensor& input, double p, bool training,
                                           bool feature, bool inplace, Generator* gen) {
  const char* op = feature ? "feature_dropout" : "dropout";
  EMBER_CHECK(p >= 0 && p <= 1, op, "dropout probability has to be between 0 and 1, but got ", p);
  EMBER_CHECK(!feature || input.dim() >= 2, op,
              "Feature dropout requires at least 2 dimensions in the input");
  if (p == 0 || !training || input.numel() == 0) return {input, Tensor()};
  Tensor self = input;  // a handle, so the in-place forms can write through it
  // Whole channels share one draw: the noise is (N, C, 1, ..., 1) and broadcasts.
  DimVector noise_shape(input.sizes());
  if (feature)
    for (size_t d = 2; d < noise_shape.size(); ++d) noise_shape[d] = 1;
  Tensor noise;
  if (p == 1) {
    // PyTorch multiplies by zero rather than filling, so NaN and inf inputs give NaN.
    noise = zeros(noise_shape, {.dtype = input.dtype()});
  } else {
    noise = empty(noise_shape, {.dtype = input.dtype()});
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
