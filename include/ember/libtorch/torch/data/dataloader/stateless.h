// StatelessDataLoader: batches of a dataset indexed by a sampler's requests. With workers,
// each worker thread gets its own copy of the dataset (copying a tensor shares its data).
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "ember/error.h"
#include "torch/data/dataloader/base.h"

namespace torch::data {

template <typename Dataset, typename Sampler>
class StatelessDataLoader : public DataLoaderBase<Dataset, typename Dataset::BatchType,
                                                  typename Sampler::BatchRequestType> {
 public:
  using super =
      DataLoaderBase<Dataset, typename Dataset::BatchType, typename Sampler::BatchRequestType>;
  using typename super::BatchRequestType;

  StatelessDataLoader(Dataset dataset, Sampler sampler, DataLoaderOptions options)
      : super(std::move(options)), sampler_(std::move(sampler)) {
    if (this->options_.workers == 0) {
      this->main_thread_dataset_ = std::make_unique<Dataset>(std::move(dataset));
      return;
    }
    std::vector<std::shared_ptr<Dataset>> copies;
    for (size_t w = 0; w < this->options_.workers; ++w) {
      copies.push_back(std::make_shared<Dataset>(dataset));
    }
    this->start_workers(copies);
  }

 private:
  void reset() override {
    sampler_.reset();
    super::reset();
  }

  optional<BatchRequestType> get_batch_request() override {
    optional<BatchRequestType> request = sampler_.next(this->options_.batch_size);
    if (!request) return nullopt;
    if (this->options_.drop_last && request->size() < this->options_.batch_size) return nullopt;
    EMBER_CHECK(request->size() > 0, "DataLoader",
                "the sampler returned an empty batch request; expected nullopt at the end");
    return request;
  }

  Sampler sampler_;
};

}  // namespace torch::data
