// One training step (forward, backward, AdamW) of a 4-layer MLP (2.4 M parameters, batch 64 per
// rank) under DDP, FSDP FULL_SHARD and FSDP SHARD_GRAD_OP, one unit per Linear, the all-gathers
// prefetched (forward_prefetch, BACKWARD_PRE): the issue's "FULL_SHARD <= 1.15x DDP,
// SHARD_GRAD_OP <= 1.1x" rows. Launch 2 ranks:
//
//   ember-run --standalone --nproc-per-node 2 build/bench/fsdp_step_bench [rounds]
//
// The machine may be shared, so the configurations run interleaved step by step (each round:
// one step of DDP, FULL_SHARD, SHARD_GRAD_OP, FULL_SHARD without prefetch, the bare model, and
// the collectives alone; 40 rounds unless given), and the ratios are medians of the rounds'
// ratios, with their quartiles and the load average. Hidden communication: how much of a configuration's collectives did
// not add to its step, (compute + communication - step) / communication, where compute is the
// bare model's step on the same batch (no wrapper; for FSDP with AdamW on shard-sized tensors,
// as FSDP's optimizer works on half the parameters at 2 ranks; FSDP's own copies count against
// it, so this understates what it hides) and communication the same collectives run alone and
// back to back (FULL_SHARD: two all-gathers and a reduce-scatter per
// unit, SHARD_GRAD_OP: one all-gather and a reduce-scatter, DDP: an all-reduce of every
// gradient). Prints the CPU first.
#include <ember/ember.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

using namespace ember;

namespace {

using Clock = std::chrono::steady_clock;

nn::Sequential make_model() {
  manual_seed(0);
  return nn::Sequential(nn::Linear(256, 1024), nn::ReLU(), nn::Linear(1024, 1024), nn::ReLU(),
                        nn::Linear(1024, 1024), nn::ReLU(), nn::Linear(1024, 10));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Milliseconds of one call of fn, the ranks aligned by a barrier first.
double timed_ms(const std::function<void()>& fn) {
  dist::barrier();
  const auto start = Clock::now();
  fn();
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// One configuration under test: its step (or its collectives) as a function.
struct Candidate {
  std::string name;
  std::function<void()> step;
  std::vector<double> ms;
};

template <class Wrapped>
std::function<void()> training_step(Wrapped wrapped, const Tensor& x, const Tensor& y) {
  auto opt = std::make_shared<optim::AdamW>(wrapped->parameters(), optim::AdamWOptions{});
  return [wrapped, opt, x, y]() mutable {
    opt->zero_grad();
    nn::functional::cross_entropy(wrapped(x), y).backward();
    opt->step();
  };
}

std::function<void()> fsdp_step(nn::ShardingStrategy strategy, bool prefetch, const Tensor& x,
                                const Tensor& y) {
  nn::FullyShardedDataParallelOptions options{
      .sharding_strategy = strategy, .auto_wrap = nn::transformer_auto_wrap_policy<nn::LinearImpl>()};
  if (prefetch) {
    options.backward_prefetch = nn::BackwardPrefetch::BACKWARD_PRE;
    options.forward_prefetch = true;
  }
  return training_step(nn::FullyShardedDataParallel(make_model(), options), x, y);
}

// The model's step without a wrapper or a collective: the compute that DDP (AdamW on every
// parameter) and FSDP (AdamW on this rank's shard of each unit: `sharded_optimizer`, here on
// flat tensors of the shards' sizes whose gradients are the bare gradients' first elements)
// would have without communication.
std::function<void()> bare_step(const Tensor& x, const Tensor& y, bool sharded_optimizer) {
  nn::Sequential model = make_model();
  std::vector<Tensor> params = model->parameters();
  if (sharded_optimizer) {
    const int world = dist::get_world_size();
    params.clear();
    for (const auto& [name, m] : model->named_children()) {
      int64_t n = 0;
      for (const Tensor& p : m->parameters()) n += p.numel();
      if (n) params.push_back(zeros({(n + world - 1) / world}).requires_grad_());
    }
  }
  auto opt = std::make_shared<optim::AdamW>(params, optim::AdamWOptions{});
  return [model, opt, params, x, y, sharded_optimizer]() mutable {
    for (Tensor& p : model->parameters()) p.mutable_grad() = Tensor();
    opt->zero_grad();
    nn::functional::cross_entropy(model(x), y).backward();
    if (sharded_optimizer)
      for (size_t i = 0; i < params.size(); ++i)
        params[i].mutable_grad() = model->parameters()[2 * i].grad().reshape({-1}).narrow(
            0, 0, params[i].numel());
    opt->step();
  };
}

// The collectives of one step, alone: per unit `gathers` all-gathers of its flat parameter and
// a reduce-scatter of its gradient (DDP: `gathers` = 0 and one all-reduce of everything). The
// buffers are made once, as FSDP's allocator reuses its blocks.
std::function<void()> collectives(int gathers, bool ddp) {
  const int world = dist::get_world_size();
  struct Unit {
    Tensor local, full, reduced;
  };
  auto units = std::make_shared<std::vector<Unit>>();
  int64_t total = 0;
  for (const auto& [name, m] : make_model()->named_children()) {
    int64_t n = 0;
    for (const Tensor& p : m->parameters()) n += p.numel();
    if (!n) continue;
    const int64_t shard = (n + world - 1) / world;
    units->push_back({zeros({shard}), zeros({shard * world}), zeros({shard})});
    total += shard * world;
  }
  auto all = std::make_shared<Tensor>(zeros({total}));
  return [=] {
    if (ddp) {
      dist::all_reduce(*all, {.op = dist::ReduceOp::AVG});
      return;
    }
    for (Unit& u : *units) {
      for (int g = 0; g < gathers; ++g) dist::all_gather_into_tensor(u.full, u.local);
      dist::reduce_scatter_tensor(u.reduced, u.full, {.op = dist::ReduceOp::AVG});
    }
  };
}

std::string cpu_line() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, model, flags;
  int cores = 0;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("processor", 0) == 0) ++cores;
    if (model.empty() && line.rfind("model name", 0) == 0) model = line.substr(line.find(':') + 2);
    if (flags.empty() && line.rfind("flags", 0) == 0) {
      for (const char* f : {"avx2", "fma", "f16c", "avx512f"})
        if (line.find(std::string(" ") + f) != std::string::npos) flags += std::string(f) + " ";
    }
  }
  return model + " (" + std::to_string(cores) + " cores) | " + flags;
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

double hidden(double compute, double comm, double step) {
  return std::clamp((compute + comm - step) / comm, 0.0, 1.0);
}

}  // namespace

