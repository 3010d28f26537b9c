// The thread count shared by ember's kernels and OpenBLAS (both use libgomp's pool).
#include "backend/cpu/parallel.h"

#include <atomic>

#include "ember/error.h"
#include "ember/threads.h"

namespace ember {
namespace {
std::atomic<int> g_num_threads{0};  // 0: not set yet, use omp's default (the core count)
thread_local int t_num_threads = 0;  // this thread's own count; 0: the global one
}

int get_num_threads() {
  if (t_num_threads > 0) return t_num_threads;
  const int n = g_num_threads.load(std::memory_order_relaxed);
  return n > 0 ? n : omp_get_max_threads();
}

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
