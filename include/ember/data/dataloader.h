// DataLoader: batches of a Dataset in the order of a (batch) sampler, built by worker threads
// ahead of use (torch.utils.data.DataLoader). `for (auto& [data, target] : loader)` runs one pass;
// every range-for is a new pass (a new shuffle); loader.size() is batches per pass.
#pragma once

#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "ember/cuda.h"
#include "ember/data/collate.h"
#include "ember/data/dataset.h"
#include "ember/data/sampler.h"
#include "ember/data/worker.h"
#include "ember/error.h"
#include "ember/generator.h"

namespace ember::data {

namespace detail {
// PyTorch's pin_memory(data) for the batch types default_collate makes: tensors are pinned
// (undefined ones stay undefined); Examples, pairs, tuples and vectors member by member; any
// other value (numbers, strings) is returned unchanged. Declared first so that each overload
// sees the others, whatever the nesting.
inline void pin_batch(Tensor& t);
inline void pin_batch(Example& e);
template <class A, class B>
void pin_batch(std::pair<A, B>& p);
template <class... T>
void pin_batch(std::tuple<T...>& t);
template <class T>
void pin_batch(std::vector<T>& v);
template <class T>
void pin_batch(T&) {}

inline void pin_batch(Tensor& t) {
  if (t.defined()) t = t.pin_memory();
}
inline void pin_batch(Example& e) {
  pin_batch(e.data);
  pin_batch(e.target);
}
template <class A, class B>
void pin_batch(std::pair<A, B>& p) {
  pin_batch(p.first);
  pin_batch(p.second);
}
template <class... T>
void pin_batch(std::tuple<T...>& t) {
  std::apply([](auto&... x) { (pin_batch(x), ...); }, t);
}
template <class T>
void pin_batch(std::vector<T>& v) {
  for (T& x : v) pin_batch(x);
}
}  // namespace detail

/// DataLoader's keyword arguments, in PyTorch's order.
template <class S, class B = collate_t<S>>
struct DataLoaderOptions {
  int64_t batch_size = 1;
  bool shuffle = false;
  SamplerRef sampler = {};             // exclusive with shuffle
  BatchSamplerRef batch_sampler = {};  // exclusive with batch_size, shuffle, sampler, drop_last
  int64_t num_workers = 0;             // worker threads; 0 loads on the consuming thread
  std::function<B(std::vector<S>)> collate_fn = {};  // default: default_collate
  // Pins every tensor of each batch (Tensor::pin_memory, on the thread that builds it) when
  // cuda::is_available(); otherwise batches stay in ordinary memory, as PyTorch's DataLoader
  // does without CUDA (a build without CUDA, or no device): the option is then a no-op.
  bool pin_memory = false;
  bool drop_last = false;
  double timeout = 0;  // seconds to wait for a worker's batch; 0: no limit
  std::function<void(int64_t)> worker_init_fn = {};  // called on each worker thread with its id
  Generator* generator = nullptr;  // shuffling and worker seeds; null: the default generator
  std::optional<int64_t> prefetch_factor = {};  // batches in flight per worker (default 2)
  bool persistent_workers = false;  // keep the worker threads between passes
  std::optional<uint64_t> seed = {};  // instead of generator: a private Generator(seed)
};

template <class S = Example, class B = collate_t<S>>
class DataLoader {
 public:
  using Options = DataLoaderOptions<S, B>;
  using Batch = B;

