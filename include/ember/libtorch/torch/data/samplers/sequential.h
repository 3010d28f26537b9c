// SequentialSampler: the indices 0, 1, ..., size - 1 in order, batch by batch.
#pragma once

#include <cstddef>
#include <vector>

#include "torch/data/samplers/base.h"

namespace torch::data::samplers {

class SequentialSampler : public Sampler<> {
 public:
  explicit SequentialSampler(size_t size);

  void reset(optional<size_t> new_size = nullopt) override;
  optional<std::vector<size_t>> next(size_t batch_size) override;
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  /// How many indices this epoch has given so far.
  size_t index() const noexcept;

 private:
  size_t size_;
  size_t index_ = 0;
};

}  // namespace torch::data::samplers
