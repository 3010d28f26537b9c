// Collation<T>: a batch transform that merges a std::vector<T> into one T (Stack is one);
// Collate<T> makes one from a function.
#pragma once

#include <vector>

#include "torch/data/example.h"
#include "torch/data/transforms/lambda.h"

namespace torch::data::transforms {

template <typename T, typename BatchType = std::vector<T>>
using Collation = BatchTransform<BatchType, T>;

template <typename T, typename BatchType = std::vector<T>>
using Collate = BatchLambda<BatchType, T>;

}  // namespace torch::data::transforms
