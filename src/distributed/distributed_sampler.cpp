// DistributedSampler: PyTorch 1.13's partition — permute (seed + epoch), pad by repeating the head
// of the order (or cut the tail with drop_last) to num_samples * num_replicas, then rank r takes
// every num_replicas-th index starting at r. A data sampler that lives with the distributed layer:
// by default it asks the default process group for the rank and the number of replicas.
#include "ember/data/distributed_sampler.h"

#include <iostream>
#include <numeric>

#include "ember/distributed/process_group.h"
#include "ember/error.h"

namespace ember::data {

DistributedSampler::DistributedSampler(int64_t dataset_size, DistributedSamplerOptions options)
    : dataset_size_(dataset_size),
      shuffle_(options.shuffle),
      drop_last_(options.drop_last),
      seed_(options.seed) {
  const char* op = "DistributedSampler";
  if (dist::is_initialized()) {
    if (!options.num_replicas) options.num_replicas = dist::get_world_size();
    if (!options.rank) options.rank = dist::get_rank();
  }
  EMBER_CHECK(options.num_replicas && options.rank, op,
              "num_replicas and rank must be given (no default process group is initialized); "
              "pass {.num_replicas = world_size, .rank = rank}");
  num_replicas_ = *options.num_replicas;
  rank_ = *options.rank;
  EMBER_CHECK(num_replicas_ > 0, op, "num_replicas should be positive, got ", num_replicas_);
  EMBER_CHECK(rank_ >= 0 && rank_ < num_replicas_, op, "Invalid rank ", rank_,
              ", rank should be in the interval [0, ", num_replicas_ - 1, "]");
  EMBER_CHECK(dataset_size >= 0, op, "expected a non-negative dataset size, got ", dataset_size);
  if (drop_last_ && dataset_size % num_replicas_ != 0) {
    // Drop the tail so every rank gets the same count: ceil((n - R) / R).
    num_samples_ = (dataset_size - num_replicas_ + num_replicas_ - 1) / num_replicas_;
  } else {
    num_samples_ = (dataset_size + num_replicas_ - 1) / num_replicas_;
  }
}

std::vector<int64_t> DistributedSampler::indices() {
  if (shuffle_ && last_pass_epoch_ == epoch_ && rank_ == 0 && !warned_) {
    std::cerr << "[DistributedSampler] warning: this pass shuffles exactly as the previous one "
                 "(epoch "
              << epoch_
              << " again): call sampler.set_epoch(epoch) at the start of every epoch, "
                 "or every epoch sees the same order\n";
    warned_ = true;
  }
  last_pass_epoch_ = epoch_;
  std::vector<int64_t> order;
  if (shuffle_) {
    // Every rank seeds the same way, so all ranks agree on the permutation.
    Generator g(seed_ + uint64_t(epoch_));
    order = detail::randperm_list(dataset_size_, &g);
  } else {
    order.resize(size_t(dataset_size_));
    std::iota(order.begin(), order.end(), int64_t(0));
  }
  const size_t total = size_t(total_size());
  if (!drop_last_) {
    // Pad with the head of the order, repeated as often as needed (n may be < num_replicas).
    const size_t n = order.size();
    EMBER_CHECK(n > 0 || total == 0, "DistributedSampler", "cannot pad an empty dataset");
    for (size_t i = 0; order.size() < total; ++i) order.push_back(order[i % n]);
  } else {
    order.resize(total);
  }
  std::vector<int64_t> out;
  out.reserve(size_t(num_samples_));
  for (size_t i = size_t(rank_); i < total; i += size_t(num_replicas_)) out.push_back(order[i]);
  return out;
}

}  // namespace ember::data
