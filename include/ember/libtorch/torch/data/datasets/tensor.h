// TensorDataset: the rows of one tensor (its first dimension) as examples without targets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "torch/data/datasets/base.h"
#include "torch/data/example.h"
#include "torch/types.h"

namespace torch::data::datasets {

struct TensorDataset : public Dataset<TensorDataset, TensorExample> {
  /// The tensors stacked along a new first dimension.
  explicit TensorDataset(const std::vector<Tensor>& tensors)
      : TensorDataset(torch::stack(tensors)) {}
  explicit TensorDataset(Tensor tensor) : tensor(std::move(tensor)) {}

  TensorExample get(size_t index) override { return tensor.select(0, int64_t(index)); }
  optional<size_t> size() const override { return size_t(tensor.size(0)); }

  Tensor tensor;
};

}  // namespace torch::data::datasets
