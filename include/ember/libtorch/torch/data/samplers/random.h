// RandomSampler: a random permutation of 0 .. size - 1, batch by batch. Each permutation is
// torch::randperm(size) from the default generator, drawn when the sampler is made and again
// at every reset() (so a DataLoader, which resets its sampler at each begin(), draws twice
// before its first epoch, as LibTorch's does); indices are kept in `index_dtype`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "torch/data/samplers/base.h"
#include "torch/types.h"

namespace torch::data::samplers {

class RandomSampler : public Sampler<> {
 public:
  explicit RandomSampler(int64_t size, Dtype index_dtype = kInt64);
  ~RandomSampler() override;

  void reset(optional<size_t> new_size = nullopt) override;
  optional<std::vector<size_t>> next(size_t batch_size) override;
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  /// How many indices this epoch has given so far.
  size_t index() const noexcept;

 private:
  Tensor indices_;
  int64_t index_ = 0;
};

}  // namespace torch::data::samplers
