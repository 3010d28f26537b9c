// The transform bases. BatchTransform<In, Out>: apply_batch(In) -> Out, a whole batch at once
// (collation is one). Transform<In, Out>: apply(In) -> Out per example, applied to each
// example of a std::vector batch.
#pragma once

#include <utility>
#include <vector>

#include "torch/types.h"

namespace torch::data::transforms {

template <typename InputBatch, typename OutputBatch>
class BatchTransform {
 public:
  using InputBatchType = InputBatch;
  using OutputBatchType = OutputBatch;

  virtual ~BatchTransform() = default;

  virtual OutputBatch apply_batch(InputBatch input_batch) = 0;
};

template <typename Input, typename Output>
class Transform : public BatchTransform<std::vector<Input>, std::vector<Output>> {
 public:
  using InputType = Input;
  using OutputType = Output;

  virtual OutputType apply(InputType input) = 0;

  std::vector<Output> apply_batch(std::vector<Input> input_batch) override {
    std::vector<Output> output_batch;
    output_batch.reserve(input_batch.size());
    for (auto& input : input_batch) output_batch.push_back(apply(std::move(input)));
    return output_batch;
  }
};

}  // namespace torch::data::transforms
