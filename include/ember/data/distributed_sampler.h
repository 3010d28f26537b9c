// DistributedSampler: each of num_replicas ranks sees its own share of the dataset, every rank the
// same count (PyTorch's padding by repeating the head of the order, or dropping the tail), and a
// shuffle seeded with seed + epoch so set_epoch(e) gives every rank the same new permutation.
// Forgetting set_epoch (the reference's pitfall 1) repeats the order every epoch: rank 0 prints a
// warning the second time a pass starts with the same shuffle.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ember/data/sampler.h"

namespace ember::data {

struct DistributedSamplerOptions {
  std::optional<int64_t> num_replicas = {};  // default: the default process group's size
  std::optional<int64_t> rank = {};          // default: this process's rank in it
  bool shuffle = true;
  uint64_t seed = 0;
  bool drop_last = false;
};

class DistributedSampler : public Sampler {
 public:
  DistributedSampler(int64_t dataset_size, DistributedSamplerOptions options = {});
  template <DatasetType D>
  explicit DistributedSampler(const D& dataset, DistributedSamplerOptions options = {})
      : DistributedSampler(dataset.size(), options) {}

  /// Indices per rank and pass (num_samples in PyTorch).
  int64_t size() const override { return num_samples_; }
  std::vector<int64_t> indices() override;
  /// The shuffle of the next passes uses seed + epoch; call it at the start of every epoch.
  void set_epoch(int64_t epoch) { epoch_ = epoch; }
  int64_t epoch() const { return epoch_; }
  int64_t total_size() const { return num_samples_ * num_replicas_; }
  int64_t num_replicas() const { return num_replicas_; }
  int64_t rank() const { return rank_; }

 private:
  int64_t dataset_size_, num_replicas_, rank_, num_samples_;
  bool shuffle_, drop_last_;
  uint64_t seed_;
  int64_t epoch_ = 0;
  std::optional<int64_t> last_pass_epoch_;  // the epoch of the previous indices() call
  bool warned_ = false;
};

}  // namespace ember::data
