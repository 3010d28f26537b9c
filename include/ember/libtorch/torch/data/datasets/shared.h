// SharedBatchDataset: a dataset held through a shared_ptr, so copies of it (the ones each
// DataLoader worker makes) all use one object; make_shared_dataset<D>(args...) builds one.
// The dataset must then be safe to call from several threads at once.
#pragma once

#include <memory>
#include <utility>

#include "torch/data/datasets/base.h"

namespace torch::data::datasets {

template <typename Underlying>
class SharedBatchDataset
    : public BatchDataset<SharedBatchDataset<Underlying>, typename Underlying::BatchType,
                          typename Underlying::BatchRequestType> {
 public:
  using BatchType = typename Underlying::BatchType;
  using BatchRequestType = typename Underlying::BatchRequestType;

  SharedBatchDataset(std::shared_ptr<Underlying> dataset)  // NOLINT: implicit, as LibTorch's
      : dataset_(std::move(dataset)) {}

  BatchType get_batch(BatchRequestType request) override {
    return dataset_->get_batch(std::move(request));
  }
  optional<size_t> size() const override { return dataset_->size(); }

  Underlying& operator*() { return *dataset_; }
  const Underlying& operator*() const { return *dataset_; }
  Underlying* operator->() { return dataset_.get(); }
  const Underlying* operator->() const { return dataset_.get(); }

  /// Resets a stateful dataset.
  void reset() { dataset_->reset(); }

 private:
  std::shared_ptr<Underlying> dataset_;
};

template <typename Underlying, typename... Args>
SharedBatchDataset<Underlying> make_shared_dataset(Args&&... args) {
  return std::make_shared<Underlying>(std::forward<Args>(args)...);
}

}  // namespace torch::data::datasets
