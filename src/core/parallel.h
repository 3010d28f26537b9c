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

namespace detail {
using RangeFn = void (*)(const void* f, int64_t begin, int64_t end);
/// parallel_for's body, compiled once (parallel.cpp): calls fn(f, b, e) on the chunks.
void parallel_run(int64_t begin, int64_t end, int64_t grain, RangeFn fn, const void* f);
}  // namespace detail

/// Calls f(b, e) on chunks of [begin, end). Note [One parallel region]: the OpenMP region and the
/// decision to thread are compiled once, in parallel.cpp, and reach f through one indirect call
/// per chunk, so a kernel's body is compiled once rather than twice (serial and outlined for
/// OpenMP) and no kernel instantiates a region of its own.
template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t grain, const F& f) {
  detail::parallel_run(
      begin, end, grain,
      [](const void* fn, int64_t b, int64_t e) { (*static_cast<const F*>(fn))(b, e); }, &f);
}

}  // namespace ember
