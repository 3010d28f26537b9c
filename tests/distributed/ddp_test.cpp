// DistributedDataParallel on 2 real processes over loopback: the same parameters as one process
// on the whole batch after 20 AdamW steps (plain, with small buckets and bucket views, and with
// no_sync accumulation), GradScaler skipping an inf step on every rank, buckets launched in order
// from backward's hooks before backward ends, no_sync keeping gradients local,
// find_unused_parameters both ways, the buffer broadcast, the rank-0 broadcast and shape check
// at construction, and the "module." prefix of state dicts.
#include "ember/nn/parallel/distributed.h"

#include <gtest/gtest.h>

#include <limits>
#include <mutex>

#include "distributed/dist_test_support.h"
#include "distributed/equivalence_support.h"
#include "distributed/multiprocess.h"
#include "ember/ember.h"
#include "test_support.h"

namespace ember::nn::parallel {
namespace {

using namespace std::chrono_literals;
using test::on_ranks;
using test::require;

using test::Batch;
using test::full_batch;
using test::mlp;
using test::rows;

std::vector<double> flat_parameters(const std::vector<Tensor>& params) {
  return test::values(nn::utils::parameters_to_vector(params).detach());
}

void require_near(const std::vector<double>& got, const std::vector<double>& want, double atol,
                  const std::string& what) {
  require(got.size() == want.size(), what + ": sizes differ");
  for (size_t i = 0; i < got.size(); ++i)
    require(std::abs(got[i] - want[i]) <= atol + 1e-5 * std::abs(want[i]),
            what + ": element " + std::to_string(i) + " is " + std::to_string(got[i]) +
                ", expected " + std::to_string(want[i]));
}

struct Run {
  int64_t hidden = 24;
  int steps = 20;
  int accumulation = 1;
  // Two ranks' averaged gradients differ from one process's in the last bits (another summation
  // order), and AdamW divides each update by the gradient's own scale, so an element whose
  // gradient is near zero moves by a few 1e-5 more or less: 2.6e-5 after 5 steps of the 512-wide
  // model built with Clang (whose kernels contract other products than GCC's).
  double atol = 2e-5;
};

// One process, batch 128, AdamW: the parameters DDP must reproduce.
std::vector<double> single_process_reference(const Run& run) {
  auto model = mlp(/*seed=*/100, run.hidden);  // rank 0's initialisation
  optim::AdamW opt(model->parameters(), {.lr = 1e-2});
  const Batch data = full_batch();
  for (int step = 0; step < run.steps; ++step) {
    opt.zero_grad();
    nn::functional::cross_entropy(model(data.x), data.y).backward();
    opt.step();
  }
  return flat_parameters(model->parameters());
}

void train_ddp(int rank, const DistributedDataParallelOptions& options, const Run& run) {
  const auto expected = single_process_reference(run);
  const int accumulation = run.accumulation;
  auto model = mlp(/*seed=*/100 + rank, run.hidden);  // differs per rank: DDP must broadcast
  if (run.hidden == 512)
    require(DistributedDataParallel(model, options)->bucket_assignment().size() == 3,
            "the run should span 3 buckets");
  auto ddp = DistributedDataParallel(model, options);
  optim::AdamW opt(ddp->parameters(), {.lr = 1e-2});
  const Batch data = full_batch();
  const int64_t micro = 64 / accumulation;
  for (int step = 0; step < run.steps; ++step) {
    opt.zero_grad();
    for (int k = 0; k < accumulation; ++k) {
      const Batch b = rows(data, 64 * rank + micro * k, micro);
      auto backward = [&] {
        (nn::functional::cross_entropy(ddp(b.x), b.y) / accumulation).backward();
      };
      if (k + 1 < accumulation) {
        auto guard = ddp->no_sync();
        backward();
      } else {
        backward();
      }
    }
    opt.step();
  }
  require_near(flat_parameters(model->parameters()), expected, run.atol,
               "rank " + std::to_string(rank) + "'s parameters after " +
                   std::to_string(run.steps) + " steps");
}

TEST(DistributedDataParallel, TwoRanksOfBatch64EqualOneProcessOfBatch128After20AdamWSteps) {
  auto exits = on_ranks(2, [](int rank) { train_ddp(rank, {}, {}); });
  EXPECT_EQ(test::failures(exits), "");
}

// GradScaler with DDP: the inf check runs on the all-reduced gradients, so an inf on one rank
// reaches every rank; all skip that step and back off alike, and the clean steps equal one
// process's AdamW on the whole batch (a power-of-two scale is exact, and step unscales it).
TEST(DistributedDataParallel, GradScalerSkipsTheSameStepOnEveryRank) {
  auto exits = on_ranks(2, [](int rank) {
    const auto expected = single_process_reference({.steps = 4});
    auto model = mlp(/*seed=*/100 + rank);
    auto ddp = DistributedDataParallel(model, {});
    optim::AdamW opt(ddp->parameters(), {.lr = 1e-2});
    amp::GradScaler scaler({.init_scale = 1024.0});
    const Batch b = rows(full_batch(), 64 * rank, 64);
    for (int step = 0; step < 5; ++step) {
      opt.zero_grad();
      const bool inf = step == 2 && rank == 1;
      const Tensor x = inf ? b.x * std::numeric_limits<double>::infinity() : b.x;
      const auto before = flat_parameters(model->parameters());
      scaler.scale(nn::functional::cross_entropy(ddp(x), b.y)).backward();
      const bool stepped = scaler.step(opt);
      scaler.update();
      require(stepped == (step != 2), "rank " + std::to_string(rank) + " step " +
                                          std::to_string(step) + ": stepped = " +
                                          std::to_string(stepped));
      if (step == 2) {
        require(flat_parameters(model->parameters()) == before, "the skipped step moved nothing");
        require(scaler.get_scale() == 512.0, "the scale backs off on every rank");
      }
    }
    require_near(flat_parameters(model->parameters()), expected, 2e-5,
                 "rank " + std::to_string(rank) + "'s parameters after 4 clean steps");
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(DistributedDataParallel, SmallBucketsAndBucketViewsGiveTheSameParameters) {
  auto exits = on_ranks(2, [](int rank) {
    train_ddp(rank, {.bucket_cap_mb = 0.001, .gradient_as_bucket_view = true},
              {.hidden = 512, .steps = 5, .atol = 1e-4});
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(DistributedDataParallel, AccumulationOfTwoWithNoSyncEqualsOneProcessOfBatch128) {
  auto exits = on_ranks(2, [](int rank) { train_ddp(rank, {}, {.accumulation = 2}); });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(DistributedDataParallel, NoSyncKeepsGradientsLocalAndTheNextSyncedBackwardAveragesTheSum) {
  auto exits = on_ranks(2, [](int rank) {
    auto model = mlp(0);
    auto ddp = DistributedDataParallel(model);
    const Batch data = full_batch();
    const Batch mine = rows(data, 64 * rank, 64);
    {
      auto guard = ddp->no_sync();
      nn::functional::cross_entropy(ddp(mine.x), mine.y).backward();
    }
    // What this rank's data alone gives (no averaging happened).
    auto local = mlp(0);
    nn::functional::cross_entropy(local(mine.x), mine.y).backward();
    std::vector<Tensor> got, want;
    for (const Tensor& p : model->parameters()) got.push_back(p.grad());
    for (const Tensor& p : local->parameters()) want.push_back(p.grad());
    require_near(flat_parameters(got), flat_parameters(want), 1e-6, "grads inside no_sync");
    // A synced backward on top: the average over ranks of (both backwards' sum).
    nn::functional::cross_entropy(ddp(mine.x), mine.y).backward();
    auto whole = mlp(0);
    for (int r = 0; r < 2; ++r) {
      const Batch b = rows(data, 64 * r, 64);
      nn::functional::cross_entropy(whole(b.x), b.y).backward();
    }
    got.clear();
    want.clear();
    for (const Tensor& p : model->parameters()) got.push_back(p.grad());
    for (const Tensor& p : whole->parameters()) want.push_back(p.grad());
    require_near(flat_parameters(got), flat_parameters(want), 1e-6, "grads after the sync");
  });
  EXPECT_EQ(test::failures(exits), "");
}

// PyTorch's layout (pytorch-1.13-facts.md §3.2, measured with 4 x Linear(500, 500) ... (500, 10)
// and a 1.5 MB cap): in grad-ready order 7..0 the buckets are [7 6 5 4 3 2] (2024040 bytes) and
// [1 0] (1002000 bytes); in parameter order (1.13's find_unused layout before it reverses it),
// [0 1 2] and [3 4 5 6 7].
TEST(DistributedDataParallel, BucketAssignmentMatchesPyTorchsMeasuredLayout) {
  std::vector<Tensor> params;
  for (int64_t out : {500, 500, 500, 10}) {
    params.push_back(empty({out, 500}));
    params.push_back(empty({out}));
  }
  const std::vector<size_t> limits{1048576, static_cast<size_t>(1.5 * 1024 * 1024)};
  using Buckets = std::vector<std::vector<size_t>>;
  EXPECT_EQ(compute_bucket_assignment_by_size(params, {7, 6, 5, 4, 3, 2, 1, 0}, limits),
            (Buckets{{7, 6, 5, 4, 3, 2}, {1, 0}}));
  EXPECT_EQ(compute_bucket_assignment_by_size(params, {0, 1, 2, 3, 4, 5, 6, 7}, limits),
            (Buckets{{0, 1, 2}, {3, 4, 5, 6, 7}}));
  // Tensors of different dtypes never share a bucket.
  std::vector<Tensor> mixed{empty({4}), empty({4}, {.dtype = kFloat64}), empty({4})};
  EXPECT_EQ(compute_bucket_assignment_by_size(mixed, {0, 1, 2}, {1 << 20}),
            (Buckets{{0, 2}, {1}}));
}

// Events of one backward, in the order they happened.
struct EventLog {
  std::vector<std::string> events;
  void add(std::string e) { events.push_back(std::move(e)); }
  size_t position(const std::string& e) const {
    auto it = std::find(events.begin(), events.end(), e);
    require(it != events.end(), "no event '" + e + "' in: " + join());
    return static_cast<size_t>(it - events.begin());
  }
  std::string join() const {
    std::string s;
    for (const auto& e : events) s += e + " ";
    return s;
  }
};

TEST(DistributedDataParallel, BucketsLaunchInOrderFromBackwardsHooksBeforeBackwardEnds) {
  auto exits = on_ranks(2, [](int rank) {
    auto model = mlp(0, 512);
    // Buckets [4.bias 4.weight 2.bias 2.weight] (1 MiB first), [0.bias], [0.weight].
    auto ddp = DistributedDataParallel(model, {.bucket_cap_mb = 0.001});
    const auto buckets = ddp->bucket_assignment();
    require(buckets.size() == 3, "expected 3 buckets, got " + std::to_string(buckets.size()));
    require(buckets.front().front() == ddp->parameter_names().size() - 1,
            "bucket 0 must start with the last parameter");
    EventLog log;
    ddp->register_comm_hook([&](GradBucket& bucket) {
      log.add("launch " + std::to_string(bucket.index));
      return dist::all_reduce(bucket.buffer, {.op = dist::ReduceOp::AVG, .async_op = true});
    });
    // The first layer's weight is the last gradient backward computes.
    auto first = model->at<nn::LinearImpl>(0);
    auto hook = first->weight.register_hook([&](const Tensor&) {
      log.add("first layer grad");
      return Tensor();
    });
    const Batch b = rows(full_batch(), 64 * rank, 64);
    nn::functional::cross_entropy(ddp(b.x), b.y).backward();
    log.add("backward returned");
    for (size_t i = 0; i + 1 < buckets.size(); ++i)
      require(log.position("launch " + std::to_string(i)) <
                  log.position("launch " + std::to_string(i + 1)),
              "buckets out of order: " + log.join());
    require(log.position("launch 0") < log.position("first layer grad"),
            "bucket 0 was not launched during backward: " + log.join());
    require(log.position("launch " + std::to_string(buckets.size() - 1)) <
                log.position("backward returned"),
            "the last bucket launched after backward: " + log.join());
  });
  EXPECT_EQ(test::failures(exits), "");
}

// Registered first, used last: the reverse registration order is wrong for it, so after the
// first iteration the buckets follow the order the gradients actually came in (PyTorch's
// rebuild), and training still equals one process.
struct UsedInReverse : nn::Module {
  nn::Linear late{nullptr}, early{nullptr};
  UsedInReverse() {
    manual_seed(0);
    late = register_module("late", nn::Linear(8, 3));    // parameters 0, 1
    early = register_module("early", nn::Linear(4, 8));  // parameters 2, 3
  }
  Tensor forward(const Tensor& x) { return late(relu(early(x))); }
};

TEST(DistributedDataParallel, BucketsAreRebuiltInGradientReadyOrderAfterTheFirstIteration) {
  auto exits = on_ranks(2, [](int rank) {
    auto model = std::make_shared<UsedInReverse>();
    auto ddp = DistributedDataParallel(model);
    auto single = std::make_shared<UsedInReverse>();
    require(ddp->bucket_assignment().front().front() == 3, "starts in reverse registration order");
    manual_seed(5);
    const Tensor x = randn({8, 4}), y = randint(0, 3, {8});
    optim::SGD opt(ddp->parameters(), {.lr = 0.5}), single_opt(single->parameters(), {.lr = 0.5});
    for (int step = 0; step < 3; ++step) {
      opt.zero_grad();
      nn::functional::cross_entropy(ddp(x.narrow(0, 4 * rank, 4)), y.narrow(0, 4 * rank, 4))
          .backward();
      opt.step();
      single_opt.zero_grad();
      nn::functional::cross_entropy(single->forward(x), y).backward();
      single_opt.step();
      if (step == 1) {
        const auto first = ddp->bucket_assignment().front();
        require(first.front() == 0 || first.front() == 1,
                "bucket 0 must start with late's parameters after the rebuild, got parameter " +
                    std::to_string(first.front()));
      }
    }
    require_near(flat_parameters(model->parameters()), flat_parameters(single->parameters()),
                 1e-6, "parameters after 3 steps across the rebuild");
  });
  EXPECT_EQ(test::failures(exits), "");
}

// a and c are used, b is not (pytorch-1.13-probes/ddp1.py's model).
struct Branches : nn::Module {
  nn::Linear a{nullptr}, b{nullptr}, c{nullptr};
  bool use_b = false;
  Branches() {
    manual_seed(0);
    a = register_module("a", nn::Linear(4, 4));
    b = register_module("b", nn::Linear(4, 4));
    c = register_module("c", nn::Linear(4, 2));
  }
  Tensor forward(const Tensor& x) {
    Tensor h = a(x);
    if (use_b) h = h + b(x);
    return c(h);
  }
};

TEST(DistributedDataParallel, AnUnusedParameterWithoutFindUnusedIsPyTorchsErrorNamingIt) {
  auto exits = on_ranks(2, [](int) {
    auto model = std::make_shared<Branches>();
    auto ddp = DistributedDataParallel(model);
    const Tensor x = ones({3, 4});
    try {
      ddp(x).sum().backward();
    } catch (const Error& e) {
      const std::string m = e.what();
      require(m.find("find_unused_parameters") != std::string::npos, m);
      require(m.find("did not receive grad for rank") != std::string::npos, m);
      require(m.find("b.weight") != std::string::npos && m.find("b.bias") != std::string::npos, m);
      require(m.find("a.weight") == std::string::npos, "a is used: " + m);
      return;
    }
    require(false, "no error for the unused parameter");
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(DistributedDataParallel, FindUnusedParametersAveragesWhatAnyRankUsedAndLeavesTheRest) {
  auto exits = on_ranks(2, [](int rank) {
    auto model = std::make_shared<Branches>();
    auto ddp = DistributedDataParallel(model, {.find_unused_parameters = true});
    const Tensor x = full((std::vector<int64_t>{3, 4}), rank + 1.0);
    ddp(x).sum().backward();  // b unused on both ranks
    require(!model->b->weight.grad().defined(), "b unused everywhere keeps no grad");
    require(model->a->weight.grad().defined(), "a has a grad");
    // Rank 0 alone uses b: both ranks get half of rank 0's gradient for it.
    model->zero_grad();
    model->use_b = rank == 0;
    ddp(x).sum().backward();
    auto reference = std::make_shared<Branches>();
    reference->use_b = true;
    reference->forward(full((std::vector<int64_t>{3, 4}), 1.0)).sum().backward();
    require(model->b->weight.grad().defined(), "b was used by rank 0");
    require_near(test::values(model->b->weight.grad()),
                 test::values(reference->b->weight.grad() / 2.0), 1e-6, "b's averaged grad");
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(DistributedDataParallel, FindUnusedParametersWithNothingUnusedWarnsOnceOnRank0) {
  auto exits = on_ranks(2, [](int) {
    auto model = std::make_shared<Branches>();
    model->use_b = true;
    auto ddp = DistributedDataParallel(model, {.find_unused_parameters = true});
    for (int i = 0; i < 2; ++i) ddp(ones({3, 4})).sum().backward();
  });
  ASSERT_EQ(test::failures(exits), "");
  const std::string warning = "did not find any unused parameters in the forward pass";
  const std::string& out0 = exits[0].output;
  EXPECT_NE(out0.find(warning), std::string::npos) << out0;
  EXPECT_EQ(out0.find(warning, out0.find(warning) + 1), std::string::npos) << "twice: " << out0;
  EXPECT_EQ(exits[1].output.find(warning), std::string::npos) << exits[1].output;
}

struct WithBatchNorm : nn::Module {
  nn::Linear fc{nullptr};
  nn::BatchNorm1d bn{nullptr};
  WithBatchNorm() {
    manual_seed(0);
    fc = register_module("fc", nn::Linear(4, 3));
    bn = register_module("bn", nn::BatchNorm1d(3));
  }
  Tensor forward(const Tensor& x) { return bn(fc(x)); }
};

void buffers_after_second_forward(int rank, bool broadcast) {
  auto model = std::make_shared<WithBatchNorm>();
  auto ddp = DistributedDataParallel(model, {.broadcast_buffers = broadcast});
  manual_seed(7 + rank);
  ddp(randn({8, 4})).sum().backward();  // each rank's running stats move its own way
  Tensor mine = model->bn->running_mean.clone();
  std::vector<Tensor> all{empty({3}), empty({3})};
  dist::all_gather(all, mine);
  model->eval();  // the second forward must not move the statistics itself
  ddp(randn({8, 4}));
  const auto now = test::values(model->bn->running_mean);
  if (broadcast)
    require_near(now, test::values(all[0]), 0, "rank 0's running_mean after the broadcast");
  else
    require_near(now, test::values(mine), 0, "own running_mean without broadcast_buffers");
  require(test::values(all[0]) != test::values(all[1]), "the ranks' statistics should differ");
}

TEST(DistributedDataParallel, ForwardBroadcastsRank0sBuffersUnlessBroadcastBuffersIsOff) {
  EXPECT_EQ(test::failures(on_ranks(2, [](int rank) { buffers_after_second_forward(rank, true); })),
            "");
  EXPECT_EQ(
      test::failures(on_ranks(2, [](int rank) { buffers_after_second_forward(rank, false); })),
      "");
}

TEST(DistributedDataParallel, ConstructionGivesEveryRankRank0sParametersAndBuffers) {
  auto exits = on_ranks(2, [](int rank) {
    auto model = std::make_shared<WithBatchNorm>();
    {
      NoGradGuard no_grad;
      model->fc->weight.fill_(rank + 1.0);
      model->bn->running_var.fill_(rank + 5.0);
    }
    auto ddp = DistributedDataParallel(model);
    require_near(test::values(model->fc->weight), std::vector<double>(12, 1.0), 0, "fc.weight");
    require_near(test::values(model->bn->running_var), std::vector<double>(3, 5.0), 0,
                 "bn.running_var");
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(DistributedDataParallel, DifferentModelsAreAnErrorNamingTheParameterAndBothShapes) {
  auto exits = on_ranks(2, [](int rank) {
    manual_seed(0);
    auto model = nn::Sequential(nn::Linear(4, 8), nn::Linear(8, rank == 0 ? 2 : 3));
    try {
      auto ddp = DistributedDataParallel(model);
    } catch (const Error& e) {
      const std::string m = e.what();
      require(m.find("rank 1's parameter 2 ('1.weight') has shape [3, 8] while rank 0's has "
                     "shape [2, 8]") != std::string::npos,
              m);
      return;
    }
    require(false, "no error for different models");
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(DistributedDataParallel, StateDictHasTheModulePrefixAndLoadingItBareSaysHowToFixIt) {
  auto exits = on_ranks(1, [](int) {
    auto model = mlp(0);
    auto ddp = DistributedDataParallel(model);
    StateDict prefixed = ddp->state_dict();
    require(prefixed.keys().front() == "module.0.weight", "ddp key " + prefixed.keys().front());
    require(ddp->module()->state_dict().keys().front() == "0.weight", "module()'s keys");
    auto bare = mlp(1);
    try {
      bare->load_state_dict(prefixed);
      require(false, "loading a prefixed dict into a bare model succeeded");
    } catch (const Error& e) {
      const std::string m = e.what();
      require(m.find("\"module.\"") != std::string::npos, m);
      require(m.find("ddp->module()->state_dict()") != std::string::npos, m);
      require(m.find("consume_prefix_in_state_dict_if_present") != std::string::npos, m);
    }
    nn::utils::consume_prefix_in_state_dict_if_present(prefixed, "module.");
    require(prefixed.keys() == model->state_dict().keys(), "keys after consume_prefix");
    bare->load_state_dict(prefixed);
    require_near(flat_parameters(bare->parameters()), flat_parameters(model->parameters()), 0,
                 "loaded parameters");
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(DistributedDataParallel, AParameterUsedOutsideForwardIsTheMarkedTwiceErrorNamingIt) {
  auto exits = on_ranks(1, [](int) {
    auto model = std::make_shared<Branches>();
    auto ddp = DistributedDataParallel(model, {.find_unused_parameters = true});
    // b is unused by forward (marked ready there), then gets a gradient after all.
    Tensor loss = ddp(ones({2, 4})).sum() + model->b->weight.sum();
    try {
      loss.backward();
    } catch (const Error& e) {
      const std::string m = e.what();
      require(m.find("mark a variable ready only once") != std::string::npos, m);
      require(m.find("'b.weight'") != std::string::npos, m);
      return;
    }
    require(false, "no error for the parameter used outside forward");
  });
  EXPECT_EQ(test::failures(exits), "");
}

}  // namespace
}  // namespace ember::nn::parallel
