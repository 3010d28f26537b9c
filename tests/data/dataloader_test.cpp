// DataLoader semantics: batches and size() with and without drop_last, shuffling identical to
// PyTorch 1.13 for a seed (golden/data.json), two passes, structured bindings, collate of pairs
// and tuples, worker threads delivering in order, a worker's exception reaching the consumer,
// timeout, persistent workers and per-worker generators, pin_memory (pinned batches when CUDA is
// available, else the same batches unpinned, as PyTorch).
#include <gtest/gtest.h>

#include <ember/creation.h>
#include <ember/cuda.h>
#include <ember/data.h>
#include <ember/threads.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "test_support.h"

using namespace ember;
using namespace ember::data;
using json = nlohmann::json;
using Ints = std::vector<int64_t>;

namespace {

const json& golden() {
  static const json j = test::load_golden("data.json");
  return j;
}

Ints to_ints(const Tensor& t) {
  const Tensor c = t.contiguous();
  return Ints(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}

// Every pass of `loader` as lists of the first tensor's values.
template <class L>
std::vector<std::vector<Ints>> passes(L& loader, int n) {
  std::vector<std::vector<Ints>> out;
  for (int p = 0; p < n; ++p) {
    out.emplace_back();
    for (auto& [data, target] : loader) out.back().push_back(to_ints(data));
  }
  return out;
}

// Sample i is (i, i * 10); sleeps a little for small i so later batches finish first.
struct SlowDataset : Dataset<Example> {
  int64_t n;
  int64_t fail_at = -1;
  explicit SlowDataset(int64_t n) : n(n) {}
  int64_t size() const override { return n; }
  Example get(int64_t i) const override {
    if (i == fail_at) throw std::runtime_error("bad sample " + std::to_string(i));
    if (i < 8) std::this_thread::sleep_for(std::chrono::milliseconds(8 - i));
    return {tensor(i), tensor(i * 10)};
  }
};

TEST(DataLoader, BatchesSizeAndDropLast) {
  TensorDataset ds(arange(10), arange(0, 20, 2));
  DataLoader keep(ds, {.batch_size = 3});
  EXPECT_EQ(keep.size(), 4);
  std::vector<Ints> seen;
  for (auto& [data, target] : keep) {
    seen.push_back(to_ints(data));
    EXPECT_EQ(to_ints(target), to_ints(data.mul(2)));
  }
  EXPECT_EQ(seen, (std::vector<Ints>{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9}}));

  DataLoader drop(ds, {.batch_size = 3, .drop_last = true});
  EXPECT_EQ(drop.size(), 3);
  int64_t count = 0;
  for (auto& batch : drop) {
    EXPECT_EQ(batch.data.size(0), 3);
    ++count;
  }
  EXPECT_EQ(count, 3);
}

TEST(DataLoader, ShuffleMatchesPyTorchForASeed) {
  TensorDataset ds(arange(10));
  const json& g = golden()["loader"];
  Generator gen(g["seed"].get<uint64_t>());
  DataLoader loader(ds, {.batch_size = 3, .shuffle = true, .generator = &gen});
  EXPECT_EQ(passes(loader, 2), (g["epochs"].get<std::vector<std::vector<Ints>>>()));

  const json& d = golden()["loader_drop_last"];
  DataLoader dropped(ds, {.batch_size = 3, .shuffle = true, .drop_last = true,
                          .seed = d["seed"].get<uint64_t>()});
  EXPECT_EQ(passes(dropped, 1), (d["epochs"].get<std::vector<std::vector<Ints>>>()));

  // No generator: the default generator supplies the worker seed and the sampler's seed.
  const json& gl = golden()["loader_global"];
  manual_seed(gl["manual_seed"].get<uint64_t>());
  DataLoader global(ds, {.batch_size = 4, .shuffle = true});
  EXPECT_EQ(passes(global, 2), (gl["epochs"].get<std::vector<std::vector<Ints>>>()));
}

TEST(DataLoader, WorkersGiveTheSameBatchesAsTheMainThread) {
  TensorDataset ds(arange(103));
  DataLoader serial(ds, {.batch_size = 8, .shuffle = true, .seed = 1});
  DataLoader threaded(ds, {.batch_size = 8, .shuffle = true, .num_workers = 3, .seed = 1});
  EXPECT_EQ(passes(serial, 3), passes(threaded, 3));
  // pin_memory gives the same batches; they are pinned exactly when CUDA is available (PyTorch's
  // DataLoader runs unpinned without CUDA, as a build without it does here).
  DataLoader serial_again(ds, {.batch_size = 8, .shuffle = true, .seed = 1});
  DataLoader pinned(ds, {.batch_size = 8, .shuffle = true, .num_workers = 3, .pin_memory = true,
                         .seed = 1});
  EXPECT_EQ(passes(serial_again, 3), passes(pinned, 3));
  int64_t batches = 0;
  for (auto& [data, target] : pinned) {
    EXPECT_EQ(data.is_pinned(), cuda::is_available());
    EXPECT_FALSE(target.defined());  // no targets: nothing to pin, and no error
    ++batches;
  }
  EXPECT_EQ(batches, pinned.size());
  for (auto& [data, target] : serial_again) EXPECT_FALSE(data.is_pinned());
}

TEST(DataLoader, WorkersDeliverInOrder) {
  // Early samples are the slowest, so out-of-order completion is the norm.
  SlowDataset ds(64);
  for (int64_t prefetch : {1, 2, 4}) {
    DataLoader loader(ds, {.batch_size = 2, .num_workers = 4, .prefetch_factor = prefetch});
    int64_t expect = 0;
    for (auto& [data, target] : loader) {
      EXPECT_EQ(to_ints(data), (Ints{expect, expect + 1}));
      EXPECT_EQ(to_ints(target), (Ints{expect * 10, expect * 10 + 10}));
      expect += 2;
    }
    EXPECT_EQ(expect, 64);
  }
}

TEST(DataLoader, WorkerExceptionReachesTheConsumer) {
  for (int64_t workers : {0, 2}) {
    SlowDataset ds(40);
    ds.fail_at = 13;
    DataLoader loader(ds, {.batch_size = 4, .num_workers = workers});
    int64_t batches = 0;
    try {
      for (auto& batch : loader) {
        (void)batch;
        ++batches;
      }
      FAIL() << "expected the worker's exception";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find("bad sample 13"), std::string::npos) << e.what();
      if (workers > 0) {
        EXPECT_NE(std::string(e.what()).find("[DataLoader] Caught an exception in DataLoader "
                                             "worker 1 (batch 3)"),
                  std::string::npos)
            << e.what();
      }
    }
    EXPECT_EQ(batches, 3);  // batches 0..2 arrived, in order, before the failing one
    // The loader stays usable: a new pass starts cleanly (and fails at the same place).
    ds.fail_at = -1;
    DataLoader fine(ds, {.batch_size = 4, .num_workers = workers});
    EXPECT_EQ(passes(fine, 1)[0].size(), 10u);
  }
}

