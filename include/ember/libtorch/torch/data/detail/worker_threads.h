// The threads behind a DataLoader with workers (src/libtorch/data_workers.cpp), type-erased so
// the thread machinery is compiled once, not per dataset type. Requests go into one queue that
// every worker takes from; each worker runs its own function (over its own copy of the
// dataset) on a request and files the result; pop() hands results back in request order
// (enforce_ordering) or as they are finished.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace torch::data::detail {

class WorkerThreads {
 public:
  using Payload = std::shared_ptr<void>;
  /// Builds the batch for a request; may return null for "no batch" (an exhausted stateful
  /// dataset) and may throw.
  using Work = std::function<Payload(Payload request)>;

  /// One thread per function in `workers`.
  WorkerThreads(std::vector<Work> workers, bool enforce_ordering,
                std::optional<std::chrono::milliseconds> timeout);
  ~WorkerThreads();  // join()
  WorkerThreads(const WorkerThreads&) = delete;
  WorkerThreads& operator=(const WorkerThreads&) = delete;

  /// Queues a request.
  void push(Payload request);
  /// The next result, waiting for it; nullopt when no request is outstanding. A worker's
  /// exception is rethrown here as WorkerException; waiting longer than the timeout throws.
  std::optional<Payload> pop();
  /// Requests pushed whose results have not been popped.
  size_t in_flight() const;
  /// Forgets queued requests, waits for the running ones and drops every result; the next
  /// push starts a new sequence.
  void drain();
  /// drain(), then stops and joins the threads (once).
  void join();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace torch::data::detail
