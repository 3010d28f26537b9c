// Samplers that give each of `num_replicas` processes its own share of the indices: replica
// `rank` gets the rank-th block of ceil(size / num_replicas) indices (padded by wrapping
// around to index 0 when allow_duplicates), or of floor(size / num_replicas) without
// duplicates. DistributedRandomSampler shuffles the whole padded list first, the same way on
// every replica: std::shuffle with a std::mt19937 seeded with the epoch (set_epoch(e), then
// reset()).
#pragma once

#include <cstddef>
#include <vector>

#include "torch/data/samplers/base.h"

namespace torch::data::samplers {

template <typename BatchRequest = std::vector<size_t>>
class DistributedSampler : public Sampler<BatchRequest> {
 public:
  DistributedSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                     bool allow_duplicates = true)
      : size_(size),
        num_replicas_(num_replicas),
        rank_(rank),
        epoch_(0),
        allow_duplicates_(allow_duplicates) {}

  /// The epoch seeds the shuffle; set it before each epoch's reset().
  void set_epoch(size_t epoch) { epoch_ = epoch; }
  size_t epoch() const { return epoch_; }

 protected:
  /// The number of indices each replica gets.
  size_t local_sample_count() {
    return allow_duplicates_ ? (size_ + num_replicas_ - 1) / num_replicas_ : size_ / num_replicas_;
  }

  size_t size_;
  size_t num_replicas_;
  size_t rank_;
  size_t epoch_;
  bool allow_duplicates_;
};

class DistributedRandomSampler : public DistributedSampler<> {
 public:
  DistributedRandomSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                           bool allow_duplicates = true);

  void reset(optional<size_t> new_size = nullopt) override;
  optional<std::vector<size_t>> next(size_t batch_size) override;
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  /// How many of this replica's indices this epoch has given so far.
  size_t index() const noexcept;

 private:
  void populate_indices();

  size_t begin_index_ = 0;
  size_t end_index_ = 0;
  size_t sample_index_ = 0;
  std::vector<size_t> all_indices_;
};

class DistributedSequentialSampler : public DistributedSampler<> {
 public:
  DistributedSequentialSampler(size_t size, size_t num_replicas = 1, size_t rank = 0,
                               bool allow_duplicates = true);

  void reset(optional<size_t> new_size = nullopt) override;
  optional<std::vector<size_t>> next(size_t batch_size) override;
  void save(serialize::OutputArchive& archive) const override;
  void load(serialize::InputArchive& archive) override;
  /// How many of this replica's indices this epoch has given so far.
  size_t index() const noexcept;

 private:
  void populate_indices();

  size_t begin_index_ = 0;
  size_t end_index_ = 0;
  size_t sample_index_ = 0;
};

}  // namespace torch::data::samplers
