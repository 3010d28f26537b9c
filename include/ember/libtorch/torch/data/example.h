// torch::data::Example: one sample (or one stacked batch) as the pair `data`, `target`. With
// Target = example::NoTarget it holds `data` alone and converts to and from it, which is what
// TensorDataset yields (TensorExample).
#pragma once

#include <utility>

#include "torch/types.h"

namespace torch::data {

namespace example {
/// The Target of an Example without a target.
using NoTarget = void;
}  // namespace example

template <typename Data = Tensor, typename Target = Tensor>
struct Example {
  using DataType = Data;
  using TargetType = Target;

  Example() = default;
  Example(Data data, Target target) : data(std::move(data)), target(std::move(target)) {}

  Data data;
  Target target;
};

template <typename Data>
struct Example<Data, example::NoTarget> {
  using DataType = Data;
  using TargetType = example::NoTarget;

  Example() = default;
  Example(Data data) : data(std::move(data)) {}  // NOLINT: implicit, so a tensor is an example

  operator Data&() { return data; }  // NOLINT: implicit, so the example passes as its data
  operator const Data&() const { return data; }  // NOLINT

  Data data;
};

using TensorExample = Example<Tensor, example::NoTarget>;

}  // namespace torch::data
