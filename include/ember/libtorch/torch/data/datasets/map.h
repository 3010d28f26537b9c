// MapDataset: a dataset whose batches pass through a transform (what dataset.map(t) returns).
// A stateful source's optional batches stay optional: the transform sees only real ones.
#pragma once

#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>

#include "torch/data/datasets/base.h"

namespace torch::data::datasets {

namespace detail {
template <bool Optional, typename T>
using optional_if_t = std::conditional_t<Optional, std::optional<T>, T>;
}  // namespace detail

template <typename Source, typename Transform>
class MapDataset
    : public BatchDataset<
          MapDataset<Source, Transform>,
          detail::optional_if_t<Source::is_stateful, typename Transform::OutputBatchType>,
          typename Source::BatchRequestType> {
 public:
  using DatasetType = Source;
  using TransformType = Transform;
  using BatchRequestType = typename Source::BatchRequestType;
  using OutputBatchType =
      detail::optional_if_t<Source::is_stateful, typename Transform::OutputBatchType>;

  MapDataset(DatasetType dataset, TransformType transform)
      : dataset_(std::move(dataset)), transform_(std::move(transform)) {}

  OutputBatchType get_batch(BatchRequestType request) override {
    if constexpr (Source::is_stateful) {
      auto batch = dataset_.get_batch(std::move(request));
      if (!batch) return std::nullopt;
      return transform_.apply_batch(std::move(*batch));
    } else {
      return transform_.apply_batch(dataset_.get_batch(std::move(request)));
    }
  }

  optional<size_t> size() const noexcept override { return dataset_.size(); }

  /// Resets a stateful source.
  void reset() { dataset_.reset(); }

  const Source& dataset() noexcept { return dataset_; }
  const Transform& transform() noexcept { return transform_; }

 private:
  Source dataset_;
  Transform transform_;
};

template <typename Source, typename Transform>
MapDataset<Source, Transform> map(Source dataset, Transform transform) {
  // What the dataset yields per request must be what the transform takes (for a stateful
  // dataset, what its optional holds).
  using Yielded = typename detail::unwrap_optional<typename Source::BatchType>::type;
  static_assert(std::is_same_v<Yielded, typename Transform::InputBatchType>,
                "dataset.map(transform): the transform's input batch type (InputBatchType) is not "
                "the dataset's batch type (BatchType)");
  return {std::move(dataset), std::move(transform)};
}

}  // namespace torch::data::datasets