TEST(DataLoader, TimeoutIsAnError) {
  struct Stuck : Dataset<Example> {
    int64_t size() const override { return 4; }
    Example get(int64_t i) const override {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      return {tensor(i), tensor(i)};
    }
  };
  DataLoader loader(Stuck{}, {.batch_size = 2, .num_workers = 1, .timeout = 0.05});
  auto drain = [&] {
    for (auto& b : loader) (void)b;
  };
  EXPECT_ERROR(drain(), "[DataLoader] DataLoader timed out after");
}

TEST(DataLoader, IteratingTwiceAndBreakingEarly) {
  TensorDataset ds(arange(20));
  DataLoader loader(ds, {.batch_size = 5, .num_workers = 2});
  for (auto& b : loader) {  // abandon the first pass after one batch
    EXPECT_EQ(to_ints(b.data), (Ints{0, 1, 2, 3, 4}));
    break;
  }
  auto all = passes(loader, 2);
  EXPECT_EQ(all[0], all[1]);
  EXPECT_EQ(all[0].size(), 4u);
}

TEST(DataLoader, PersistentWorkersKeepTheirThreadsAndGenerators) {
  // Each sample records which worker built it and a draw from that worker's generator.
  struct Probe : Dataset<std::tuple<int64_t, int64_t, int64_t>> {
    int64_t size() const override { return 12; }
    std::tuple<int64_t, int64_t, int64_t> get(int64_t i) const override {
      auto info = get_worker_info();
      return {i, info ? info->id : -1, int64_t(worker_generator().random() % 1000)};
    }
  };
  DataLoader a(Probe{}, {.batch_size = 2, .num_workers = 3, .persistent_workers = true, .seed = 5});
  DataLoader b(Probe{}, {.batch_size = 2, .num_workers = 3, .persistent_workers = true, .seed = 5});
  std::vector<Ints> draws_a, draws_b;
  for (int pass = 0; pass < 2; ++pass) {
    int64_t k = 0;
    for (auto& [idx, worker, draw] : a) {
      EXPECT_EQ(to_ints(worker), (Ints{k % 3, k % 3}));  // batch k on worker k % 3
      draws_a.push_back(to_ints(draw));
      ++k;
    }
    for (auto& [idx, worker, draw] : b) draws_b.push_back(to_ints(draw));
  }
  // Same seed, same per-worker streams, whatever the thread timing; the second pass continues
  // the streams (persistent workers are seeded once).
  EXPECT_EQ(draws_a, draws_b);
  EXPECT_NE(Ints(draws_a[0]), Ints(draws_a[6]));
}

