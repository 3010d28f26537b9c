// The process group's device seam (src/distributed/device_communicator.h) on real processes over
// loopback, with a fake device communicator registered through the same hook as the NCCL one: a
// group of a device backend sends every collective it carries to the communicator (numbered as
// the group numbers them), refuses the rest and tensors of the other device type with errors
// naming op and rank, returns complete Works, and turns the watchdog's timeout into the group's
// error, as Gloo's are worded. The fake takes CPU tensors (or, as "fake_cuda", claims CUDA ones,
// for the refusal), so that every build runs it; tests/cuda/nccl_test.cpp runs the real one.
// Also: the debug mode's cross-rank check before a device call, and DDP and FSDP over the fake
// training as one process does.
#include "distributed/device_communicator.h"

#include <ember/ember.h>
#include <ember/nn/parallel/distributed.h>
#include <ember/nn/parallel/fully_sharded.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "distributed/dist_test_support.h"
#include "distributed/equivalence_support.h"
#include "distributed/multiprocess.h"
#include "test_support.h"

namespace ember::dist {
namespace {

using namespace std::chrono_literals;
using test::require;

// What reached the fake in this rank: "all_reduce #1", ... (each rank is its own process).
std::vector<std::string>& calls() {
  static std::vector<std::string> log;
  return log;
}
int communicators_built = 0;

// A device communicator over the group's store: a collective posts this rank's bytes under
// "<seq>/<rank>" and waits, polling, for every rank's, so that the watchdog's abort stops a
// hung one as ncclCommAbort makes NCCL's kernels return. Results are computed in float64.
class StoreCommunicator final : public DeviceCommunicator, public WatchedCommunicator {
 public:
  explicit StoreCommunicator(const DeviceCommunicatorConfig& c)
      : config_(c), watchdog_(*this, c.timeout, c.prefix, 10ms) {
    ++communicators_built;
    watchdog_.start();
  }

  void all_reduce(const Tensor& t, ReduceOp op, int64_t seq) override {
    const auto all = exchange("all_reduce", seq, t);
    Tensor acc = all[0].to(kFloat64);
    for (size_t r = 1; r < all.size(); ++r) {
      const Tensor x = all[r].to(kFloat64);
      acc = op == ReduceOp::MAX ? maximum(acc, x) : op == ReduceOp::MIN ? minimum(acc, x)
            : op == ReduceOp::PRODUCT ? acc * x : acc + x;
    }
    if (op == ReduceOp::AVG) acc = acc / double(config_.size);
    t.copy_(acc.view(t.sizes()));
  }
  void broadcast(const Tensor& t, int root, int64_t seq) override {
    t.copy_(exchange("broadcast", seq, t)[size_t(root)].view(t.sizes()));
  }
  void all_gather(const Tensor& out, const Tensor& in, int64_t seq) override {
    out.copy_(cat(exchange("all_gather", seq, in), 0).view(out.sizes()));
  }
  void reduce_scatter(const Tensor& out, const Tensor& in, ReduceOp op, int64_t seq) override {
    Tensor sum = in.to(kFloat64).reshape({-1}).clone();
    all_reduce(sum, op, seq);  // numbered once: the log says reduce_scatter below
    calls().back() = "reduce_scatter #" + std::to_string(seq);
    out.copy_(sum.narrow(0, config_.rank * out.numel(), out.numel()).view(out.sizes()));
  }
  void synchronize() override { calls().push_back("synchronize"); }
  std::string error() override { return watchdog_.error(); }
  std::string async_error() override { return ""; }
  void abort() override { aborted_ = true; }

 private:
  std::string key(int64_t seq, int rank) const {
    return std::to_string(seq) + "/" + std::to_string(rank);
  }
  std::vector<Tensor> exchange(const char* op, int64_t seq, const Tensor& t) {
    calls().push_back(std::string(op) + " #" + std::to_string(seq));
    require(t.is_contiguous(), "the group hands over contiguous tensors");
    config_.store->set(key(seq, config_.rank),
                       std::string(static_cast<const char*>(t.data_ptr()), size_t(t.nbytes())));
    watchdog_.started(seq, op, [this, seq] { return finished_ >= seq; });
    std::vector<Tensor> all;
    for (int r = 0; r < config_.size; ++r) {
      while (!config_.store->check({key(seq, r)})) {
        if (aborted_) throw Error("[fake] aborted");
        std::this_thread::sleep_for(2ms);
      }
      const std::string bytes = config_.store->get(key(seq, r));
      Tensor part = empty({t.numel()}, {.dtype = t.dtype()});
      std::memcpy(part.data_ptr(), bytes.data(), bytes.size());
      all.push_back(part);
    }
    finished_ = seq;
    return all;
  }

