// The CUDA rearranging kernels: rearrange_body.cuh's bodies.
#include "backend/cuda/launch.cuh"
#include "backend/cuda/rearrange_body.cuh"

namespace ember::cuda::kernels {

int launch_flip(const FlipLaunch& l, void* stream) { return launch_grid(l, stream); }
int launch_triangle(const TriangleLaunch& l, void* stream) { return launch_grid(l, stream); }
int launch_trace(const TraceLaunch& l, void* stream) { return launch_grid(l, stream); }
int launch_int_stats(const IntStatsLaunch& l, void* stream) { return launch_grid(l, stream); }
int launch_one_hot(const OneHotLaunch& l, void* stream) { return launch_grid(l, stream); }
int launch_repeat(const RepeatLaunch& l, void* stream) { return launch_grid(l, stream); }
int launch_searchsorted(const SearchsortedLaunch& l, void* stream) {
  return launch_grid(l, stream);
}
int launch_unique(const UniqueLaunch& l, void* stream) { return launch_grid(l, stream); }

}  // namespace ember::cuda::kernels
