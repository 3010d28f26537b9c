// The dataset bases. BatchDataset<Self, Batch, BatchRequest>: get_batch(request) and size();
// Dataset<Self, SingleExample>: get(index) and size(), batches made of get() per index.
// Self is the derived class (CRTP), so .map(transform) can return MapDataset<Self, Transform>
// holding the dataset by value, as LibTorch's does.
#pragma once

#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "c10/util/ArrayRef.h"
#include "torch/data/example.h"
#include "torch/types.h"

namespace torch::data::datasets {

template <typename Source, typename Transform>
class MapDataset;

template <typename Source, typename Transform>
MapDataset<Source, Transform> map(Source dataset, Transform transform);

namespace detail {
template <typename T>
struct unwrap_optional {
  using type = T;
  static constexpr bool is_optional = false;
};
template <typename T>
struct unwrap_optional<std::optional<T>> {
  using type = T;
  static constexpr bool is_optional = true;
};
}  // namespace detail

template <typename Self, typename Batch = std::vector<Example<>>,
          typename BatchRequest = ArrayRef<size_t>>
class BatchDataset {
 public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
  /// A dataset whose batches are optional says when it is exhausted itself (it keeps state
  /// across calls) instead of being indexed by a sampler.
  static constexpr bool is_stateful = detail::unwrap_optional<Batch>::is_optional;

  virtual ~BatchDataset() = default;

  virtual Batch get_batch(BatchRequest request) = 0;
  /// The number of examples, or nullopt when unknown (a stream).
  virtual optional<size_t> size() const = 0;

  /// This dataset with `transform` applied to each batch it returns (a copy of the dataset
  /// from an lvalue, the dataset itself from an rvalue).
  template <typename Transform>
  MapDataset<Self, Transform> map(Transform transform) & {
    return datasets::map(static_cast<Self&>(*this), std::move(transform));
  }
  template <typename Transform>
  MapDataset<Self, Transform> map(Transform transform) && {
    return datasets::map(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

template <typename Self, typename SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
 public:
  using ExampleType = SingleExample;

  /// The example at `index`.
  virtual ExampleType get(size_t index) = 0;

  std::vector<ExampleType> get_batch(ArrayRef<size_t> indices) override {
    std::vector<ExampleType> batch;
    batch.reserve(indices.size());
    for (size_t index : indices) batch.push_back(get(index));
    return batch;
  }
};

/// A dataset asked for a number of examples rather than for indices (with StreamSampler).
template <typename Self, typename Batch = std::vector<Example<>>>
using StreamDataset = BatchDataset<Self, Batch, size_t>;

}  // namespace torch::data::datasets
