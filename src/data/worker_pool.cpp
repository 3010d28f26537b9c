// The DataLoader's worker threads. One mutex guards the task queues and the reorder buffer; the
// epoch number tags every task so results of an abandoned pass are dropped, not delivered.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "core/parallel.h"
#include "ember/data/worker.h"
#include "ember/error.h"
#include "profiler/recorder.h"

namespace ember::data {

namespace {
// Set on worker threads only.
thread_local std::optional<WorkerInfo> t_worker_info;
thread_local Generator* t_worker_generator = nullptr;
}  // namespace

std::optional<WorkerInfo> get_worker_info() { return t_worker_info; }

Generator& worker_generator() {
  return t_worker_generator ? *t_worker_generator : default_generator();
}

namespace detail {

// (Result and Task are members, not in an anonymous namespace: a type with external linkage may
// not hold one that has internal linkage, which GCC warns about in the unity build.)
struct WorkerPool::State {
  struct Result {
    std::shared_ptr<void> batch;
    std::string error;  // non-empty: the worker threw
    int64_t worker = 0;
  };
  struct Task {
    uint64_t epoch;
    int64_t index;
  };

  BatchFn fn;
  WorkerPoolOptions options;
  uint64_t base_seed;

  std::mutex mutex;
  std::condition_variable work_cv;    // workers wait for tasks
  std::condition_variable result_cv;  // the consumer waits for results
  bool stop = false;
  uint64_t epoch = 0;
  std::vector<std::vector<int64_t>> batches;
  std::vector<std::deque<Task>> queues;  // one per worker
  std::map<int64_t, Result> ready;       // finished batches not yet delivered
  int64_t dispatched = 0;                // batches handed to workers this epoch
  int64_t delivered = 0;                 // batches returned by next() this epoch
  std::vector<std::thread> threads;

  void dispatch_locked() {
    queues[size_t(dispatched % options.num_workers)].push_back({epoch, dispatched});
    ++dispatched;
  }

  void worker_loop(int64_t id) {
    set_num_threads_in_this_thread(1);
    profiler::detail::set_thread_name("DataLoader worker " + std::to_string(id));
    Generator generator(base_seed + uint64_t(id));
    t_worker_generator = &generator;
    t_worker_info = WorkerInfo{id, options.num_workers, base_seed + uint64_t(id)};
    std::string init_error;
    if (options.worker_init_fn) {
      try {
        options.worker_init_fn(id);
      } catch (const std::exception& e) {
        init_error = std::string("worker_init_fn failed: ") + e.what();
      }
    }
    std::unique_lock lock(mutex);
    auto& queue = queues[size_t(id)];
    while (true) {
      work_cv.wait(lock, [&] { return stop || !queue.empty(); });
      if (stop) return;
      const Task task = queue.front();
      queue.pop_front();
      const std::vector<int64_t> indices = batches[size_t(task.index)];
      lock.unlock();
      Result r{nullptr, init_error, id};
      if (r.error.empty()) {
        try {
          const profiler::detail::Range range(profiler::EventKind::UserAnnotation,
                                              "DataLoader worker: fetch batch");
          r.batch = fn(indices);
        } catch (const std::exception& e) {
          r.error = e.what();
        } catch (...) {
          r.error = "unknown exception";
        }
      }
      lock.lock();
      if (task.epoch == epoch) {
        ready.emplace(task.index, std::move(r));
        result_cv.notify_all();
      }
    }
  }
};

WorkerPool::WorkerPool(BatchFn fn, WorkerPoolOptions options, uint64_t base_seed)
    : state_(std::make_unique<State>()) {
  EMBER_CHECK(options.num_workers >= 0, "DataLoader", "num_workers option should be "
              "non-negative; use num_workers=0 to disable multiprocessing.");
  EMBER_CHECK(options.prefetch_factor > 0, "DataLoader",
              "prefetch_factor option should be positive, got ", options.prefetch_factor);
  state_->fn = std::move(fn);
  state_->options = std::move(options);
  state_->base_seed = base_seed;
  const int64_t w = state_->options.num_workers;
  state_->queues.resize(size_t(w));
  for (int64_t id = 0; id < w; ++id) {
    state_->threads.emplace_back([s = state_.get(), id] { s->worker_loop(id); });
  }
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stop = true;
  }
  state_->work_cv.notify_all();
  for (auto& t : state_->threads) t.join();
}

void WorkerPool::start_epoch(std::vector<std::vector<int64_t>> batches) {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  ++s.epoch;
  s.batches = std::move(batches);
  for (auto& q : s.queues) q.clear();
  s.ready.clear();
  s.dispatched = s.delivered = 0;
  if (s.options.num_workers == 0) return;
  // Fill the pipeline; each delivered batch dispatches one more.
  const int64_t n = int64_t(s.batches.size());
  const int64_t depth = s.options.prefetch_factor * s.options.num_workers;
  while (s.dispatched < std::min(n, depth)) s.dispatch_locked();
  s.work_cv.notify_all();
}

std::shared_ptr<void> WorkerPool::next() {
  // PyTorch's label for the loader's next batch (with workers it is the wait for one).
  const profiler::detail::Range range(profiler::EventKind::UserAnnotation,
                                      "enumerate(DataLoader)#_DataLoaderIter.__next__");
  State& s = *state_;
  const int64_t n = int64_t(s.batches.size());
  if (s.delivered >= n) return nullptr;
  if (s.options.num_workers == 0) return s.fn(s.batches[size_t(s.delivered++)]);

  std::unique_lock lock(s.mutex);
  const int64_t want = s.delivered;
  auto has_it = [&] { return s.ready.count(want) != 0; };
  if (s.options.timeout > 0) {
    const auto limit = std::chrono::duration<double>(s.options.timeout);
    if (!s.result_cv.wait_for(lock, limit, has_it)) {
      fail("DataLoader", "DataLoader timed out after ", s.options.timeout,
           " seconds waiting for batch ", want, " from worker ", want % s.options.num_workers);
    }
  } else {
    s.result_cv.wait(lock, has_it);
  }
  auto node = s.ready.extract(want);
  State::Result r = std::move(node.mapped());
  ++s.delivered;
  if (s.dispatched < n) {
    s.dispatch_locked();
    s.work_cv.notify_all();
  }
  if (!r.error.empty()) {
    fail("DataLoader", "Caught an exception in DataLoader worker ", r.worker, " (batch ", want,
         "): ", r.error);
  }
  return std::move(r.batch);
}

}  // namespace detail

}  // namespace ember::data
