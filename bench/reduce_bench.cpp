// Reductions at the sizes that matter: a full sum and a row softmax of a (4096, 4096) float32
// matrix, sums along either dim of it, and the BatchNorm statistics mean over (0, 2, 3) of an
// (N, C, H, W) = (128, 64, 28, 28) batch. Compare with PyTorch side by side, interleaved
// (shared/BENCHMARKING.md): only ratios measured in the same minutes mean anything here.
//   reduce_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <ember/ember.h>
#include <ember/reduce.h>

namespace {

using namespace ember;

// (4096, 4096) float32: 64 MiB, far above the caches, so the sums run at memory bandwidth.
const Tensor& matrix() {
  static const Tensor m = randn({4096, 4096});
  return m;
}

// (N, C, H, W) = (128, 64, 28, 28) float32, 25 MiB.
const Tensor& batch() {
  static const Tensor b = randn({128, 64, 28, 28});
  return b;
}

void set_bytes(benchmark::State& state, const Tensor& t, int passes) {
  state.SetBytesProcessed(int64_t(state.iterations()) * t.nbytes() * passes);
}

void BM_sum_4096x4096(benchmark::State& state) {
  const Tensor& a = matrix();
  for (auto _ : state) benchmark::DoNotOptimize(a.sum());
  set_bytes(state, a, 1);
}

void BM_sum_dim0_4096x4096(benchmark::State& state) {
  const Tensor& a = matrix();
  for (auto _ : state) benchmark::DoNotOptimize(a.sum(0));
  set_bytes(state, a, 1);
}

void BM_sum_dim1_4096x4096(benchmark::State& state) {
  const Tensor& a = matrix();
  for (auto _ : state) benchmark::DoNotOptimize(a.sum(1));
  set_bytes(state, a, 1);
}

void BM_softmax_4096x4096(benchmark::State& state) {
  const Tensor& a = matrix();
  for (auto _ : state) benchmark::DoNotOptimize(softmax(a, -1));
  set_bytes(state, a, 2);  // read the input, write the output
}

void BM_mean_nchw_023(benchmark::State& state) {
  const Tensor& b = batch();
  for (auto _ : state) benchmark::DoNotOptimize(b.mean({0, 2, 3}));
  set_bytes(state, b, 1);
}

void BM_var_nchw_023(benchmark::State& state) {
  const Tensor& b = batch();
  for (auto _ : state) benchmark::DoNotOptimize(b.var(IntArrayRef({0, 2, 3}), 0));
  set_bytes(state, b, 1);
}

BENCHMARK(BM_sum_4096x4096)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_sum_dim0_4096x4096)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_sum_dim1_4096x4096)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_softmax_4096x4096)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_mean_nchw_023)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_var_nchw_023)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
