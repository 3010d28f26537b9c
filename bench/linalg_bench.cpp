// Matrix products through ember against the same product through cblas_sgemm called directly
// (ember's floor), reported as GFLOP/s ("FLOPS" counter). Run side by side, several times:
//   env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE build/bench/linalg_bench --benchmark_repetitions=5
// The bmm cases compare ember's batch strategy (parallel over small matrices) with a loop of
// threaded sgemm calls, the alternative it replaces.
#include <benchmark/benchmark.h>
#include <cblas.h>
#include <ember/ember.h>

#include "backend/cpu/blas.h"

using namespace ember;

namespace {

void set_flops(benchmark::State& state, double flops_per_iter) {
  state.counters["FLOPS"] =
      benchmark::Counter(flops_per_iter, benchmark::Counter::kIsIterationInvariantRate);
}

// ── square matmul, float32 ─────────────────────────────────────────────────────────────────

void BM_ember_matmul(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor a = randn({n, n}), b = randn({n, n});
  for (auto _ : state) benchmark::DoNotOptimize(matmul(a, b).data_ptr());
  set_flops(state, 2.0 * double(n) * double(n) * double(n));
}

// a^T @ b with a stored transposed: must be as fast as the contiguous case (no copy).
void BM_ember_matmul_transposed(benchmark::State& state) {
  const int64_t n = state.range(0);
  const Tensor a = randn({n, n}).t(), b = randn({n, n}).t();
  for (auto _ : state) benchmark::DoNotOptimize(matmul(a, b).data_ptr());
  set_flops(state, 2.0 * double(n) * double(n) * double(n));
}

void BM_cblas_sgemm(benchmark::State& state) {
  const int n = int(state.range(0));
  const Tensor a = randn({n, n}), b = randn({n, n}), c = empty({n, n});
  cpu::sync_blas_threads();  // the same thread count ember uses
  const float* pa = a.data_ptr<float>();
  const float* pb = b.data_ptr<float>();
  float* pc = c.data_ptr<float>();
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, pa, n, pb, n, 0.0f, pc,
                n);
    benchmark::ClobberMemory();
  }
  set_flops(state, 2.0 * double(n) * double(n) * double(n));
}

// ── bmm (64, 128, 128) ─────────────────────────────────────────────────────────────────────

void BM_ember_bmm(benchmark::State& state) {
  const int64_t B = state.range(0), n = state.range(1);
  const Tensor a = randn({B, n, n}), b = randn({B, n, n});
  for (auto _ : state) benchmark::DoNotOptimize(bmm(a, b).data_ptr());
  set_flops(state, 2.0 * double(B) * double(n) * double(n) * double(n));
}

// The batch as a loop of threaded sgemm calls.
void BM_cblas_sgemm_loop(benchmark::State& state) {
  const int B = int(state.range(0)), n = int(state.range(1));
  const Tensor a = randn({B, n, n}), b = randn({B, n, n}), c = empty({B, n, n});
  cpu::sync_blas_threads();
  const float* pa = a.data_ptr<float>();
  const float* pb = b.data_ptr<float>();
  float* pc = c.data_ptr<float>();
  const int64_t step = int64_t(n) * n;
  for (auto _ : state) {
    for (int i = 0; i < B; ++i)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, pa + i * step, n,
                  pb + i * step, n, 0.0f, pc + i * step, n);
    benchmark::ClobberMemory();
  }
  set_flops(state, 2.0 * double(B) * double(n) * double(n) * double(n));
}

// The batch spread over threads, one single-threaded sgemm per matrix.
void BM_cblas_sgemm_batch_parallel(benchmark::State& state) {
  const int B = int(state.range(0)), n = int(state.range(1));
  const Tensor a = randn({B, n, n}), b = randn({B, n, n}), c = empty({B, n, n});
  const float* pa = a.data_ptr<float>();
  const float* pb = b.data_ptr<float>();
  float* pc = c.data_ptr<float>();
  const int64_t step = int64_t(n) * n;
  for (auto _ : state) {
#pragma omp parallel for num_threads(get_num_threads())
    for (int i = 0; i < B; ++i)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, pa + i * step, n,
                  pb + i * step, n, 0.0f, pc + i * step, n);
    benchmark::ClobberMemory();
  }
  set_flops(state, 2.0 * double(B) * double(n) * double(n) * double(n));
}

// ── linear: nn.Linear's forward, (batch, in) @ (out, in)^T + bias ───────────────────────────

void BM_ember_linear(benchmark::State& state) {
  const int64_t rows = state.range(0), in = state.range(1), out = state.range(2);
  const Tensor x = randn({rows, in}), w = randn({out, in}), bias = randn({out});
  for (auto _ : state) benchmark::DoNotOptimize(linear(x, w, bias).data_ptr());
  set_flops(state, 2.0 * double(rows) * double(in) * double(out));
}

// ── small bfloat16 products: both sides of the direct path's bound ─────────────────────────
// (M, K, N) up to 4096 multiply-adds run Note [Small reduced-precision GEMM]'s direct loop, above
// it the convert path (two float32 buffers and sgemm): 16x16x16 and 16x17x16 straddle the bound.

void BM_ember_matmul_bf16_small(benchmark::State& state) {
  const int64_t m = state.range(0), k = state.range(1), n = state.range(2);
  const Tensor a = randn({m, k}).to(kBFloat16), b = randn({k, n}).to(kBFloat16);
  for (auto _ : state) benchmark::DoNotOptimize(matmul(a, b).data_ptr());
  set_flops(state, 2.0 * double(m) * double(k) * double(n));
}

// ── einsum lowering overhead ───────────────────────────────────────────────────────────────

void BM_ember_einsum_bmm(benchmark::State& state) {
  const Tensor a = randn({64, 128, 128}), b = randn({64, 128, 128});
  for (auto _ : state) benchmark::DoNotOptimize(einsum("bij,bjk->bik", {a, b}).data_ptr());
  set_flops(state, 2.0 * 64 * 128 * 128 * 128);
}

}  // namespace

BENCHMARK(BM_ember_matmul)->Arg(256)->Arg(1024)->Arg(2048)->UseRealTime();
BENCHMARK(BM_cblas_sgemm)->Arg(256)->Arg(1024)->Arg(2048)->UseRealTime();
BENCHMARK(BM_ember_matmul_transposed)->Arg(1024)->UseRealTime();
BENCHMARK(BM_ember_bmm)->Args({64, 128})->Args({64, 32})->Args({8, 512})->UseRealTime();
BENCHMARK(BM_cblas_sgemm_loop)->Args({64, 128})->Args({64, 32})->Args({8, 512})->UseRealTime();
BENCHMARK(BM_cblas_sgemm_batch_parallel)
    ->Args({64, 128})
    ->Args({64, 32})
    ->Args({8, 512})
    ->UseRealTime();
BENCHMARK(BM_ember_linear)->Args({128, 784, 512})->Args({128, 512, 10})->UseRealTime();
BENCHMARK(BM_ember_einsum_bmm)->UseRealTime();
BENCHMARK(BM_ember_matmul_bf16_small)
    ->Args({4, 4, 4})
    ->Args({16, 16, 16})
    ->Args({16, 17, 16})
    ->Args({32, 32, 32})
    ->UseRealTime();

BENCHMARK_MAIN();
