// FullyShardedDataParallel on 2 real processes over loopback: FULL_SHARD, SHARD_GRAD_OP and
// NO_SHARD give the same parameters as one process on the whole batch after 20 AdamW steps
// (nested units and the root alone), which modules the wrap policies make units and how each is
// padded and sharded, the per-rank memory of parameters + gradients + AdamW state, and the full
// state dict (the unwrapped keys, rank0_only, a load round trip, a shape mismatch refused).
#include "ember/nn/parallel/fully_sharded.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "distributed/dist_test_support.h"
#include "distributed/equivalence_support.h"
#include "distributed/multiprocess.h"
#include "serialize/checkpoint_helpers.h"
#include "ember/allocator.h"
#include "ember/ember.h"
#include "test_support.h"

namespace ember::nn {
namespace {

using namespace std::chrono_literals;
using test::on_ranks;
using test::require;

using test::Batch;
using test::full_batch;
using test::mlp;
using test::rows;

constexpr int kSteps = 20;

StateDict single_process_reference(int steps = kSteps) {
  auto model = mlp(/*seed=*/100);
  optim::AdamW opt(model->parameters(), {.lr = 1e-2});
  const Batch data = full_batch();
  for (int step = 0; step < steps; ++step) {
    opt.zero_grad();
    nn::functional::cross_entropy(model(data.x), data.y).backward();
    opt.step();
  }
  return model->state_dict();
}

void require_state_near(const StateDict& got, const StateDict& want, const std::string& what) {
  require(got.keys() == want.keys(), what + ": the keys differ from the unwrapped model's");
  for (const auto& [key, w] : want) {
    const Tensor& g = got.at(key);
    require(g.sizes() == w.sizes(), what + ": " + key + " has another shape");
    const auto gv = test::values(g), wv = test::values(w);
    for (size_t i = 0; i < wv.size(); ++i)
      require(std::abs(gv[i] - wv[i]) <= 2e-5 + 1e-5 * std::abs(wv[i]),
              what + ": " + key + "[" + std::to_string(i) + "] is " + std::to_string(gv[i]) +
                  ", expected " + std::to_string(wv[i]));
  }
}

template <class F>
void train_wrapped(int rank, F fsdp) {
  const StateDict expected = single_process_reference();
  optim::AdamW opt(fsdp->parameters(), {.lr = 1e-2});
  const Batch mine = rows(full_batch(), 64 * rank, 64);
  for (int step = 0; step < kSteps; ++step) {
    opt.zero_grad();
    nn::functional::cross_entropy(fsdp(mine.x), mine.y).backward();
    opt.step();
  }
  require_state_near(fsdp->full_state_dict(), expected,
                     std::string("rank ") + std::to_string(rank) + " " +
                         sharding_strategy_name(fsdp->sharding_strategy()));
}

void train_fsdp(int rank, FullyShardedDataParallelOptions options) {
  train_wrapped(rank, FullyShardedDataParallel(mlp(/*seed=*/100), std::move(options)));
}

TEST(FullyShardedDataParallel, FullShardWithNestedUnitsEqualsOneProcessAfter20AdamWSteps) {
  auto exits = on_ranks(2, [](int rank) {
    train_fsdp(rank, {.sharding_strategy = ShardingStrategy::FULL_SHARD,
                      .auto_wrap = transformer_auto_wrap_policy<LinearImpl>()});
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(FullyShardedDataParallel, ShardGradOpWithOneNestedUnitEqualsOneProcessAfter20AdamWSteps) {
  // 600 >= 500: only the middle Linear becomes a unit; the root keeps the other two.
  auto exits = on_ranks(2, [](int rank) {
    train_fsdp(rank, {.sharding_strategy = ShardingStrategy::SHARD_GRAD_OP,
                      .auto_wrap = size_based_auto_wrap_policy(500)});
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(FullyShardedDataParallel, FullShardRootOnlyAndNoShardEqualOneProcessAfter20AdamWSteps) {
  auto exits = on_ranks(2, [](int rank) {
    train_fsdp(rank, {.sharding_strategy = ShardingStrategy::FULL_SHARD});
    train_fsdp(rank, {.sharding_strategy = ShardingStrategy::NO_SHARD,
                      .auto_wrap = transformer_auto_wrap_policy<LinearImpl>()});
  });
  EXPECT_EQ(test::failures(exits), "");
}

// Prefetching (forward_prefetch, BACKWARD_PRE) on the 3 Linear units of the MLP. The first
// forward records the order of units (every all-gather on demand); from then on, forward
// issues each next unit's all-gather before the current unit computes, backward the all-gather
// of the unit it needs next before the current unit's gradients are computed, so that only the
// first unit of each pass waits for a gather of its own; every reduce-scatter but the last is
// issued while a unit's gradients remain to be computed. The parameters after 20 steps still
// equal one process's, and so do BACKWARD_POST's (which prefetches once a unit's gradients are
// reduced) and SHARD_GRAD_OP's with both.
TEST(FullyShardedDataParallel, PrefetchIssuesTheNextUnitsAllGatherBeforeTheCurrentUnitComputes) {
  auto exits = on_ranks(2, [](int rank) {
    const StateDict expected = single_process_reference();
    auto run = [&](FullyShardedDataParallelOptions options) {
      options.auto_wrap = transformer_auto_wrap_policy<LinearImpl>();
      auto fsdp = FullyShardedDataParallel(mlp(/*seed=*/100), options);
      std::vector<std::vector<std::string>> steps;  // the events of each step, "prefetch 2"
      fsdp->set_observer([&](FsdpEvent event, const std::string& unit) {
        steps.back().push_back(std::string(fsdp_event_name(event)) + " " + unit);
      });
      optim::AdamW opt(fsdp->parameters(), {.lr = 1e-2});
      const Batch mine = rows(full_batch(), 64 * rank, 64);
      for (int step = 0; step < kSteps; ++step) {
        steps.emplace_back();
        opt.zero_grad();
        nn::functional::cross_entropy(fsdp(mine.x), mine.y).backward();
        opt.step();
      }
      require_state_near(fsdp->full_state_dict(), expected,
                         std::string(sharding_strategy_name(options.sharding_strategy)) +
                             " with prefetch");
      return steps;
    };
    auto text = [](const std::vector<std::string>& events) {
      std::string s;
      for (const std::string& e : events) s += (s.empty() ? "" : ", ") + e;
      return s;
    };
    // Where `event` happened in `events` (events.size() if it did not), and how often.
    auto at = [](const std::vector<std::string>& events, const std::string& event) {
      return size_t(std::find(events.begin(), events.end(), event) - events.begin());
    };
    auto count = [](const std::vector<std::string>& events, const std::string& prefix) {
      return std::count_if(events.begin(), events.end(),
                           [&](const std::string& e) { return e.rfind(prefix, 0) == 0; });
    };
    auto before = [&](const std::vector<std::string>& events, const std::string& first,
                      const std::string& second) {
      require(at(events, first) < at(events, second),
              "'" + first + "' before '" + second + "' in: " + text(events));
    };

    const auto pre = run({.sharding_strategy = ShardingStrategy::FULL_SHARD,
                          .backward_prefetch = BackwardPrefetch::BACKWARD_PRE,
                          .forward_prefetch = true});
    const std::vector<std::string> first_forward(pre[0].begin(),
                                                 pre[0].begin() + at(pre[0], "forward 4") + 1);
    require(count(first_forward, "prefetch") == 0 && count(first_forward, "all_gather") == 3,
            "the first forward gathers every unit on demand (it records their order): " +
                text(pre[0]));
    for (size_t step = 1; step < pre.size(); ++step) {
      const auto& e = pre[step];
      require(count(e, "all_gather") == 2 && at(e, "all_gather 0") < at(e, "forward 0") &&
                  at(e, "all_gather 4") > at(e, "forward 4"),
              "only the first unit of forward (0) and of backward (4) gather on demand: " +
                  text(e));
      before(e, "prefetch 2", "forward 0");     // forward: the next unit's gather overlaps
      before(e, "prefetch 4", "forward 2");     // the current unit's computation
      before(e, "forward 4", "pre_backward 4");
      before(e, "pre_backward 4", "pre_backward 2");
      const auto backward = std::vector<std::string>(e.begin() + at(e, "forward 4"), e.end());
      before(backward, "prefetch 2", "pre_backward 4");  // backward: the same, reversed
      before(backward, "prefetch 0", "pre_backward 2");
      before(e, "reduce_scatter 4", "pre_backward 0");  // reductions overlap the backward
      before(e, "reduce_scatter 2", "pre_backward 0");
      require(count(e, "reduce_scatter") == 3, "3 reduce-scatters: " + text(e));
    }
    const auto post = run({.sharding_strategy = ShardingStrategy::FULL_SHARD,
                           .backward_prefetch = BackwardPrefetch::BACKWARD_POST});
    const auto& e = post.back();
    require(count(e, "all_gather") == 4 && count(e, "prefetch") == 2, "BACKWARD_POST, no "
            "forward prefetch: 3 gathers in forward, 1 on demand and 2 prefetched in backward: " +
            text(e));
    before(e, "reduce_scatter 4", "prefetch 2");
    before(e, "prefetch 2", "pre_backward 2");
    const auto grad_op = run({.sharding_strategy = ShardingStrategy::SHARD_GRAD_OP,
                              .backward_prefetch = BackwardPrefetch::BACKWARD_PRE,
                              .forward_prefetch = true});
    require(count(grad_op.back(), "all_gather") == 1 && count(grad_op.back(), "prefetch") == 2,
            "SHARD_GRAD_OP gathers once per step, in forward: " + text(grad_op.back()));
  });
  EXPECT_EQ(test::failures(exits), "");
}

// Gradient accumulation under no_sync: each step's first half-batch backward runs inside
// no_sync (no reduce-scatter, the gradients summed unsharded), the second reduces both; with the
// loss halved, 20 such steps equal 20 steps of one process on the whole batch, for FULL_SHARD
// with nested units and for manual nesting (the guard reaches the nested instances).
TEST(FullyShardedDataParallel, NoSyncAccumulatesUnshardedAndTheNextStepReducesBoth) {
  auto exits = on_ranks(2, [](int rank) {
    const StateDict expected = single_process_reference();
    auto accumulate = [&](auto fsdp, int inner_units, const std::string& what) {
      int reductions_in_no_sync = 0, reductions = 0;
      bool inside = false;
      fsdp->set_observer([&](FsdpEvent event, const std::string&) {
        if (event == FsdpEvent::kReduceScatter) ++(inside ? reductions_in_no_sync : reductions);
      });
      optim::AdamW opt(fsdp->parameters(), {.lr = 1e-2});
      const Batch mine = rows(full_batch(), 64 * rank, 64);
      const Batch first = rows(mine, 0, 32), second = rows(mine, 32, 32);
      for (int step = 0; step < kSteps; ++step) {
        opt.zero_grad();
        {
          auto guard = fsdp->no_sync();
          inside = true;
          (nn::functional::cross_entropy(fsdp(first.x), first.y) * 0.5).backward();
          inside = false;
        }
        for (const Tensor& shard : fsdp->parameters())
          require(!shard.grad().defined(), what + ": no shard has a gradient after no_sync");
        (nn::functional::cross_entropy(fsdp(second.x), second.y) * 0.5).backward();
        opt.step();
      }
      require(reductions_in_no_sync == 0 && reductions == inner_units * kSteps,
              what + ": " + std::to_string(reductions_in_no_sync) + " reductions under no_sync, " +
                  std::to_string(reductions) + " after it");
      require_state_near(fsdp->full_state_dict(), expected, what);
    };
    accumulate(FullyShardedDataParallel(
                   mlp(/*seed=*/100), {.auto_wrap = transformer_auto_wrap_policy<LinearImpl>()}),
               3, "FULL_SHARD, nested units");
    // The outer instance's observer sees its root unit (the middle Linear) only; that the
    // nested shards have no gradient after no_sync shows the guard reached them.
    auto base = mlp(/*seed=*/100);
    auto layer = [&](int64_t i) { return nn::Linear(std::dynamic_pointer_cast<LinearImpl>(base[i])); };
    auto model = nn::Sequential(FullyShardedDataParallel(layer(0)), nn::ReLU(), layer(2),
                                nn::ReLU(), FullyShardedDataParallel(layer(4)));
    accumulate(FullyShardedDataParallel(model, {.sharding_strategy = ShardingStrategy::SHARD_GRAD_OP}),
               1, "SHARD_GRAD_OP around manually nested instances");
  });
  EXPECT_EQ(test::failures(exits), "");
}

// When parameters are gathered and freed: FULL_SHARD frees a nested unit right after its forward
// (the root stays gathered until backward ends), SHARD_GRAD_OP keeps every unit until its
// gradients are reduced; afterwards only the shards hold data and gradients.
// Manual nesting: the user wraps the first and last Linear in FSDP themselves, the outer FSDP
// shards the rest; the full state dict still has the unwrapped keys.
TEST(FullyShardedDataParallel, ManuallyNestedInstancesEqualOneProcessAfter20AdamWSteps) {
  auto exits = on_ranks(2, [](int rank) {
    auto base = mlp(/*seed=*/100);  // the reference's initial values
    auto layer = [&](int64_t i) { return nn::Linear(std::dynamic_pointer_cast<LinearImpl>(base[i])); };
    auto l0 = layer(0), l2 = layer(2), l4 = layer(4);
    auto inner0 = FullyShardedDataParallel(l0);
    auto inner4 = FullyShardedDataParallel(l4, {.sharding_strategy = ShardingStrategy::SHARD_GRAD_OP});
    auto model = nn::Sequential(inner0, nn::ReLU(), l2, nn::ReLU(), inner4);
    auto outer = FullyShardedDataParallel(model);
    std::string units;
    for (const auto& u : outer->units()) units += "(" + u.module_path + ")";
    require(units == "()(0)(4)", "units: the root, then the nested instances': " + units);
    require(outer->parameters().size() == 3, "the outer FSDP reaches the nested shards");
    for (const auto& [name, l] : {std::pair{"0", l0}, {"4", l4}})
      require(l->weight.numel() == 0, std::string("nested ") + name + " is sharded");
    train_wrapped(rank, outer);
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(FullyShardedDataParallel, FullShardFreesNestedUnitsAfterForwardAndShardGradOpKeepsThem) {
  auto exits = on_ranks(2, [](int rank) {
    for (ShardingStrategy strategy :
         {ShardingStrategy::FULL_SHARD, ShardingStrategy::SHARD_GRAD_OP}) {
      const std::string what = sharding_strategy_name(strategy);
      auto model = mlp(0);
      auto fsdp = FullyShardedDataParallel(model, {.sharding_strategy = strategy,
                                                   .auto_wrap = size_based_auto_wrap_policy(500)});
      auto numel_of = [&](const std::string& name) {
        for (const auto& [n, p] : model->named_parameters())
          if (n == name) return p.numel();
        return int64_t(-1);
      };
      require(numel_of("2.weight") == 0 && numel_of("0.weight") == 0,
              what + ": parameters hold no data outside forward");
      const Batch mine = rows(full_batch(), 64 * rank, 64);
      Tensor loss = nn::functional::cross_entropy(fsdp(mine.x), mine.y);
      const bool nested_kept = numel_of("2.weight") == 24 * 24;
      require(nested_kept == (strategy == ShardingStrategy::SHARD_GRAD_OP),
              what + ": the nested unit after forward holds " +
                  std::to_string(numel_of("2.weight")) + " elements");
      require(numel_of("0.weight") == 12 * 24, what + ": the root stays gathered after forward");
      loss.backward();
      require(numel_of("2.weight") == 0 && numel_of("0.weight") == 0,
              what + ": every unit is freed after backward");
      for (const auto& [n, p] : model->named_parameters())
        require(!p.grad().defined(), what + ": " + n + " keeps no full gradient");
      for (const Tensor& shard : fsdp->parameters())
        require(shard.grad().defined() && shard.grad().sizes() == shard.sizes(),
                what + ": every shard has its gradient");
    }
  });
  EXPECT_EQ(test::failures(exits), "");
}

// clip_grad_norm_ over shards is the whole model's norm: with SGD (which, unlike Adam, feels the
// scale) 5 clipped steps on 2 ranks equal 5 steps of nn::utils::clip_grad_norm_ in one process,
// for the 2-norm and the max norm, with sharded units and with NO_SHARD.
TEST(FullyShardedDataParallel, ClipGradNormAcrossShardsEqualsTheUnshardedNorm) {
  auto exits = on_ranks(2, [](int rank) {
    const Batch data = full_batch();
    const Batch mine = rows(data, 64 * rank, 64);
    for (double norm_type : {2.0, double(INFINITY)})
      for (ShardingStrategy strategy :
           {ShardingStrategy::FULL_SHARD, ShardingStrategy::NO_SHARD}) {
        const double max_norm = std::isinf(norm_type) ? 0.005 : 0.05;
        const std::string what = std::string(sharding_strategy_name(strategy)) + " norm " +
                                 std::to_string(norm_type);
        auto reference = mlp(100);
        optim::SGD ref_opt(reference->parameters(), {.lr = 0.5});
        auto fsdp = FullyShardedDataParallel(
            mlp(100), {.sharding_strategy = strategy,
                       .auto_wrap = size_based_auto_wrap_policy(500)});
        optim::SGD opt(fsdp->parameters(), {.lr = 0.5});
        for (int step = 0; step < 5; ++step) {
          ref_opt.zero_grad();
          nn::functional::cross_entropy(reference(data.x), data.y).backward();
          const double want = nn::utils::clip_grad_norm_(reference->parameters(), max_norm,
                                                         {.norm_type = norm_type});
          ref_opt.step();
          opt.zero_grad();
          nn::functional::cross_entropy(fsdp(mine.x), mine.y).backward();
          const double got = fsdp->clip_grad_norm_(max_norm, {.norm_type = norm_type});
          require(std::abs(got - want) <= 1e-5 * want,
                  what + ": step " + std::to_string(step) + " norm " + std::to_string(got) +
                      ", expected " + std::to_string(want));
          require(want > max_norm, what + ": the reference clips");
          opt.step();
        }
        require_state_near(fsdp->full_state_dict(), reference->state_dict(), what);
      }
  });
  EXPECT_EQ(test::failures(exits), "");
}

nn::Sequential bn_mlp(uint64_t seed) {
  manual_seed(seed);
  return nn::Sequential(nn::Linear(12, 24), nn::BatchNorm1d(24), nn::ReLU(), nn::Linear(24, 5));
}

// MixedPrecision{bf16, f32, bf16}: the gathered parameters, the inputs and the outputs are
// bfloat16, the shards and their gradients float32 (the optimizer's precision), the reduction
// float32, BatchNorm's running statistics bfloat16 after the first forward and float32 again in
// the state dict; 20 AdamW steps land within bfloat16 error of the float32 single process.
TEST(FullyShardedDataParallel, MixedPrecisionComputesInBfloat16AndKeepsFloat32Shards) {
  auto exits = on_ranks(2, [](int rank) {
    const Batch data = full_batch();
    auto reference = bn_mlp(100);
    reference->eval();  // BatchNorm on running statistics: data parallelism is exact
    optim::AdamW ref_opt(reference->parameters(), {.lr = 1e-2});
    for (int step = 0; step < kSteps; ++step) {
      ref_opt.zero_grad();
      nn::functional::cross_entropy(reference(data.x), data.y).backward();
      ref_opt.step();
    }
    auto model = bn_mlp(100);
    auto fsdp = FullyShardedDataParallel(
        model, {.auto_wrap = transformer_auto_wrap_policy<LinearImpl>(),
                .mixed_precision = {.param_dtype = kBFloat16, .reduce_dtype = kFloat32,
                                    .buffer_dtype = kBFloat16}});
    fsdp->eval();
    std::vector<std::string> seen;
    auto hook = model[0]->register_forward_pre_hook([&](Module& m, const std::vector<Tensor>& in) {
      seen.push_back(std::string(dtype_name(m.named_parameters()[0].second.dtype())) + "/" +
                     dtype_name(in[0].dtype()));
    });
    for (const auto& u : fsdp->units())
      require(u.compute_dtype == kBFloat16 && u.reduce_dtype == kFloat32,
              "unit '" + u.module_path + "' computes in bf16 and reduces in f32");
    optim::AdamW opt(fsdp->parameters(), {.lr = 1e-2});
    const Batch mine = rows(data, 64 * rank, 64);
    for (int step = 0; step < kSteps; ++step) {
      opt.zero_grad();
      Tensor out = fsdp(mine.x);
      require(out.dtype() == kBFloat16, "the output is bfloat16");
      nn::functional::cross_entropy(out.to(kFloat32), mine.y).backward();
      for (const Tensor& shard : fsdp->parameters())
        require(shard.dtype() == kFloat32 && shard.grad().dtype() == kFloat32,
                "the shards and their gradients stay float32");
      opt.step();
    }
    hook.remove();
    require(seen.size() == size_t(kSteps) && seen[0] == "bfloat16/bfloat16",
            "Linear 0's weight and input in forward: " + (seen.empty() ? "" : seen[0]));
    require(model->named_buffers()[0].second.dtype() == kBFloat16,
            "the running statistics are bfloat16 after forward");
    const StateDict got = fsdp->full_state_dict();
    const StateDict initial = bn_mlp(100)->state_dict();
    require(got.keys() == reference->state_dict().keys(), "the unwrapped keys");
    // Adam turns bf16 noise in tiny gradients into whole steps, so single elements may differ
    // by a few lr; on the whole the bf16 run must stay far closer to float32 than both moved.
    double deviation = 0, moved = 0;
    for (const auto& [key, want] : reference->state_dict()) {
      if (key.find("num_batches") != std::string::npos) continue;
      require(got.at(key).dtype() == want.dtype(), key + " is in its own dtype in the state dict");
      const auto g = test::values(got.at(key)), w = test::values(want),
                 w0 = test::values(initial.at(key));
      for (size_t i = 0; i < w.size(); ++i) {
        require(std::abs(g[i] - w[i]) <= 5e-2, key + "[" + std::to_string(i) + "] is " +
                                                   std::to_string(g[i]) + ", float32 gives " +
                                                   std::to_string(w[i]));
        deviation += std::abs(g[i] - w[i]);
        moved += std::abs(w[i] - w0[i]);
      }
    }
    require(deviation <= 0.1 * moved, "bf16 deviates " + std::to_string(deviation) +
                                          " in total from float32, which moved " +
                                          std::to_string(moved));
  });
  EXPECT_EQ(test::failures(exits), "");
}

// Activation checkpointing on every Linear inside FULL_SHARD units: the recompute in backward
// runs after the unit was freed, so it needs the pre-backward all-gather on the unit's output,
// and it is no forward to FSDP (with prefetch on, it fetches nothing ahead).
TEST(FullyShardedDataParallel, FullShardWithActivationCheckpointingEqualsOneProcess) {
  auto exits = on_ranks(2, [](int rank) {
    auto model = mlp(/*seed=*/100);
    const auto wrapped = ember::utils::apply_activation_checkpointing(*model, [](const Module& m) {
      return dynamic_cast<const LinearImpl*>(&m) != nullptr;
    });
    require(wrapped.size() == 3, "3 Linear layers checkpointed");
    auto fsdp = FullyShardedDataParallel(
        model, {.auto_wrap = transformer_auto_wrap_policy<LinearImpl>(),
                .backward_prefetch = BackwardPrefetch::BACKWARD_PRE,
                .forward_prefetch = true});
    int gathers = 0, forwards = 0;
    fsdp->set_observer([&](FsdpEvent event, const std::string&) {
      gathers += event == FsdpEvent::kAllGather || event == FsdpEvent::kPrefetch;
      forwards += event == FsdpEvent::kForward;
    });
    train_wrapped(rank, fsdp);
    // Each unit gathered once in forward and once in backward, its recompute running on the
    // backward's gather: no forward to FSDP (no prefetch, no reshard, no event of its own).
    require(gathers == 6 * kSteps && forwards == 3 * kSteps,
            std::to_string(gathers) + " all-gathers and " + std::to_string(forwards) +
                " unit forwards in " + std::to_string(kSteps) + " steps");

    // Checkpointing around units (blocks of Linear + ReLU, the Linear a unit): the recompute
    // runs the units' forward hooks inside backward, which FSDP takes as their pre-backward
    // (gathered once, kept for the backward, the next one prefetched).
    auto blocks = [] {
      manual_seed(100);
      nn::Sequential model;
      model->push_back(nn::Sequential(nn::Linear(12, 24), nn::ReLU()));
      model->push_back(nn::Sequential(nn::Linear(24, 24), nn::ReLU()));
      model->push_back(nn::Linear(24, 5));
      return model;
    };
    const Batch data = full_batch();
    auto reference = blocks();
    optim::AdamW ref_opt(reference->parameters(), {.lr = 1e-2});
    for (int step = 0; step < kSteps; ++step) {
      ref_opt.zero_grad();
      nn::functional::cross_entropy(reference(data.x), data.y).backward();
      ref_opt.step();
    }
    auto checkpointed = blocks();
    ember::utils::apply_activation_checkpointing(*checkpointed, [](const Module& m) {
      return dynamic_cast<const SequentialImpl*>(&m) != nullptr;
    });
    auto around = FullyShardedDataParallel(
        checkpointed, {.auto_wrap = transformer_auto_wrap_policy<LinearImpl>(),
                       .backward_prefetch = BackwardPrefetch::BACKWARD_PRE});
    std::map<std::string, int> events;
    around->set_observer([&](FsdpEvent event, const std::string&) { ++events[fsdp_event_name(event)]; });
    optim::AdamW opt(around->parameters(), {.lr = 1e-2});
    const Batch mine = rows(data, 64 * rank, 64);
    for (int step = 0; step < kSteps; ++step) {
      opt.zero_grad();
      nn::functional::cross_entropy(around(mine.x), mine.y).backward();
      opt.step();
    }
    require(events["all_gather"] + events["prefetch"] == 6 * kSteps &&
                events["forward"] == 3 * kSteps && events["pre_backward"] == 3 * kSteps &&
                events["prefetch"] >= 2 * (kSteps - 1),
            "around units: " + std::to_string(events["all_gather"]) + " all-gathers, " +
                std::to_string(events["prefetch"]) + " prefetches, " +
                std::to_string(events["forward"]) + " forwards, " +
                std::to_string(events["pre_backward"]) + " pre-backwards");
    require_state_near(around->full_state_dict(), reference->state_dict(),
                       "checkpointed blocks around units");
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(FullyShardedDataParallel, WrapPoliciesPickTheUnitsAndEachIsPaddedToTheWorldSize) {
  auto exits = on_ranks(2, [](int) {
    auto describe = [](const std::vector<FsdpUnitInfo>& units) {
      std::string s;
      for (const auto& u : units) {
        s += "(" + u.module_path + ":";
        for (const auto& n : u.parameter_names) s += " " + n;
        s += " " + std::to_string(u.numel) + "/" + std::to_string(u.padded_numel) + "/" +
             std::to_string(u.shard_numel) + ")";
      }
      return s;
    };
    auto by_type = FullyShardedDataParallel(
        mlp(0), {.auto_wrap = transformer_auto_wrap_policy<LinearImpl>()});
    const std::string typed = describe(by_type->units());
    require(typed == "(0: 0.weight 0.bias 312/312/156)(2: 2.weight 2.bias 600/600/300)"
                     "(4: 4.weight 4.bias 125/126/63)",
            "transformer_auto_wrap_policy<Linear> units: " + typed);
    require(by_type->parameters().size() == 3, "3 flat parameters");
    auto by_size = FullyShardedDataParallel(mlp(0), {.auto_wrap = size_based_auto_wrap_policy(300)});
    const std::string sized = describe(by_size->units());
    require(sized == "(0: 0.weight 0.bias 312/312/156)(2: 2.weight 2.bias 600/600/300)"
                     "(: 4.weight 4.bias 125/126/63)",
            "size_based_auto_wrap_policy(300) units: " + sized);
    auto root_only = FullyShardedDataParallel(mlp(0));
    const std::string root = describe(root_only->units());
    require(root == "(: 0.weight 0.bias 2.weight 2.bias 4.weight 4.bias 1037/1038/519)",
            "no policy: one root unit: " + root);
    require(root_only->named_parameters().size() == 1 &&
                root_only->named_parameters()[0].first == "flat_param",
            "the root's flat parameter is named flat_param");
  });
  EXPECT_EQ(test::failures(exits), "");
}

// Per-rank bytes of parameters + gradients + AdamW state under FULL_SHARD, measured with the
// allocator's statistics after one step (nothing gathered then): at most 1/N of the unsharded
// total plus the largest unit's full parameters (up to the allocator's size-class rounding),
// and not less than 1/N of it. At N = 1 FSDP is
// NO_SHARD and holds the whole model.
void check_memory(int world) {
  auto exits = on_ranks(world, [world](int rank) {
    const int64_t hidden = 256;
    const Batch mine = rows(full_batch(), (128 / world) * rank, 128 / world);
    const size_t before = cpu::allocator_stats().allocated_bytes;
    auto model = mlp(0, hidden);
    int64_t total_numel = 0, largest_unit = 0;
    for (const Tensor& p : model->parameters()) total_numel += p.numel();
    auto fsdp = FullyShardedDataParallel(
        model, {.auto_wrap = transformer_auto_wrap_policy<LinearImpl>()});
    for (const auto& u : fsdp->units()) largest_unit = std::max(largest_unit, u.padded_numel);
    optim::AdamW opt(fsdp->parameters(), {.lr = 1e-2});
    {
      nn::functional::cross_entropy(fsdp(mine.x), mine.y).backward();
      opt.step();
    }
    const double held = double(cpu::allocator_stats().allocated_bytes - before);
    // parameters + gradients + exp_avg + exp_avg_sq, float32.
    const double unsharded = 4.0 * 4.0 * double(total_numel);
    // The allocator rounds every block up to its size class (at most 25%: Note [Caching CPU
    // allocator]), and a flat shard is one block.
    const double bound = 1.25 * (unsharded / world + 4.0 * double(largest_unit));
    std::printf("FSDP memory: world %d rank %d holds %.0f bytes (unsharded %.0f, bound %.0f)\n",
                world, rank, held, unsharded, bound);
    const std::string who = "world " + std::to_string(world) + " rank " + std::to_string(rank);
    require(held <= bound, who + " holds " + std::to_string(held) + " bytes, more than 1/" +
                               std::to_string(world) + " of " + std::to_string(unsharded) +
                               " plus the largest unit");
    require(held >= 0.95 * unsharded / world,
            who + " holds only " + std::to_string(held) + " bytes: the shards' state is missing");
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(FullyShardedDataParallel, PerRankParametersGradientsAndAdamStateAreAboutOneNth) {
  for (int world : {1, 2, 4}) check_memory(world);
}

TEST(FullyShardedDataParallel, FullStateDictHasTheUnwrappedKeysAndLoadsBack) {
  auto exits = on_ranks(2, [](int rank) {
    auto fsdp = FullyShardedDataParallel(
        mlp(0), {.auto_wrap = transformer_auto_wrap_policy<LinearImpl>()});
    const StateDict wanted = mlp(7)->state_dict();
    fsdp->load_full_state_dict(wanted);
    require_state_near(fsdp->full_state_dict(), wanted, "after load_full_state_dict");
    const StateDict only0 = fsdp->full_state_dict({.rank0_only = true});
    require(rank == 0 ? only0.size() == wanted.size() : only0.empty(),
            "rank0_only: rank " + std::to_string(rank) + " got " + std::to_string(only0.size()));
    // The loaded values are the ones the forward uses.
    const Tensor x = randn({3, 12});
    const auto got = test::values(fsdp(x).detach());
    auto plain = mlp(7);
    test::require_close(plain(x).detach(), got, "forward after load");
    StateDict wrong = wanted;
    wrong.insert("2.weight", zeros({24, 23}));
    bool refused = false;
    try {
      fsdp->load_full_state_dict(wrong);
    } catch (const Error& e) {
      refused = std::string(e.what()).find("size mismatch for 2.weight") != std::string::npos &&
                std::string(e.what()).find("[24, 23]") != std::string::npos;
    }
    require(refused, "a shape mismatch is refused, naming the key and shapes");
  });
  EXPECT_EQ(test::failures(exits), "");
}

// The sharded state dict through dcp: saved by FSDP on 4 ranks (one unit per Linear, each
// padded to a multiple of 4), loaded by FSDP on 2 ranks with another wrapping and strategy, and
// by one process into a plain model's state_dict.
TEST(FullyShardedDataParallel, ShardedStateDictSavedOnFourRanksLoadsOnTwoAndIntoAPlainModel) {
  test::ScratchDir tmp;
  const std::string dir = tmp / "fsdp_step";
  const StateDict wanted = mlp(7)->state_dict();
  auto saved = on_ranks(4, [&](int rank) {
    auto fsdp = FullyShardedDataParallel(
        mlp(0), {.auto_wrap = transformer_auto_wrap_policy<LinearImpl>()});
    fsdp->load_full_state_dict(wanted);
    dcp::State state = fsdp->sharded_state_dict();
    require(state.sharded.size() == 6, "6 sharded parameters");
    for (const auto& [key, chunk] : state.sharded) {
      const int64_t rows = chunk.global_sizes[0], per_rank = (rows + 3) / 4;
      require(chunk.offsets[0] == std::min(rows, per_rank * rank) &&
                  chunk.local.size(0) == std::max<int64_t>(0, std::min(per_rank, rows - per_rank * rank)),
              key + ": rank " + std::to_string(rank) + "'s dim-0 chunk");
    }
    dcp::save(state, dir);
  });
  ASSERT_EQ(test::failures(saved), "");
  auto loaded = on_ranks(2, [&](int) {
    auto fsdp = FullyShardedDataParallel(
        mlp(0), {.sharding_strategy = ShardingStrategy::SHARD_GRAD_OP,
                 .auto_wrap = size_based_auto_wrap_policy(500)});
    dcp::State state = fsdp->sharded_state_dict();
    dcp::load(state, dir);
    fsdp->load_sharded_state_dict(state);
    require_state_near(fsdp->full_state_dict(), wanted, "loaded on 2 ranks");
  });
  ASSERT_EQ(test::failures(loaded), "");
  Value plain = mlp(0)->state_dict();
  dcp::load(plain, dir);
  EXPECT_NO_THROW(require_state_near(plain.to_state_dict(), wanted, "loaded by one process"));
}

// Resuming on another world size: 5 AdamW steps of FSDP on 2 ranks, the model's and the
// optimizer's sharded state dicts saved with dcp, loaded by FSDP on 4 ranks with another
// wrapping, 5 more steps there: the parameters of 10 steps of one process.
TEST(FullyShardedDataParallel, ShardedOptimizerStateSavedOnTwoRanksResumesOnFour) {
  test::ScratchDir tmp;
  const std::string model_dir = tmp / "model", optim_dir = tmp / "optim";
  auto train = [](auto& fsdp, optim::Optimizer& opt, int rank, int world, int steps) {
    const int64_t n = 128 / world;
    const Batch mine = rows(full_batch(), n * rank, n);
    for (int step = 0; step < steps; ++step) {
      opt.zero_grad();
      nn::functional::cross_entropy(fsdp(mine.x), mine.y).backward();
      opt.step();
    }
  };
  auto saved = on_ranks(2, [&](int rank) {
    auto fsdp = FullyShardedDataParallel(
        mlp(100), {.auto_wrap = transformer_auto_wrap_policy<LinearImpl>()});
    optim::AdamW opt(fsdp->parameters(), {.lr = 1e-2});
    train(fsdp, opt, rank, 2, 5);
    dcp::save(fsdp->sharded_state_dict(), model_dir);
    const dcp::State optim_state = fsdp->sharded_optim_state_dict(opt);
    require(optim_state.sharded.size() == 12, "exp_avg and exp_avg_sq of 6 parameters, got " +
                                                  std::to_string(optim_state.sharded.size()));
    dcp::save(optim_state, optim_dir);
  });
  ASSERT_EQ(test::failures(saved), "");
  auto resumed = on_ranks(4, [&](int rank) {
    const StateDict expected = single_process_reference(10);
    auto fsdp = FullyShardedDataParallel(mlp(0), {.sharding_strategy = ShardingStrategy::SHARD_GRAD_OP,
                                                  .auto_wrap = size_based_auto_wrap_policy(500)});
    optim::AdamW opt(fsdp->parameters(), {.lr = 1e-2});
    {
      bool refused = false;
      try {
        fsdp->sharded_optim_state_dict(opt);
      } catch (const Error& e) {
        refused = std::string(e.what()).find("take a step first") != std::string::npos;
      }
      require(refused, "an optimizer without state is refused by message");
    }
    for (Tensor p : fsdp->parameters()) p.mutable_grad() = zeros_like(p);
    opt.step();  // creates the state that loading fills
    dcp::State model_state = fsdp->sharded_state_dict();
    dcp::load(model_state, model_dir);
    fsdp->load_sharded_state_dict(model_state);
    dcp::State optim_state = fsdp->sharded_optim_state_dict(opt);
    dcp::load(optim_state, optim_dir);
    fsdp->load_sharded_optim_state_dict(opt, optim_state);
    train(fsdp, opt, rank, 4, 5);
    require_state_near(fsdp->full_state_dict(), expected, "resumed on 4 ranks");
  });
  EXPECT_EQ(test::failures(resumed), "");
}

// The full optimizer state dict: keyed by the unwrapped parameter names with the parameters'
// shapes (equal to one process's AdamW state after the same 5 steps), rank0_only, and loaded
// back into FSDP with another wrapping on the same ranks, where 5 more steps give 10 steps of
// one process.
TEST(FullyShardedDataParallel, FullOptimizerStateDictIsKeyedByNameAndLoadsBack) {
  auto exits = on_ranks(2, [](int rank) {
    const Batch data = full_batch();
    auto reference = mlp(100);
    optim::AdamW ref_opt(reference->parameters(), {.lr = 1e-2});
    for (int step = 0; step < 5; ++step) {
      ref_opt.zero_grad();
      nn::functional::cross_entropy(reference(data.x), data.y).backward();
      ref_opt.step();
    }
    const Batch mine = rows(data, 64 * rank, 64);
    auto train = [&](auto& fsdp, optim::Optimizer& opt, int steps) {
      for (int step = 0; step < steps; ++step) {
        opt.zero_grad();
        nn::functional::cross_entropy(fsdp(mine.x), mine.y).backward();
        opt.step();
      }
    };
    auto fsdp = FullyShardedDataParallel(
        mlp(100), {.auto_wrap = transformer_auto_wrap_policy<LinearImpl>()});
    optim::AdamW opt(fsdp->parameters(), {.lr = 1e-2});
    train(fsdp, opt, 5);
    const Value full = fsdp->full_optim_state_dict(opt);
    const Dict& state = full.to_dict().at("state").to_dict();
    require(state.size() == 6, "one entry per original parameter");
    for (const auto& [name, p] : reference->named_parameters()) {
      const Dict& mine_state = state.at(name).to_dict();
      const Dict& want = ref_opt.state(p);
      for (const char* key : {"exp_avg", "exp_avg_sq"}) {
        const Tensor& g = mine_state.at(key).to_tensor();
        require(g.sizes() == p.sizes(), name + "." + key + " has the parameter's shape");
        const auto gv = test::values(g), wv = test::values(want.at(key).to_tensor());
        for (size_t i = 0; i < wv.size(); ++i)
          require(std::abs(gv[i] - wv[i]) <= 1e-6 + 1e-4 * std::abs(wv[i]),
                  name + "." + key + "[" + std::to_string(i) + "]");
      }
    }
    const Value only0 = fsdp->full_optim_state_dict(opt, /*rank0_only=*/true);
    require((rank == 0) == only0.is_dict(), "rank0_only");
    const StateDict model_state = fsdp->full_state_dict();

    auto other = FullyShardedDataParallel(mlp(0), {.auto_wrap = size_based_auto_wrap_policy(500)});
    optim::AdamW other_opt(other->parameters(), {.lr = 1e-2});
    other->load_full_state_dict(model_state);
    other->load_full_optim_state_dict(other_opt, full);
    train(other, other_opt, 5);
    require_state_near(other->full_state_dict(), single_process_reference(10),
                       "resumed from the full optimizer state dict");
  });
  EXPECT_EQ(test::failures(exits), "");
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// Bad input is refused by message; the local state dict (the flat shards under their names) loads
// back on the same ranks.
TEST(FullyShardedDataParallel, BadInputIsRefusedByMessageAndTheLocalStateDictRoundTrips) {
  const std::string uninitialized = error_of([] { auto f = FullyShardedDataParallel(mlp(0)); });
  EXPECT_NE(uninitialized.find("init_process_group"), std::string::npos) << uninitialized;
  auto exits = on_ranks(2, [](int) {
    auto mixed = nn::Sequential(nn::Linear(2, 2), nn::Linear(2, 2));
    mixed[1]->to(kFloat64);
    const std::string dtype = error_of([&] { auto f = FullyShardedDataParallel(mixed); });
    require(dtype.find("uniform dtype") != std::string::npos &&
                dtype.find("the root unit '0.weight' is torch.float32") != std::string::npos &&
                dtype.find("'1.weight' is torch.float64") != std::string::npos,
            "mixed dtypes in one unit: " + dtype);
    // With one unit per Linear the dtypes may differ.
    auto per_layer = FullyShardedDataParallel(
        mixed, {.auto_wrap = transformer_auto_wrap_policy<LinearImpl>()});
    require(per_layer->units().size() == 2, "two units");

    auto fsdp = FullyShardedDataParallel(
        mlp(0), {.auto_wrap = transformer_auto_wrap_policy<LinearImpl>()});
    dcp::State sharded = fsdp->sharded_state_dict();
    sharded.sharded.pop_back();
    const std::string missing = error_of([&] { fsdp->load_sharded_state_dict(sharded); });
    require(missing.find("missing key '4.bias'") != std::string::npos, "missing: " + missing);

    const StateDict local = fsdp->state_dict();
    require(local.keys() == std::vector<std::string>{"flat_param_0", "flat_param_1", "flat_param_2"},
            "local state dict keys");
    const StateDict before = fsdp->full_state_dict();
    auto other = FullyShardedDataParallel(
        mlp(5), {.auto_wrap = transformer_auto_wrap_policy<LinearImpl>()});
    other->load_state_dict(local);
    require_state_near(other->full_state_dict(), before, "after loading the local state dict");
  });
  EXPECT_EQ(test::failures(exits), "");
}

// The reference's wrapping: transformer_auto_wrap_policy<TransformerEncoderLayer> on a
// TransformerEncoder makes each layer a unit (the final LayerNorm stays in the root); FULL_SHARD
// on 2 ranks gives the parameters of one process after 5 SGD steps (SGD: the key bias's
// gradient is zero up to rounding, which Adam would blow up to whole steps).
TEST(FullyShardedDataParallel, TransformerEncoderLayersAsUnitsEqualOneProcess) {
  auto exits = on_ranks(2, [](int rank) {
    auto encoder = [] {
      manual_seed(3);
      return nn::TransformerEncoder(
          nn::TransformerEncoderLayer(16, 2, {.dim_feedforward = 32, .dropout = 0.0,
                                              .batch_first = true}),
          2, nn::LayerNorm(std::vector<int64_t>{16}));
    };
    manual_seed(4);
    const Tensor x = randn({16, 5, 16}), target = randn({16, 5, 16});
    auto reference = encoder();
    optim::SGD ref_opt(reference->parameters(), {.lr = 0.1});
    for (int step = 0; step < 5; ++step) {
      ref_opt.zero_grad();
      nn::functional::mse_loss(reference(x), target).backward();
      ref_opt.step();
    }
    auto fsdp = FullyShardedDataParallel(
        encoder(), {.auto_wrap = transformer_auto_wrap_policy<TransformerEncoderLayerImpl>()});
    std::string units;
    for (const auto& u : fsdp->units()) units += "(" + u.module_path + ")";
    require(units == "(layers.0)(layers.1)()", "units: " + units);
    optim::SGD opt(fsdp->parameters(), {.lr = 0.1});
    const Tensor mine = x.narrow(0, 8 * rank, 8), my_target = target.narrow(0, 8 * rank, 8);
    for (int step = 0; step < 5; ++step) {
      opt.zero_grad();
      nn::functional::mse_loss(fsdp(mine), my_target).backward();
      opt.step();
    }
    require_state_near(fsdp->full_state_dict(), reference->state_dict(), "TransformerEncoder");
  });
  EXPECT_EQ(test::failures(exits), "");
}

}  // namespace
}  // namespace ember::nn