  DeviceCommunicatorConfig config_;
  std::atomic<int64_t> finished_{0};
  std::atomic<bool> aborted_{false};
  WatchdogThread watchdog_;
};

void register_fakes() {
  auto create = [](const DeviceCommunicatorConfig& c) {
    return std::unique_ptr<DeviceCommunicator>(std::make_unique<StoreCommunicator>(c));
  };
  register_device_backend("fake", {.device_type = kCPU, .create = create,
                                   .default_device = [](int) { return Device(kCPU); }});
  register_device_backend("fake_cuda", {.device_type = kCUDA, .create = create,
                                        .default_device = [](int) { return Device(kCUDA, 0); }});
}

// Runs body on `world` forked ranks in a default group of `backend`, through a store this
// process hosts; the harness kills and reaps every child.
std::vector<test::ChildExit> on_backend(int world, const std::string& backend,
                                        const std::function<void(int)>& body,
                                        std::chrono::milliseconds timeout = 10s,
                                        const test::Environment& environment = {}) {
  TCPStore store("127.0.0.1", 0, {.is_master = true, .timeout = 20s});
  return test::run_ranks(world, [&](int rank) {
    ::setenv("EMBER_RUN_HOSTS_STORE", "1", 1);
    for (const auto& [name, value] : environment) ::setenv(name, value, 1);
    register_fakes();
    init_process_group({.backend = backend,
                        .init_method = "tcp://127.0.0.1:" + std::to_string(store.port()),
                        .timeout = timeout, .world_size = world, .rank = rank});
    body(rank);
    destroy_process_group();
    return 0;
  });
}

std::vector<double> values(const Tensor& t) { return test::values(t); }

TEST(DeviceBackend, CollectivesReachTheCommunicatorNumberedByTheGroup) {
  const auto exits = on_backend(2, "fake", [](int rank) {
    require(ProcessGroup().backend() == "fake", "the group's backend");
    Tensor t = full({3}, rank + 1.0);
    all_reduce(t);
    require(values(t) == std::vector<double>{3, 3, 3}, "SUM");
    Tensor avg = full({2}, rank + 1.0, {.dtype = kFloat64});
    all_reduce(avg, {.op = ReduceOp::AVG});
    require(values(avg) == std::vector<double>{1.5, 1.5}, "AVG");
    Tensor mx = full({2}, rank, {.dtype = kInt64});
    Work work = all_reduce(mx, {.op = ReduceOp::MAX, .async_op = true});
    require(work.is_completed() && work.is_success(), "enqueued: the Work is complete");
    work.wait();
    require(values(mx) == std::vector<double>{1, 1}, "MAX, async");
    Tensor b = full({2, 2}, rank * 10.0);
    broadcast(b, 1);
    require(values(b) == std::vector<double>{10, 10, 10, 10}, "broadcast from 1");
    Tensor r = full({2}, rank + 1.0);
    reduce(r, 0);
    require(values(r) == (rank == 0 ? std::vector<double>{3, 3} : std::vector<double>{2, 2}),
            "reduce: only dst changes");
    Tensor gathered = empty({4});
    all_gather_into_tensor(gathered, full({2}, double(rank)));
    require(values(gathered) == std::vector<double>{0, 0, 1, 1}, "all_gather_into_tensor");
    std::vector<Tensor> parts = {empty({2}), empty({2})};
    all_gather(parts, full({2}, rank + 5.0));
    require(values(parts[0]) == std::vector<double>{5, 5} &&
                values(parts[1]) == std::vector<double>{6, 6}, "all_gather");
    Tensor out = empty({2});
    reduce_scatter_tensor(out, arange(4, {.dtype = kFloat32}));
    require(values(out) == (rank == 0 ? std::vector<double>{0, 2} : std::vector<double>{4, 6}),
            "reduce_scatter_tensor");
    Tensor out2 = empty({1});
    reduce_scatter(out2, {full({1}, 1.0), full({1}, 2.0)});
    require(values(out2) == std::vector<double>{rank == 0 ? 2.0 : 4.0}, "reduce_scatter");
    barrier();
    const std::vector<std::string> expected = {
        "all_reduce #1",     "all_reduce #2",     "all_reduce #3", "broadcast #4",
        "all_reduce #5",     "all_gather #6",     "all_gather #7", "reduce_scatter #8",
        "reduce_scatter #9", "all_reduce #10",    "synchronize"};
    require(calls() == expected, "the calls, in order, numbered by the group: got " +
                                     std::to_string(calls().size()));
    require(communicators_built == 1, "one communicator for the one device");
    // A subgroup inherits the backend and numbers its own calls; its own communicator.
    ProcessGroup sub = new_group({0, 1});
    Tensor s = ones({1});
    all_reduce(s, {.group = sub});
    require(values(s) == std::vector<double>{2} && calls().back() == "all_reduce #1" &&
                communicators_built == 2, "the subgroup's own communicator and numbers");
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(DeviceBackend, WhatTheBackendDoesNotCarryIsAClearError) {
  const auto exits = on_backend(1, "fake", [](int) {
    Tensor in = ones({2}), out = empty({2});
    const std::string message = test::message_of([&] { all_to_all_single(out, in); });
    require(message.find("[all_to_all_single] rank 0: the fake backend of ember carries "
                         "all_reduce, broadcast, reduce,") != std::string::npos &&
                message.find("all_to_all_single needs a gloo group") != std::string::npos,
            message);
    require(test::message_of([&] { send(in, 0); }).find("[send] rank 0: the fake backend") !=
                std::string::npos, "send");
    all_reduce(in);  // the group is still usable
    require(calls() == std::vector<std::string>{"all_reduce #1"}, "refusals are not numbered");
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(DeviceBackend, TensorsOnTheOtherDeviceTypeAreRefusedNamingOpAndRank) {
  const auto exits = on_backend(2, "fake_cuda", [](int rank) {
    Tensor host = ones({4});
    const std::string message = test::message_of([&] { all_reduce(host); });
    require(message == "[all_reduce] rank " + std::to_string(rank) +
                           ": the fake_cuda backend takes CUDA tensors (Tensors must be CUDA and "
                           "dense); the tensor is on cpu; move it with .to()",
            message);
    std::vector<Tensor> outs = {empty({4}), empty({4})};
    require(test::message_of([&] { all_gather(outs, host); })
                    .find("[all_gather] rank " + std::to_string(rank) +
                          ": the fake_cuda backend takes CUDA tensors") != std::string::npos,
            "all_gather's input");
    // DDP and FSDP refuse a CPU module on it, before any collective.
    const std::string ddp = test::message_of(
        [] { nn::parallel::DistributedDataParallel(test::mlp(1), {}); });
    require(ddp == "[DistributedDataParallel] a parameter is on cpu, but the process group's "
                   "backend (fake_cuda) takes CUDA tensors; move the module with "
                   "->to(\"cuda:<local rank>\") first",
            ddp);
    const std::string fsdp =
        test::message_of([] { nn::FullyShardedDataParallel(test::mlp(1), {}); });
    require(fsdp.find("parameter '0.weight' is on cpu, but the process group's backend "
                      "(fake_cuda) takes CUDA tensors; move the module") != std::string::npos,
            fsdp);
    require(communicators_built == 0, "nothing reached a communicator");
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(DeviceBackend, AHungCollectiveTimesOutThroughTheWatchdogAndBreaksTheGroup) {
  const auto exits = on_backend(
      2, "fake",
      [](int rank) {
        Tensor t = ones({2});
        all_reduce(t);
        if (rank == 1) return;  // never joins #2: rank 0's watchdog times it out
        const auto start = std::chrono::steady_clock::now();
        const std::string hung = test::message_of([&] { all_reduce(t); });
        require(hung.rfind("[all_reduce #2] rank 0: timed out after 1 s (NCCL watchdog: the "
                           "collective did not finish;", 0) == 0,
                hung);
        require(std::chrono::steady_clock::now() - start < 5s, "the watchdog ended the wait");
        const std::string after = test::message_of([&] { broadcast(t, 0); });
        require(after.rfind("[broadcast #3] rank 0: the process group is unusable after an "
                            "earlier error ([all_reduce #2] rank 0: timed out after 1 s",
                            0) == 0,
                after);
        const std::string async = test::message_of([&] { all_reduce(t, {.async_op = true}); });
        require(async.rfind("[all_reduce #4] rank 0: the process group is unusable", 0) == 0,
                "an async call after the error is refused at once, as Gloo's: " + async);
      },
      1s);
  EXPECT_EQ(test::failures(exits), "");
}

// EMBER_DISTRIBUTED_DEBUG=DETAIL compares the calls across ranks before a device call too.
TEST(DeviceBackend, TheDebugModeNamesMismatchedCallsBeforeTheCommunicator) {
  const auto exits = on_backend(
      2, "fake",
      [](int rank) {
        Tensor t = ones({2});
        const std::string message = test::message_of([&] {
          if (rank == 0) all_reduce(t);
          else broadcast(t, 0);
        });
        require(message.rfind(rank == 0 ? "[all_reduce #1] rank 0: " : "[broadcast #1] rank 1: ",
                              0) == 0,
                message);
        const char* other = rank == 0 ? "rank 1 called broadcast(" : "rank 0 called all_reduce(";
        require(message.find(other) != std::string::npos, message);
        require(calls().empty(), "nothing reached the communicator");
      },
      2s, test::kDebugMode);
  EXPECT_EQ(test::failures(exits), "");
}

// One process's SGD step on all 128 samples: what two ranks of 64 must reach.
std::vector<double> reference_after_one_step() {
  auto model = test::mlp(100);
  optim::SGD opt(model->parameters(), {.lr = 0.1});
  const test::Batch all = test::full_batch();
  nn::functional::cross_entropy(model(all.x), all.y).backward();
  opt.step();
  std::vector<double> flat;
  for (const Tensor& p : model->parameters())
    for (double v : values(p)) flat.push_back(v);
  return flat;
}

void require_near(const std::vector<double>& got, const std::vector<double>& expected,
                  const std::string& what) {
  require(got.size() == expected.size(), what + ": sizes");
  for (size_t i = 0; i < got.size(); ++i)
    require(std::abs(got[i] - expected[i]) < 1e-5, what + ": element " + std::to_string(i));
}

bool reached(const std::string& op) {
  for (const auto& call : calls())
    if (call.rfind(op + " #", 0) == 0) return true;
  return false;
}

// DDP's buckets and bookkeeping, and FSDP's gathers and reduce-scatters, go to the group's
// device communicator (the fake's device is the CPU), and train as one process would.
TEST(DeviceBackend, DdpAndFsdpTrainThroughTheDeviceCommunicator) {
  const auto exits = on_backend(2, "fake", [](int rank) {
    const auto expected = reference_after_one_step();
    const test::Batch mine = test::rows(test::full_batch(), 64 * rank, 64);
    {
      auto model = test::mlp(100 + rank);  // DDP broadcasts rank 0's
      auto ddp = nn::parallel::DistributedDataParallel(model, {});
      optim::SGD opt(ddp->parameters(), {.lr = 0.1});
      nn::functional::cross_entropy(ddp(mine.x), mine.y).backward();
      opt.step();
      std::vector<double> flat;
      for (const Tensor& p : model->parameters())
        for (double v : values(p)) flat.push_back(v);
      require_near(flat, expected, "DDP, rank " + std::to_string(rank));
      require(reached("broadcast") && reached("all_gather") && reached("all_reduce"),
              "DDP's collectives reached the communicator");
    }
    calls().clear();
    {
      auto fsdp = nn::FullyShardedDataParallel(test::mlp(100), {});
      optim::SGD opt(fsdp->parameters(), {.lr = 0.1});
      nn::functional::cross_entropy(fsdp(mine.x), mine.y).backward();
      opt.step();
      std::vector<double> flat;
      const StateDict state = fsdp->full_state_dict();
      for (const auto& [name, value] : state)
        for (double v : values(value)) flat.push_back(v);
      require_near(flat, expected, "FSDP, rank " + std::to_string(rank));
      require(reached("all_gather") && reached("reduce_scatter"),
              "FSDP's collectives reached the communicator");
    }
  });
  EXPECT_EQ(test::failures(exits), "");
}

}  // namespace
}  // namespace ember::dist
