// all_reduce bandwidth and latency of ember's Gloo process group, one line per measurement, for
// bench/distributed_compare.sh (which runs it beside PyTorch 1.13's gloo under torchrun).
// Launch 2 ranks with RANK / WORLD_SIZE / MASTER_ADDR / MASTER_PORT set (env://).
#include <ember/creation.h>
#include <ember/distributed/process_group.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace dist = ember::dist;

// Median seconds of one all_reduce of n floats over `iterations` (after a warm-up).
double median_all_reduce(int64_t n, int iterations) {
  ember::Tensor t = ember::ones({n});
  for (int i = 0; i < 3; ++i) dist::all_reduce(t);
  std::vector<double> times;
  for (int i = 0; i < iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    dist::all_reduce(t);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  if (std::getenv("BENCH_PERCENTILES") && dist::get_rank() == 0)
    std::printf("n=%lld min %.1f us, p10 %.1f, p50 %.1f, p90 %.1f\n", static_cast<long long>(n),
                times[0] * 1e6, times[times.size() / 10] * 1e6, times[times.size() / 2] * 1e6,
                times[times.size() * 9 / 10] * 1e6);
  return times[times.size() / 2];
}

int main() {
  dist::init_process_group({.backend = "gloo", .timeout = std::chrono::seconds(60)});
  const int world = dist::get_world_size();
  const double big = median_all_reduce(4 << 20, 20);
  const double one = median_all_reduce(1, 300);
  const double small = median_all_reduce(256, 300);
  if (dist::get_rank() == 0) {
    const double bytes = 4.0 * (4 << 20);
    std::printf("RESULT ember size=%d 4M_median_ms=%.3f busbw_GBps=%.3f 1_float_us=%.1f "
                "256_float_us=%.1f\n",
                world, big * 1e3, bytes / big / 1e9 * 2 * (world - 1) / world, one * 1e6,
                small * 1e6);
  }
  dist::barrier();
  dist::destroy_process_group();
}