int main(int argc, char** argv) {
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv("OPENBLAS_L2_SIZE");
  const int rounds = argc > 1 ? std::max(3, std::atoi(argv[1])) : 40;
  dist::init_process_group({.backend = "gloo", .timeout = std::chrono::seconds(120)});
  const int rank = dist::get_rank();
  manual_seed(rank);
  const Tensor x = randn({64, 256});
  const Tensor y = randint(0, 10, {64});
  using nn::ShardingStrategy;
  std::vector<Candidate> c;
  c.push_back({"ddp", training_step(nn::parallel::DistributedDataParallel(make_model()), x, y)});
  c.push_back({"full_shard", fsdp_step(ShardingStrategy::FULL_SHARD, true, x, y)});
  c.push_back({"shard_grad_op", fsdp_step(ShardingStrategy::SHARD_GRAD_OP, true, x, y)});
  c.push_back({"full_shard_no_prefetch", fsdp_step(ShardingStrategy::FULL_SHARD, false, x, y)});
  c.push_back({"bare_model", bare_step(x, y, /*sharded_optimizer=*/false)});
  c.push_back({"bare_model_sharded_adamw", bare_step(x, y, /*sharded_optimizer=*/true)});
  c.push_back({"collectives_full_shard", collectives(2, false)});
  c.push_back({"collectives_shard_grad_op", collectives(1, false)});
  c.push_back({"collectives_ddp", collectives(0, true)});
  enum { kDdp, kFull, kGradOp, kFullPlain, kBare, kBareSharded, kCommFull, kCommGradOp, kCommDdp };
  const std::string load_before = load_average();
  // Interleaved at the step: every round runs each candidate once, so that a change in the
  // machine's load hits all alike; 3 warm-up rounds.
  for (int round = 0; round < rounds + 3; ++round)
    for (Candidate& candidate : c) {
      const double ms = timed_ms(candidate.step);
      if (round >= 3) candidate.ms.push_back(ms);
    }
  // Per-round ratios to DDP, then their median and quartiles.
  auto ratios = [&](size_t i) {
    std::vector<double> r;
    for (size_t k = 0; k < c[i].ms.size(); ++k) r.push_back(c[i].ms[k] / c[kDdp].ms[k]);
    return r;
  };
  auto quartiles = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    char s[64];
    std::snprintf(s, sizeof s, "%.2f-%.2f", v[v.size() / 4], v[3 * v.size() / 4]);
    return std::string(s);
  };
  if (rank == 0) {
    std::printf("CPU %s\n", cpu_line().c_str());
    std::printf("load average before %s, after %s; %d interleaved rounds\n", load_before.c_str(),
                load_average().c_str(), rounds);
    for (const Candidate& candidate : c)
      std::printf("  %-26s median %7.2f ms, quartiles %s ms\n", candidate.name.c_str(),
                  median(candidate.ms), quartiles(candidate.ms).c_str());
    std::printf("RESULT world=%d ddp_ms=%.2f full_shard_ms=%.2f (%.2fx, quartiles %s) "
                "shard_grad_op_ms=%.2f (%.2fx, quartiles %s) full_shard_no_prefetch_ms=%.2f "
                "(%.2fx, quartiles %s)\n",
                dist::get_world_size(), median(c[kDdp].ms), median(c[kFull].ms),
                median(ratios(kFull)), quartiles(ratios(kFull)).c_str(), median(c[kGradOp].ms),
                median(ratios(kGradOp)), quartiles(ratios(kGradOp)).c_str(),
                median(c[kFullPlain].ms), median(ratios(kFullPlain)),
                quartiles(ratios(kFullPlain)).c_str());
    auto hidden_of = [&](size_t step, size_t comm, size_t bare) {
      return 100 * hidden(median(c[bare].ms), median(c[comm].ms), median(c[step].ms));
    };
    std::printf("HIDDEN full_shard: collectives %.2f ms, %.0f%% hidden (without prefetch %.0f%%) "
                "| shard_grad_op: %.2f ms, %.0f%% hidden | ddp: %.2f ms, %.0f%% hidden\n",
                median(c[kCommFull].ms), hidden_of(kFull, kCommFull, kBareSharded),
                hidden_of(kFullPlain, kCommFull, kBareSharded), median(c[kCommGradOp].ms),
                hidden_of(kGradOp, kCommGradOp, kBareSharded), median(c[kCommDdp].ms),
                hidden_of(kDdp, kCommDdp, kBare));
  }
  dist::barrier();
  dist::destroy_process_group();
}
