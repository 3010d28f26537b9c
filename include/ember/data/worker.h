// DataLoader workers: threads that each build whole batches (fetch, transform, collate) ahead of
// the training loop, delivered in sampler order. Inside a worker, get_worker_info() says which one
// it is and worker_generator() is its own Generator (seeded base_seed + id, as PyTorch seeds each
// worker process), so random transforms are reproducible whatever the thread timing.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "ember/generator.h"

namespace ember::data {

struct WorkerInfo {
  int64_t id = 0;
  int64_t num_workers = 0;
  uint64_t seed = 0;  // base_seed + id; worker_generator() starts from it
};

/// The current DataLoader worker, or nullopt on any other thread (torch's get_worker_info()).
std::optional<WorkerInfo> get_worker_info();
/// The worker's own generator inside a worker; the default generator elsewhere. Random
/// transforms and datasets draw from it.
Generator& worker_generator();

namespace detail {

/// Builds one batch from its indices; type-erased so the thread machinery is compiled once.
using BatchFn = std::function<std::shared_ptr<void>(const std::vector<int64_t>&)>;

struct WorkerPoolOptions {
  int64_t num_workers = 0;      // 0: batches are built on the consumer's thread in next()
  int64_t prefetch_factor = 2;  // batches in flight per worker
  double timeout = 0;           // seconds next() waits for a batch; 0: forever
  std::function<void(int64_t)> worker_init_fn;
};

/// Runs BatchFn over the batches of an epoch, num_workers threads deep. Batch k goes to worker
/// k % num_workers (PyTorch's round robin), at most prefetch_factor * num_workers are
/// outstanding, and next() hands them back strictly in order.
class WorkerPool {
 public:
  WorkerPool(BatchFn fn, WorkerPoolOptions options, uint64_t base_seed);
  ~WorkerPool();  // stops the threads (work in flight is abandoned) and joins them
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  /// Starts a pass over `batches`, discarding whatever the previous pass left in flight.
  void start_epoch(std::vector<std::vector<int64_t>> batches);
  /// The next batch in order, or null after the last. Rethrows a worker's exception as
  /// ember::Error carrying its message; throws after `timeout` seconds without a batch.
  std::shared_ptr<void> next();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace detail

}  // namespace ember::data
