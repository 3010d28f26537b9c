// One training step of the Fashion-MNIST job's CNN on a fixed batch of 128 (zero_grad, forward,
// cross_entropy, backward, clip_grad_norm_, AdamW step), and its phases on their own, so the
// cost of a step can be profiled without the data pipeline. The whole-epoch comparison with
// PyTorch and LibTorch is bench/train_compare.py.
#include <benchmark/benchmark.h>

#include <ember/allocator.h>
#include <ember/amp/autocast.h>
#include <ember/ember.h>
#include <ember/nn/utils.h>
#include <ember/optim.h>

namespace {

using namespace ember;
namespace F = nn::functional;

nn::Sequential reference_cnn() {
  return nn::Sequential(
      nn::Conv2d(1, 32, 3, {.padding = 1}), nn::BatchNorm2d(32), nn::ReLU(), nn::MaxPool2d(2),
      nn::Conv2d(32, 64, 3, {.padding = 1}), nn::BatchNorm2d(64), nn::ReLU(), nn::MaxPool2d(2),
      nn::Flatten(), nn::Linear(3136, 128), nn::ReLU(), nn::Dropout(0.25), nn::Linear(128, 10));
}

struct Step {
  nn::Sequential model = reference_cnn();
  std::vector<Tensor> params = model->parameters();
  optim::AdamW optimizer{params, {.lr = 1e-3, .weight_decay = 0.01}};
  Tensor x = randn({128, 1, 28, 28});
  Tensor y = randint(0, 10, {128});
};

void BM_train_step(benchmark::State& state) {
  manual_seed(0);
  Step s;
  for (auto _ : state) {
    s.optimizer.zero_grad();
    Tensor loss = F::cross_entropy(s.model->forward(s.x), s.y);
    loss.backward();
    nn::utils::clip_grad_norm_(s.params, 1.0);
    s.optimizer.step();
  }
  state.SetItemsProcessed(state.iterations() * 128);
  const CpuAllocatorStats a = cpu::allocator_stats();
  state.counters["sys_allocs"] = double(a.system_allocations);
  state.counters["peak_MB"] = double(a.peak_allocated_bytes) / 1e6;
}
BENCHMARK(BM_train_step)->Unit(benchmark::kMillisecond)->MinTime(2.0);

// The same step with the forward and the loss under CPU autocast (--amp bf16 / fp16 in the
// training program; no GradScaler: the reference's bfloat16 loop has none).
void BM_train_step_amp(benchmark::State& state) {
  manual_seed(0);
  Step s;
  const Dtype dt = state.range(0) == 16 ? kFloat16 : kBFloat16;
  for (auto _ : state) {
    s.optimizer.zero_grad();
    Tensor loss;
    {
      amp::autocast region(kCPU, dt);
      loss = F::cross_entropy(s.model->forward(s.x), s.y);
    }
    loss.backward();
    nn::utils::clip_grad_norm_(s.params, 1.0);
    s.optimizer.step();
  }
  state.SetItemsProcessed(state.iterations() * 128);
  state.SetLabel(dt == kFloat16 ? "float16" : "bfloat16");
}
BENCHMARK(BM_train_step_amp)->Arg(0)->Arg(16)->Unit(benchmark::kMillisecond)->MinTime(2.0);

void BM_forward(benchmark::State& state) {
  manual_seed(0);
  Step s;
  for (auto _ : state) benchmark::DoNotOptimize(F::cross_entropy(s.model->forward(s.x), s.y));
}
BENCHMARK(BM_forward)->Unit(benchmark::kMillisecond)->MinTime(1.0);

void BM_forward_no_grad(benchmark::State& state) {
  manual_seed(0);
  Step s;
  s.model->eval();
  NoGradGuard no_grad;
  for (auto _ : state) benchmark::DoNotOptimize(s.model->forward(s.x));
}
BENCHMARK(BM_forward_no_grad)->Unit(benchmark::kMillisecond)->MinTime(1.0);

// The step's heaviest layers on the first block's activations (128 x 32 x 28 x 28), forward and
// backward.
void BM_layer(benchmark::State& state, nn::Sequential layer) {
  manual_seed(0);
  Tensor x = randn({128, 32, 28, 28}).requires_grad_();
  Tensor out = layer->forward(x);
  Tensor g = randn(out.sizes());
  for (auto _ : state) {
    out = layer->forward(x);
    out.backward({.gradient = g});
  }
}
BENCHMARK_CAPTURE(BM_layer, max_pool2d, nn::Sequential(nn::MaxPool2d(2)))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_layer, batch_norm2d, nn::Sequential(nn::BatchNorm2d(32)))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_layer, relu, nn::Sequential(nn::ReLU()))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_layer, conv2d_32to64, nn::Sequential(nn::Conv2d(32, 64, 3, {.padding = 1})))
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
