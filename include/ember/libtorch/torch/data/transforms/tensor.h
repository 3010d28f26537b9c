// Transforms of an example's data tensor (the target passes through): TensorTransform<Target>
// (override operator()(Tensor)), TensorLambda<Target> from a function, and Normalize<Target>,
// (data - mean) / stddev per channel, channels being the data's first dimension ([C, H, W]).
#pragma once

#include <functional>
#include <utility>
#include <vector>

#include "torch/data/example.h"
#include "torch/data/transforms/base.h"
#include "torch/types.h"

namespace torch::data::transforms {

template <typename Target = Tensor>
class TensorTransform : public Transform<Example<Tensor, Target>, Example<Tensor, Target>> {
 public:
  using E = Example<Tensor, Target>;
  using typename Transform<E, E>::InputType;
  using typename Transform<E, E>::OutputType;

  virtual Tensor operator()(Tensor input) = 0;

  OutputType apply(InputType input) override {
    input.data = (*this)(std::move(input.data));
    return input;
  }
};

template <typename Target = Tensor>
class TensorLambda : public TensorTransform<Target> {
 public:
  using FunctionType = std::function<Tensor(Tensor)>;

  explicit TensorLambda(FunctionType function) : function_(std::move(function)) {}

  Tensor operator()(Tensor input) override { return function_(std::move(input)); }

 private:
  FunctionType function_;
};

template <typename Target = Tensor>
struct Normalize : public TensorTransform<Target> {
  /// One mean and stddev for all channels, or one per channel.
  Normalize(ArrayRef<double> mean, ArrayRef<double> stddev)
      : mean(per_channel(mean)), stddev(per_channel(stddev)) {}

  Tensor operator()(Tensor input) override { return input.sub(mean).div(stddev); }

  /// float32 [C, 1, 1], so they broadcast over a [C, H, W] image.
  Tensor mean, stddev;

 private:
  static Tensor per_channel(ArrayRef<double> values) {
    return from_vector(values.vec(), std::vector<int64_t>{int64_t(values.size()), 1, 1},
                       {.dtype = kFloat32});
  }
};

}  // namespace torch::data::transforms
