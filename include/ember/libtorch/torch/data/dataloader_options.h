// DataLoaderOptions, chained setters (DataLoaderOptions().batch_size(64).workers(2)), or a
// bare batch size (make_data_loader(dataset, 64)):
//   batch_size (1)           examples per batch
//   workers (0)              threads that build batches ahead; 0: on the calling thread
//   max_jobs (2 * workers)   batches requested ahead of the one being used (with workers)
//   timeout (none)           how long to wait for a worker's batch before throwing
//   enforce_ordering (true)  batches in sampler order; false: as the workers finish them
//   drop_last (false)        leave out a last batch smaller than batch_size
// Without workers nothing is built ahead, so max_jobs, timeout and enforce_ordering have
// nothing to act on (as in LibTorch).
#pragma once

#include <chrono>
#include <cstddef>

#include "torch/arg.h"
#include "torch/types.h"

namespace torch::data {

struct DataLoaderOptions {
  DataLoaderOptions() = default;
  DataLoaderOptions(size_t batch_size)  // NOLINT: implicit, as LibTorch's
      : batch_size_(batch_size) {}

  TORCH_ARG(size_t, batch_size) = 1;
  TORCH_ARG(size_t, workers) = 0;
  TORCH_ARG(optional<size_t>, max_jobs);
  TORCH_ARG(optional<std::chrono::milliseconds>, timeout);
  TORCH_ARG(bool, enforce_ordering) = true;
  TORCH_ARG(bool, drop_last) = false;
};

/// The options with their defaults filled in, what a DataLoader reports as options().
struct FullDataLoaderOptions {
  explicit FullDataLoaderOptions(DataLoaderOptions options)
      : batch_size(options.batch_size()),
        workers(options.workers()),
        max_jobs(options.max_jobs().value_or(2 * options.workers())),
        timeout(options.timeout()),
        enforce_ordering(options.enforce_ordering()),
        drop_last(options.drop_last()) {}

  size_t batch_size;
  size_t workers;
  size_t max_jobs;
  optional<std::chrono::milliseconds> timeout;
  bool enforce_ordering;
  bool drop_last;
};

}  // namespace torch::data
