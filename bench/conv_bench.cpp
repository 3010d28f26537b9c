// Convolution and pooling forward (and conv backward) at the reference CNN's sizes, batch 128:
// conv 1 -> 32 at 28x28 and 32 -> 64 at 14x14 (the flat kernels, Winograd where it wins),
// max_pool2d(2). The conv cases' last argument is the dtype: 0 float32, 1 bfloat16 (bfloat16
// dot products where the CPU has them: Note [bfloat16 dot-product convolution]).
// Times are per call (real time). Compare with PyTorch side by side, interleaved, e.g. through
// bench/compare.py (conv cases) or by alternating this program with the same calls in Python:
//   env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE build/bench/conv_bench --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <ember/ember.h>

using namespace ember;
namespace F = ember::nn::functional;

namespace {

void set_flops(benchmark::State& state, double flops) {
  state.counters["FLOPS"] = benchmark::Counter(flops, benchmark::Counter::kIsIterationInvariantRate);
}

Dtype dtype_arg(const benchmark::State& state) { return state.range(3) ? kBFloat16 : kFloat32; }

// (128, cin, hw, hw) * (cout, cin, 3, 3), padding 1, with bias.
void BM_conv2d(benchmark::State& state) {
  const int64_t cin = state.range(0), cout = state.range(1), hw = state.range(2), n = 128;
  const Dtype dt = dtype_arg(state);
  const Tensor x = randn({n, cin, hw, hw}).to(dt), w = randn({cout, cin, 3, 3}).to(dt),
               b = randn({cout}).to(dt);
  for (auto _ : state) benchmark::DoNotOptimize(F::conv2d(x, w, {.bias = b, .padding = 1}).data_ptr());
  set_flops(state, 2.0 * double(n * cout * hw * hw * cin * 9));
}

// grad_input and grad_weight (and grad_bias) of the same convolution.
void BM_conv2d_backward(benchmark::State& state) {
  const int64_t cin = state.range(0), cout = state.range(1), hw = state.range(2), n = 128;
  const Dtype dt = dtype_arg(state);
  const Tensor x = randn({n, cin, hw, hw}).to(dt), w = randn({cout, cin, 3, 3}).to(dt),
               b = randn({cout}).to(dt);
  const Tensor g = randn({n, cout, hw, hw}).to(dt);
  for (auto _ : state) {
    auto [gi, gw, gb] = F::conv2d_backward(g, x, w, {.bias = b, .padding = 1});
    benchmark::DoNotOptimize(gw.data_ptr());
  }
  set_flops(state, 2 * 2.0 * double(n * cout * hw * hw * cin * 9));
}

void BM_max_pool2d(benchmark::State& state) {
  const Tensor x = randn({128, 32, 28, 28});
  for (auto _ : state) benchmark::DoNotOptimize(F::max_pool2d(x, 2).data_ptr());
  state.SetBytesProcessed(int64_t(state.iterations()) * x.nbytes() * 5 / 4);
}

void BM_max_pool2d_with_indices(benchmark::State& state) {
  const Tensor x = randn({128, 32, 28, 28});
  for (auto _ : state) {
    auto [v, i] = F::max_pool2d_with_indices(x, 2);
    benchmark::DoNotOptimize(i.data_ptr());
  }
}

void BM_avg_pool2d(benchmark::State& state) {
  const Tensor x = randn({128, 32, 28, 28});
  for (auto _ : state) benchmark::DoNotOptimize(F::avg_pool2d(x, 2).data_ptr());
}

}  // namespace

BENCHMARK(BM_conv2d)
    ->Args({1, 32, 28, 0})
    ->Args({32, 64, 14, 0})
    ->Args({1, 32, 28, 1})
    ->Args({32, 64, 14, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_conv2d_backward)
    ->Args({32, 64, 14, 0})
    ->Args({32, 64, 14, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_max_pool2d)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_max_pool2d_with_indices)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_avg_pool2d)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
