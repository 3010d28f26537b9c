// Intra-op parallelism: one OpenMP pool for ember's kernels and OpenBLAS (default: all cores).
#pragma once

namespace ember {

void set_num_threads(int n);
int get_num_threads();

}  // namespace ember
