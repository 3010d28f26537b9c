// Stack<>: collates a batch of examples into one example whose data (and target) are the
// examples' stacked along a new first dimension: [B, ...].
#pragma once

#include <vector>

#include "torch/data/example.h"
#include "torch/data/transforms/collate.h"
#include "torch/types.h"

namespace torch::data::transforms {

template <typename T = Example<>>
struct Stack;

template <>
struct Stack<Example<>> : public Collation<Example<>> {
  Example<> apply_batch(std::vector<Example<>> examples) override {
    std::vector<Tensor> data, targets;
    data.reserve(examples.size());
    targets.reserve(examples.size());
    for (Example<>& example : examples) {
      data.push_back(std::move(example.data));
      targets.push_back(std::move(example.target));
    }
    return {torch::stack(data), torch::stack(targets)};
  }
};

template <>
struct Stack<TensorExample> : public Collation<TensorExample> {
  TensorExample apply_batch(std::vector<TensorExample> examples) override {
    std::vector<Tensor> data;
    data.reserve(examples.size());
    for (TensorExample& example : examples) data.push_back(std::move(example.data));
    return torch::stack(data);
  }
};

}  // namespace torch::data::transforms
