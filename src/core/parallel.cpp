// The thread count shared by ember's kernels and OpenBLAS (both use libgomp's pool).
#include "core/parallel.h"

#include <atomic>

#include "ember/error.h"
#include "ember/threads.h"

namespace ember {
namespace {
std::atomic<int> g_num_threads{0};   // 0: not set yet, use omp's default (the core count)
thread_local int t_num_threads = 0;  // this thread's own count; 0: the global one
}  // namespace

int get_num_threads() {
  if (t_num_threads > 0) return t_num_threads;
  const int n = g_num_threads.load(std::memory_order_relaxed);
  return n > 0 ? n : omp_get_max_threads();
}

namespace detail {
void parallel_run(int64_t begin, int64_t end, int64_t grain, RangeFn fn, const void* f) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  const int threads = get_num_threads();
  if (n <= grain || threads <= 1 || omp_in_parallel()) {
    fn(f, begin, end);
    return;
  }
  const int64_t chunks = std::min<int64_t>(threads, (n + grain - 1) / grain);
#pragma omp parallel num_threads(int(chunks))
  {
    const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t per = (n + nt - 1) / nt;
    const int64_t b = begin + t * per, e = std::min(end, b + per);
    if (b < e) fn(f, b, e);
  }
}
}  // namespace detail

void set_num_threads(int n) {
  EMBER_CHECK(n > 0, "set_num_threads", "expected a positive number of threads, got ", n);
  g_num_threads.store(n, std::memory_order_relaxed);
  omp_set_num_threads(n);
}

void set_num_threads_in_this_thread(int n) {
  EMBER_CHECK(n > 0, "set_num_threads", "expected a positive number of threads, got ", n);
  t_num_threads = n;
  omp_set_num_threads(n);  // this thread's OpenMP ICV: OpenBLAS sizes its team from it
}

}  // namespace ember
