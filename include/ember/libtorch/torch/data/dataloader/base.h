// DataLoaderBase: what the stateless and the stateful DataLoader share. begin() starts an
// epoch (reset(): the sampler or dataset starts over and, with workers, the first max_jobs
// requests go out) and returns the iterator; each step takes the next batch: built on the
// calling thread without workers, otherwise the next result of the worker threads (in request
// order with enforce_ordering), after which one more request goes out.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "ember/error.h"
#include "torch/data/dataloader_options.h"
#include "torch/data/detail/worker_threads.h"
#include "torch/data/iterator.h"
#include "torch/data/worker_exception.h"
#include "torch/types.h"

namespace torch::data {

template <typename Dataset, typename Batch, typename BatchRequest>
class DataLoaderBase {
 public:
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;

  DataLoaderBase(DataLoaderOptions options, std::unique_ptr<Dataset> main_thread_dataset = nullptr)
      : options_(checked(std::move(options))),
        main_thread_dataset_(std::move(main_thread_dataset)) {}

  virtual ~DataLoaderBase() { join(); }

  /// Starts an epoch. With workers, the previous epoch's iteration must have run to its end.
  Iterator<Batch> begin() {
    EMBER_CHECK(!workers_ || workers_->in_flight() == 0, "DataLoader",
                "begin() while an earlier iterator of this loader is not exhausted (",
                workers_ ? workers_->in_flight() : 0,
                " batches still in flight): run it to the end first");
    reset();
    return Iterator<Batch>([this] { return this->next(); });
  }
  Iterator<Batch> end() { return Iterator<Batch>(); }

  /// Stops the worker threads, dropping the batches they have built ahead (also done by the
  /// destructor); the loader cannot deliver batches from workers afterwards.
  void join() {
    if (workers_) workers_->join();
  }

  const FullDataLoaderOptions& options() const noexcept { return options_; }

 protected:
  /// The next request (from the sampler, or the batch size for a stateful dataset), or
  /// nullopt at the end of the epoch.
  virtual optional<BatchRequestType> get_batch_request() = 0;

  virtual void reset() {
    if (workers_) workers_->drain();
    prefetch();
  }

  /// Sends up to `requested_jobs` requests to the workers.
  void prefetch(size_t requested_jobs) {
    for (size_t i = 0; i < requested_jobs; ++i) {
      optional<BatchRequestType> request = get_batch_request();
      if (!request) break;
      workers_->push(std::make_shared<BatchRequestType>(std::move(*request)));
    }
  }
  void prefetch() {
    if (workers_) prefetch(options_.max_jobs);
  }

  optional<BatchType> next() {
    if (workers_) {
      // A null result is a stateful dataset's "no more": the results still out may be too.
      while (std::optional<detail::WorkerThreads::Payload> result = workers_->pop()) {
        if (*result) {
          prefetch(1);
          return std::move(*static_cast<BatchType*>(result->get()));
        }
      }
      return nullopt;
    }
    if (optional<BatchRequestType> request = get_batch_request()) {
      return main_thread_dataset_->get_batch(std::move(*request));
    }
    return nullopt;
  }

  /// Starts one worker thread per dataset in `datasets` (each its own copy, or shared by all
  /// for a stateful dataset), which build batches from requests.
  void start_workers(const std::vector<std::shared_ptr<Dataset>>& datasets) {
    std::vector<detail::WorkerThreads::Work> work;
    for (const std::shared_ptr<Dataset>& dataset : datasets) {
      work.push_back([dataset](detail::WorkerThreads::Payload request) -> std::shared_ptr<void> {
        auto batch = dataset->get_batch(std::move(*static_cast<BatchRequestType*>(request.get())));
        if constexpr (Dataset::is_stateful) {
          if (!batch) return nullptr;
          return std::make_shared<BatchType>(std::move(*batch));
        } else {
          return std::make_shared<BatchType>(std::move(batch));
        }
      });
    }
    workers_ = std::make_unique<detail::WorkerThreads>(std::move(work), options_.enforce_ordering,
                                                       options_.timeout);
  }

  const FullDataLoaderOptions options_;
  /// The dataset the calling thread uses without workers (the stateful one, always).
  std::unique_ptr<Dataset> main_thread_dataset_;
  std::unique_ptr<detail::WorkerThreads> workers_;

 private:
  // Values LibTorch would take and then fail on, or silently deliver nothing for.
  static FullDataLoaderOptions checked(DataLoaderOptions options) {
    const FullDataLoaderOptions full(std::move(options));
    EMBER_CHECK(full.batch_size > 0, "DataLoader", "batch_size must be at least 1, got 0");
    EMBER_CHECK(full.workers == 0 || full.max_jobs > 0, "DataLoader", "max_jobs is 0 with ",
                full.workers, " workers: no batch would ever be requested; expected at least 1");
    EMBER_CHECK(!full.timeout || full.timeout->count() >= 0, "DataLoader",
                "timeout must not be negative, got ", full.timeout->count(), " ms");
    return full;
  }
};

}  // namespace torch::data
