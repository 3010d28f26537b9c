// StreamSampler: for a StreamDataset, asks for batch_size examples at a time (BatchSize, which
// converts to size_t) until epoch_size examples have been asked for.
#pragma once

#include <cstddef>

#include "torch/data/samplers/base.h"
#include "torch/data/samplers/custom_batch_request.h"

namespace torch::data::samplers {

struct BatchSize : public CustomBatchRequest {
  explicit BatchSize(size_t size);
  size_t size() const noexcept override;
  operator size_t() const noexcept;  // NOLINT: implicit, what get_batch(size_t) receives
  size_t size_;
};

class StreamSampler : public Sampler<BatchSize> {
 public:
  explicit StreamSampler(size_t epoch_size);

  void reset(optional<size_t> new_size = nullopt) override;
  optional<BatchSize> next(size_t batch_size) override;
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;

 private:
  size_t examples_retrieved_so_far_ = 0;
  size_t epoch_size_;
};

}  // namespace torch::data::samplers
