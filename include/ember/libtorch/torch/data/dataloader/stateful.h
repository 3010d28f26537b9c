// StatefulDataLoader: batches of a stateful dataset, which is asked for batch_size examples
// at a time until it returns nullopt. One dataset serves the calling thread and every worker
// thread alike, so a stateful dataset must be safe to call from several threads.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "torch/data/dataloader/base.h"

namespace torch::data {

template <typename Dataset>
class StatefulDataLoader : public DataLoaderBase<Dataset, typename Dataset::BatchType::value_type,
                                                 typename Dataset::BatchRequestType> {
 public:
  using super = DataLoaderBase<Dataset, typename Dataset::BatchType::value_type,
                               typename Dataset::BatchRequestType>;
  using typename super::BatchRequestType;

  StatefulDataLoader(Dataset dataset, DataLoaderOptions options)
      : super(std::move(options), std::make_unique<Dataset>(std::move(dataset))) {
    if (this->options_.workers == 0) return;
    // The workers borrow the loader's dataset, which outlives them (the base joins them).
    const std::shared_ptr<Dataset> shared(this->main_thread_dataset_.get(), [](Dataset*) {});
    this->start_workers(std::vector<std::shared_ptr<Dataset>>(this->options_.workers, shared));
  }

 private:
  void reset() override {
    this->main_thread_dataset_->reset();
    super::reset();
  }

  optional<BatchRequestType> get_batch_request() override { return this->options_.batch_size; }
};

}  // namespace torch::data