  /// `dataset` is a Dataset<S> object (copied; datasets share their tensors) or a shared_ptr.
  template <class D>
  DataLoader(D&& dataset, Options options = {})
      : dataset_(share_dataset(std::forward<D>(dataset))), options_(std::move(options)) {
    const char* op = "DataLoader";
    Options& o = options_;
    EMBER_CHECK(o.num_workers >= 0, op, "num_workers option should be non-negative; use "
                "num_workers=0 to disable multiprocessing.");
    EMBER_CHECK(o.timeout >= 0, op, "timeout option should be non-negative");
    EMBER_CHECK(o.num_workers > 0 || !o.prefetch_factor, op, "prefetch_factor option could only "
                "be specified in multiprocessing.let num_workers > 0 to enable multiprocessing.");
    EMBER_CHECK(!o.prefetch_factor || *o.prefetch_factor > 0, op,
                "prefetch_factor option should be positive");
    EMBER_CHECK(o.num_workers > 0 || !o.persistent_workers, op,
                "persistent_workers option needs num_workers > 0");
    EMBER_CHECK(!(o.sampler && o.shuffle), op, "sampler option is mutually exclusive with shuffle");
    EMBER_CHECK(!(o.generator && o.seed), op, "pass either generator or seed, not both");
    if (o.seed) {
      own_generator_ = std::make_unique<Generator>(*o.seed);
      generator_ = own_generator_.get();
    } else {
      generator_ = o.generator;
    }
    if (o.batch_sampler) {
      EMBER_CHECK(o.batch_size == 1 && !o.shuffle && !o.sampler && !o.drop_last, op,
                  "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                  "and drop_last");
      batch_sampler_ = o.batch_sampler;
    } else {
      SamplerRef sampler = o.sampler;
      if (!sampler) {
        if (o.shuffle) {
          sampler = std::make_shared<RandomSampler>(dataset_->size(),
                                                    RandomSamplerOptions{.generator = generator_});
        } else {
          sampler = std::make_shared<SequentialSampler>(dataset_->size());
        }
      }
      batch_sampler_ = std::make_shared<BatchSampler>(sampler, o.batch_size, o.drop_last);
    }
    if (!o.collate_fn) {
      if constexpr (std::is_same_v<B, collate_t<S>>) {
        o.collate_fn = [](std::vector<S> samples) { return default_collate(std::move(samples)); };
      } else {
        fail(op, "collate_fn is required when the batch type is not default_collate's");
      }
    }
  }

  /// Batches per pass (len(loader)).
  int64_t size() const { return batch_sampler_->size(); }
  const Dataset<S>& dataset() const { return *dataset_; }
  const Options& options() const { return options_; }

  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = B;
    using difference_type = std::ptrdiff_t;
    using reference = B&;
    Iterator() = default;
    B& operator*() const { return *batch_; }
    B* operator->() const { return batch_.get(); }
    Iterator& operator++() {
      batch_ = loader_->fetch();
      return *this;
    }
    void operator++(int) { ++*this; }
    friend bool operator==(const Iterator& it, std::default_sentinel_t) {
      return it.batch_ == nullptr;
    }

   private:
    friend class DataLoader;
    explicit Iterator(DataLoader* loader) : loader_(loader), batch_(loader->fetch()) {}
    DataLoader* loader_ = nullptr;
    std::shared_ptr<B> batch_;
  };

  /// Starts a pass: draws the worker base seed, then the sampler's order (PyTorch's order of
  /// draws), and returns the first batch. A pass still running is abandoned.
  Iterator begin() {
    if (!pool_ || !options_.persistent_workers) {
      pool_.reset();
      const uint64_t base_seed = uint64_t(detail::random_seed_from(generator_));
      pool_ = std::make_unique<detail::WorkerPool>(
          // Captures the dataset and collate_fn, not `this`, so a DataLoader can be moved.
          [dataset = dataset_, collate = options_.collate_fn,
           pin = options_.pin_memory && cuda::is_available()](const std::vector<int64_t>& idx) {
            return make_batch(*dataset, collate, idx, pin);
          },
          detail::WorkerPoolOptions{.num_workers = options_.num_workers,
                                    .prefetch_factor = options_.prefetch_factor.value_or(2),
                                    .timeout = options_.timeout,
                                    .worker_init_fn = options_.worker_init_fn},
          base_seed);
    }
    pool_->start_epoch(batch_sampler_->batches());
    return Iterator(this);
  }
  std::default_sentinel_t end() const { return {}; }

 private:
  static std::shared_ptr<void> make_batch(const Dataset<S>& dataset,
                                          const std::function<B(std::vector<S>)>& collate,
                                          const std::vector<int64_t>& indices, bool pin) {
    std::vector<S> samples;
    samples.reserve(indices.size());
    for (int64_t i : indices) samples.push_back(dataset.get(i));
    auto batch = std::make_shared<B>(collate(std::move(samples)));
    if (pin) detail::pin_batch(*batch);
    return batch;
  }
  std::shared_ptr<B> fetch() {
    std::shared_ptr<void> b = pool_->next();
    // The last batch of a non-persistent pass releases the threads at once.
    if (!b && !options_.persistent_workers) pool_.reset();
    return std::static_pointer_cast<B>(std::move(b));
  }

  std::shared_ptr<Dataset<S>> dataset_;
  Options options_;
  std::unique_ptr<Generator> own_generator_;
  Generator* generator_ = nullptr;
  BatchSamplerRef batch_sampler_;
  std::unique_ptr<detail::WorkerPool> pool_;  // declared last: its threads stop first
};

template <class D>
DataLoader(D&&, DataLoaderOptions<typename dataset_t<D>::Sample>)
    -> DataLoader<typename dataset_t<D>::Sample>;
template <class D>
DataLoader(D&&) -> DataLoader<typename dataset_t<D>::Sample>;

}  // namespace ember::data
