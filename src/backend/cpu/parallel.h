// OpenMP parallel-for over [begin, end) in chunks of at least `grain` iterations; serial when
// the range is small, when already inside a parallel region, or with one thread.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace ember {

/// PyTorch's default grain: below this many elements, threading costs more than it saves.
inline constexpr int64_t kGrainSize = 32768;

int get_num_threads();
/// Overrides the thread count for kernels called from the calling thread only. DataLoader
/// workers run with 1 (as PyTorch's worker processes call set_num_threads(1)): an OpenMP team
/// started from a worker would spin against the training threads.
void set_num_threads_in_this_thread(int n);

template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  const int threads = get_num_threads();
  if (n <= grain || threads <= 1 || omp_in_parallel()) {
    f(begin, end);
    return;
  }
  const int64_t chunks = std::min<int64_t>(threads, (n + grain - 1) / grain);
#pragma omp parallel num_threads(int(chunks))
  {
    const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t per = (n + nt - 1) / nt;
    const int64_t b = begin + t * per, e = std::min(end, b + per);
    if (b < e) f(b, e);
  }
}

}  // namespace ember
