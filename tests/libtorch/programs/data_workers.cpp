// DataLoader worker threads: the same batches, in the same order, with workers(2) as without
// (sequential and random samplers over MNIST's test split, a dataset of one's own), batches
// in any order without enforce_ordering, max_jobs and timeout, an exception in a worker, a
// restart before the epoch is over, a stateful dataset shared by the workers, join().
#include <torch/torch.h>

#include <chrono>
#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace data = torch::data;

struct Summary {
  size_t batches = 0, examples = 0;
  double data_sum = 0;
  long long target_sum = 0;
  std::vector<long long> first_targets;  // the first batches' target sums, in arrival order
};

template <typename Loader>
Summary summarize(Loader& loader) {
  Summary s;
  for (data::Example<>& batch : loader) {
    ++s.batches;
    s.examples += batch.data.size(0);
    s.data_sum += batch.data.sum().item<double>();
    const long long targets = batch.target.sum().item<int64_t>();
    s.target_sum += targets;
    if (s.first_targets.size() < 6) s.first_targets.push_back(targets);
  }
  return s;
}

void print(const char* name, const Summary& s, bool order) {
  std::printf("%s: %zu batches, %zu examples, data sum %.3f, targets sum %lld", name, s.batches,
              s.examples, s.data_sum, s.target_sum);
  if (order) {
    std::printf(", first batches' targets");
    for (long long t : s.first_targets) std::printf(" %lld", t);
  }
  std::printf("\n");
}

// Throws for example 13.
struct Fragile : data::datasets::Dataset<Fragile> {
  data::Example<> get(size_t index) override {
    if (index == 13) throw std::runtime_error("example 13 is broken");
    return {torch::ones({2}) * static_cast<double>(index),
            torch::tensor(static_cast<int64_t>(index))};
  }
  torch::optional<size_t> size() const override { return 40; }
};

// Takes its time: 300 ms per example.
struct Slow : data::datasets::Dataset<Slow> {
  data::Example<> get(size_t index) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return {torch::zeros({1}), torch::tensor(static_cast<int64_t>(index))};
  }
  torch::optional<size_t> size() const override { return 4; }
};

// A stateful dataset that the workers share: 50 numbers handed out under a lock.
struct Dispenser : data::datasets::StatefulDataset<Dispenser, data::Example<>> {
  Dispenser() : mutex(std::make_shared<std::mutex>()) {}
  torch::optional<data::Example<>> get_batch(size_t count) override {
    std::lock_guard<std::mutex> lock(*mutex);
    if (next == 50) return torch::nullopt;
    const int64_t end = std::min<int64_t>(50, next + static_cast<int64_t>(count));
    auto values = torch::arange(next, end);
    next = end;
    return data::Example<>(values.to(torch::kFloat32), values);
  }
  torch::optional<size_t> size() const override { return 50; }
  void reset() override { next = 0; }
  void save(torch::serialize::OutputArchive&) const override {}
  void load(torch::serialize::InputArchive&) override {}
  std::shared_ptr<std::mutex> mutex;
  int64_t next = 0;
};

int main() {
  auto test = data::datasets::MNIST("./data", data::datasets::MNIST::Mode::kTest)
                  .map(data::transforms::Normalize<>(0.1307, 0.3081))
                  .map(data::transforms::Stack<>());

  for (size_t workers : {0, 2}) {
    auto loader = data::make_data_loader<data::samplers::SequentialSampler>(
        test, data::DataLoaderOptions().batch_size(250).workers(workers));
    std::printf("workers %zu: options workers %zu max_jobs %zu\n", workers,
                loader->options().workers, loader->options().max_jobs);
    print(workers ? "sequential, 2 workers" : "sequential, no workers", summarize(*loader), true);
  }
  for (size_t workers : {0, 2}) {
    torch::manual_seed(5);
    auto loader = data::make_data_loader(
        test, data::DataLoaderOptions().batch_size(250).workers(workers).drop_last(true));
    for (int epoch = 0; epoch < 2; ++epoch) {
      std::printf("epoch %d ", epoch);
      print(workers ? "random, 2 workers" : "random, no workers", summarize(*loader), true);
    }
  }

  // Without enforce_ordering the batches come as they are done: the same ones, in any order.
  auto unordered = data::make_data_loader<data::samplers::SequentialSampler>(
      test, data::DataLoaderOptions().batch_size(250).workers(2).enforce_ordering(false));
  print("unordered, 2 workers", summarize(*unordered), false);

  auto throttled = data::make_data_loader<data::samplers::SequentialSampler>(
      test, data::DataLoaderOptions().batch_size(1000).workers(3).max_jobs(1).timeout(
                std::chrono::milliseconds(20000)));
  std::printf("throttled: max_jobs %zu timeout %lld ms\n", throttled->options().max_jobs,
              static_cast<long long>(throttled->options().timeout->count()));
  print("throttled, 3 workers", summarize(*throttled), true);

  // A worker's exception reaches the loop as WorkerException.
  auto fragile = data::make_data_loader<data::samplers::SequentialSampler>(
      Fragile().map(data::transforms::Stack<>()), data::DataLoaderOptions(5).workers(2));
  size_t before = 0;
  try {
    for (auto& batch : *fragile) before += batch.data.size(0);
  } catch (const data::WorkerException& e) {
    std::printf("worker exception after %zu examples, original kept %d\n", before,
                static_cast<bool>(e.original_exception));
  }

  // A batch that takes longer than the timeout.
  auto slow = data::make_data_loader<data::samplers::SequentialSampler>(
      Slow(), data::DataLoaderOptions(1).workers(1).timeout(std::chrono::milliseconds(50)));
  try {
    for (auto& batch : *slow) std::printf("slow batch of %zu\n", batch.size());
  } catch (const c10::Error&) {
    std::printf("waiting longer than the timeout threw\n");
  }

  // An epoch left early cannot be restarted while the workers still hold batches for it.
  auto restarted = data::make_data_loader<data::samplers::SequentialSampler>(
      Fragile().map(data::transforms::Stack<>()), data::DataLoaderOptions(2).workers(2));
  for (auto& batch : *restarted) {
    std::printf("first batch of an epoch left early: %lld examples\n",
                static_cast<long long>(batch.data.size(0)));
    break;
  }
  try {
    restarted->begin();
  } catch (const c10::Error&) {
    std::printf("begin() before the epoch was over threw\n");
  }
  restarted->join();
  std::printf("joined\n");

  // A stateful dataset shared by 2 workers: all 50 numbers, each once.
  auto dispensed = data::make_data_loader(Dispenser(), data::DataLoaderOptions(8).workers(2));
  for (int epoch = 0; epoch < 2; ++epoch) {
    long long sum = 0, count = 0;
    for (auto& batch : *dispensed) {
      sum += batch.target.sum().item<int64_t>();
      count += batch.target.size(0);
    }
    std::printf("stateful, 2 workers, epoch %d: %lld numbers, sum %lld\n", epoch, count, sum);
  }
  return 0;
}
