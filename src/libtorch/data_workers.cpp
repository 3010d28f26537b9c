// A DataLoader's worker threads (torch/data/detail/worker_threads.h). One mutex guards the
// request queue and the finished results; results carry their request's sequence number, so
// an ordered pop() waits for exactly the next one while later ones wait in `done`.
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "core/parallel.h"  // set_num_threads_in_this_thread, as src/data's workers
#include "ember/error.h"
#include "torch/data/detail/worker_threads.h"
#include "torch/data/worker_exception.h"

namespace torch::data::detail {

struct WorkerThreads::State {
  struct Request {
    size_t sequence;
    Payload payload;
  };
  struct Result {
    size_t sequence;
    Payload batch;
    std::exception_ptr error;
  };

  bool enforce_ordering;
  std::optional<std::chrono::milliseconds> timeout;

  mutable std::mutex mutex;
  std::condition_variable request_ready;  // workers wait for requests
  std::condition_variable result_ready;   // pop() and drain() wait for workers
  std::deque<Request> requests;
  std::deque<Result> done;  // in the order they were finished
  size_t running = 0;       // requests a worker is working on
  size_t pushed = 0;        // this sequence's requests so far
  size_t popped = 0;        // and results handed out
  bool stopping = false;
  bool joined = false;
  std::vector<std::thread> threads;

  void serve(const Work& work) {
    // One kernel thread per worker, as ember's own DataLoader workers: an OpenMP team per
    // worker beside the training thread's would oversubscribe the cores.
    ember::set_num_threads_in_this_thread(1);
    std::unique_lock lock(mutex);
    while (true) {
      request_ready.wait(lock, [&] { return stopping || !requests.empty(); });
      if (stopping) return;
      Request request = std::move(requests.front());
      requests.pop_front();
      ++running;
      lock.unlock();
      Result result{request.sequence, nullptr, nullptr};
      try {
        result.batch = work(std::move(request.payload));
      } catch (...) {
        result.error = std::current_exception();
      }
      lock.lock();
      --running;
      done.push_back(std::move(result));
      result_ready.notify_all();
    }
  }

  // The position in `done` of the result pop() may hand out now, or done.end().
  std::deque<Result>::iterator next_result() {
    if (!enforce_ordering) return done.begin();
    return std::find_if(done.begin(), done.end(),
                        [&](const Result& r) { return r.sequence == popped; });
  }
};

WorkerThreads::WorkerThreads(std::vector<Work> workers, bool enforce_ordering,
                             std::optional<std::chrono::milliseconds> timeout)
    : state_(std::make_unique<State>()) {
  state_->enforce_ordering = enforce_ordering;
  state_->timeout = timeout;
  try {
    for (Work& work : workers) {
      state_->threads.emplace_back(
          [state = state_.get(), work = std::move(work)] { state->serve(work); });
    }
  } catch (...) {
    join();  // the threads already started must not outlive a failed constructor
    throw;
  }
}

WorkerThreads::~WorkerThreads() { join(); }

void WorkerThreads::push(Payload request) {
  {
    const std::lock_guard lock(state_->mutex);
    EMBER_CHECK(!state_->stopping, "DataLoader",
                "the worker threads were stopped by join(): this loader delivers no more batches");
    state_->requests.push_back({state_->pushed++, std::move(request)});
  }
  state_->request_ready.notify_one();
}

std::optional<WorkerThreads::Payload> WorkerThreads::pop() {
  State& s = *state_;
  std::unique_lock lock(s.mutex);
  if (s.pushed == s.popped) return std::nullopt;
  const auto ready = [&] { return s.next_result() != s.done.end(); };
  if (s.timeout) {
    EMBER_CHECK(s.result_ready.wait_for(lock, *s.timeout, ready), "DataLoader",
                "no batch came from the worker threads within the timeout of ", s.timeout->count(),
                " ms (DataLoaderOptions::timeout)");
  } else {
    s.result_ready.wait(lock, ready);
  }
  const auto it = s.next_result();
  State::Result result = std::move(*it);
  s.done.erase(it);
  ++s.popped;
  lock.unlock();
  if (result.error) throw WorkerException(result.error);
  return std::move(result.batch);
}

size_t WorkerThreads::in_flight() const {
  const std::lock_guard lock(state_->mutex);
  return state_->pushed - state_->popped;
}

void WorkerThreads::drain() {
  State& s = *state_;
  std::unique_lock lock(s.mutex);
  s.requests.clear();
  s.result_ready.wait(lock, [&] { return s.running == 0; });
  s.done.clear();
  s.pushed = s.popped = 0;
}

void WorkerThreads::join() {
  if (state_->joined) return;
  drain();
  {
    const std::lock_guard lock(state_->mutex);
    state_->stopping = true;
  }
  state_->request_ready.notify_all();
  for (std::thread& thread : state_->threads) thread.join();
  state_->joined = true;
}

}  // namespace torch::data::detail
