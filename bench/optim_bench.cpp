// One AdamW step over 10M float32 parameters (one tensor, a grad set): the fused update reads
// param, grad, exp_avg, exp_avg_sq once and writes three of them (~ 280 MB of traffic per step).
// bench/optim_torch.py times PyTorch 1.13's torch.optim.AdamW (foreach and single-tensor) on the
// same problem; run them back to back on a quiet machine and compare the ratios.
//   optim_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <ember/ember.h>
#include <ember/optim.h>

namespace {

using namespace ember;

void BM_adamw_step_10M_float32(benchmark::State& state) {
  Tensor p = randn({10'000'000}).requires_grad_();
  p.mutable_grad() = randn({10'000'000});
  optim::AdamW opt({p}, {.lr = 1e-3, .weight_decay = 0.01});
  opt.step();  // state created outside the timing
  for (auto _ : state) opt.step();
  state.SetBytesProcessed(int64_t(state.iterations()) * p.nbytes() * 7);
}
BENCHMARK(BM_adamw_step_10M_float32)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_adam_amsgrad_step_10M_float32(benchmark::State& state) {
  Tensor p = randn({10'000'000}).requires_grad_();
  p.mutable_grad() = randn({10'000'000});
  optim::Adam opt({p}, {.lr = 1e-3, .amsgrad = true});
  opt.step();
  for (auto _ : state) opt.step();
  state.SetBytesProcessed(int64_t(state.iterations()) * p.nbytes() * 9);
}
BENCHMARK(BM_adam_amsgrad_step_10M_float32)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_sgd_momentum_step_10M_float32(benchmark::State& state) {
  Tensor p = randn({10'000'000}).requires_grad_();
  p.mutable_grad() = randn({10'000'000});
  optim::SGD opt({p}, {.lr = 1e-3, .momentum = 0.9});
  opt.step();
  for (auto _ : state) opt.step();
  state.SetBytesProcessed(int64_t(state.iterations()) * p.nbytes() * 5);
}
BENCHMARK(BM_sgd_momentum_step_10M_float32)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
