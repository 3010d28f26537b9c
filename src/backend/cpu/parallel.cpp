// The thread count shared by ember's kernels and OpenBLAS (both use libgomp's pool).
#include "backend/cpu/parallel.h"

#include <atomic>

#include "ember/error.h"
#include "ember/threads.h"

namespace ember {
namespace {
std::atomic<int> g_num_threads{0};  // 0: not set yet, use omp's default (the core count)
}

int get_num_threads() {
  const int n = g_num_threads.load(std::memory_order_relaxed);
  return n > 0 ? n : omp_get_max_threads();
}

void set_num_threads(int n) {
  EMBER_CHECK(n > 0, "set_num_threads", "expected a positive number of threads, got ", n);
  g_num_threads.store(n, std::memory_order_relaxed);
  omp_set_num_threads(n);
}

}  // namespace ember
