// One training step (forward, backward, AdamW) of a 4-layer MLP (2.4 M parameters, batch 64 per
// rank) under DDP, FSDP FULL_SHARD and FSDP SHARD_GRAD_OP, one unit per Linear: the issue's
// "FULL_SHARD <= 1.15x DDP, SHARD_GRAD_OP <= 1.1x" rows. Launch 2 ranks with env://
// (tools/ember-run --nproc-per-node 2 build/bench/fsdp_step_bench). Prints the CPU first.
#include <ember/ember.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

using namespace ember;

namespace {

nn::Sequential make_model() {
  manual_seed(0);
  return nn::Sequential(nn::Linear(256, 1024), nn::ReLU(), nn::Linear(1024, 1024), nn::ReLU(),
                        nn::Linear(1024, 1024), nn::ReLU(), nn::Linear(1024, 10));
}

// Median milliseconds of a step, ranks aligned by a barrier before each, after 3 warm-ups.
template <class Wrapped>
double median_step_ms(Wrapped& wrapped, optim::Optimizer& opt, const Tensor& x, const Tensor& y) {
  std::vector<double> times;
  for (int step = 0; step < 23; ++step) {
    dist::barrier();
    const auto start = std::chrono::steady_clock::now();
    opt.zero_grad();
    nn::functional::cross_entropy(wrapped(x), y).backward();
    opt.step();
    if (step >= 3)
      times.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::string cpu_line() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, model, flags;
  while (std::getline(cpuinfo, line)) {
    if (model.empty() && line.rfind("model name", 0) == 0) model = line.substr(line.find(':') + 2);
    if (flags.empty() && line.rfind("flags", 0) == 0) {
      for (const char* f : {"avx2", "fma", "f16c", "avx512f"})
        if (line.find(std::string(" ") + f) != std::string::npos) flags += std::string(f) + " ";
    }
  }
  return model + " | " + flags;
}

}  // namespace

int main() {
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv("OPENBLAS_L2_SIZE");
  dist::init_process_group({.backend = "gloo", .timeout = std::chrono::seconds(60)});
  const int rank = dist::get_rank();
  manual_seed(rank);
  const Tensor x = randn({64, 256});
  const Tensor y = randint(0, 10, {64});
  const auto policy = nn::transformer_auto_wrap_policy<nn::LinearImpl>();
  double ddp_ms, full_ms, grad_op_ms;
  {
    auto ddp = nn::parallel::DistributedDataParallel(make_model());
    optim::AdamW opt(ddp->parameters(), {});
    ddp_ms = median_step_ms(ddp, opt, x, y);
  }
  {
    auto fsdp = nn::FullyShardedDataParallel(
        make_model(), {.sharding_strategy = nn::ShardingStrategy::FULL_SHARD, .auto_wrap = policy});
    optim::AdamW opt(fsdp->parameters(), {});
    full_ms = median_step_ms(fsdp, opt, x, y);
  }
  {
    auto fsdp = nn::FullyShardedDataParallel(
        make_model(),
        {.sharding_strategy = nn::ShardingStrategy::SHARD_GRAD_OP, .auto_wrap = policy});
    optim::AdamW opt(fsdp->parameters(), {});
    grad_op_ms = median_step_ms(fsdp, opt, x, y);
  }
  if (rank == 0) {
    std::printf("CPU %s\n", cpu_line().c_str());
    std::printf("RESULT world=%d ddp_ms=%.2f full_shard_ms=%.2f (%.2fx) shard_grad_op_ms=%.2f "
                "(%.2fx)\n",
                dist::get_world_size(), ddp_ms, full_ms, full_ms / ddp_ms, grad_op_ms,
                grad_op_ms / ddp_ms);
  }
  dist::barrier();
  dist::destroy_process_group();
}