TEST(DataLoader, WorkerInitFnRunsOnEveryWorker) {
  std::atomic<int> calls{0};
  std::set<int64_t> ids;
  std::mutex m;
  TensorDataset ds(arange(8));
  DataLoader loader(ds, {.batch_size = 2, .num_workers = 3, .worker_init_fn = [&](int64_t id) {
                           std::lock_guard g(m);
                           ids.insert(id);
                           ++calls;
                         }});
  passes(loader, 1);
  EXPECT_EQ(calls.load(), 3);
  EXPECT_EQ(ids, (std::set<int64_t>{0, 1, 2}));
}

// Workers compute with one thread (PyTorch's workers call set_num_threads(1)); the consumer
// keeps its count.
TEST(DataLoader, WorkersComputeWithOneThread) {
  const int before = get_num_threads();
  std::atomic<int> most{0};
  TensorDataset ds(arange(8));
  DataLoader loader(ds, {.batch_size = 2, .num_workers = 2,
                         .collate_fn = [&](std::vector<Example> samples) {
                           most = std::max(most.load(), get_num_threads());
                           return default_collate(std::move(samples));
                         }});
  EXPECT_EQ(passes(loader, 1)[0].size(), 4u);
  EXPECT_EQ(most.load(), 1);
  EXPECT_EQ(get_num_threads(), before);
}

TEST(DataLoader, SamplerOptionsAndErrors) {
  TensorDataset ds(arange(12));
  DistributedSampler sampler(ds, {.num_replicas = 2, .rank = 1, .shuffle = false});
  DataLoader loader(ds, {.batch_size = 3, .sampler = sampler});
  EXPECT_EQ(loader.size(), 2);
  EXPECT_EQ(passes(loader, 1)[0], (std::vector<Ints>{{1, 3, 5}, {7, 9, 11}}));

  // The loader shares the caller's sampler: set_epoch reaches it.
  DistributedSampler shuffled(ds, {.num_replicas = 2, .rank = 0});
  DataLoader l2(ds, {.batch_size = 6, .sampler = shuffled});
  const auto e0 = passes(l2, 1);
  shuffled.set_epoch(1);
  EXPECT_NE(passes(l2, 1), e0);

  DataLoader custom(ds, {.batch_sampler = BatchSampler(SequentialSampler(12), 5, true)});
  EXPECT_EQ(custom.size(), 2);

  EXPECT_THROW(DataLoader(ds, {.shuffle = true, .sampler = sampler}), Error);
  EXPECT_THROW(DataLoader(ds, {.batch_size = 2,
                               .batch_sampler = BatchSampler(SequentialSampler(12), 5)}),
               Error);
  EXPECT_THROW(DataLoader(ds, {.num_workers = -1}), Error);
  EXPECT_THROW(DataLoader(ds, {.prefetch_factor = 4}), Error);
  EXPECT_THROW(DataLoader(ds, {.persistent_workers = true}), Error);
}

TEST(DataLoader, CollatesPairsTuplesNumbersAndCustomFns) {
  struct Pairs : Dataset<std::pair<Tensor, int64_t>> {
    int64_t size() const override { return 5; }
    std::pair<Tensor, int64_t> get(int64_t i) const override { return {full({2}, double(i)), i}; }
  };
  DataLoader loader(Pairs{}, {.batch_size = 2});
  int64_t k = 0;
  for (auto& [x, y] : loader) {
    EXPECT_EQ(x.dim(), 2);
    EXPECT_EQ(x.size(1), 2);
    EXPECT_EQ(y.dtype(), kInt64);
    EXPECT_EQ(to_ints(y)[0], 2 * k++);
  }
  // A custom collate to another batch type.
  DataLoader<std::pair<Tensor, int64_t>, int64_t> sums(
      Pairs{}, {.batch_size = 5, .collate_fn = [](std::vector<std::pair<Tensor, int64_t>> s) {
                  int64_t total = 0;
                  for (auto& p : s) total += p.second;
                  return total;
                }});
  for (int64_t total : sums) EXPECT_EQ(total, 10);
  // Mismatched shapes name the problem.
  struct Ragged : Dataset<Tensor> {
    int64_t size() const override { return 2; }
    Tensor get(int64_t i) const override { return zeros({i + 1}); }
  };
  DataLoader ragged(Ragged{}, {.batch_size = 2});
  EXPECT_THROW(for (Tensor& t : ragged) (void)t, Error);
}

}  // namespace
