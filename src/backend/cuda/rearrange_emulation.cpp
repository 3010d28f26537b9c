// The CPU emulation of rearrange.cu: the same block bodies over a grid loop (launch.cuh).
#include "backend/cuda/emulation.h"
#include "backend/cuda/launch.cuh"
#include "backend/cuda/rearrange_body.cuh"

namespace ember::cuda::kernels {

void emulate_flip(const FlipLaunch& l) { emulate_launch(l, "flip"); }
void emulate_triangle(const TriangleLaunch& l) { emulate_launch(l, "tril/triu"); }
void emulate_trace(const TraceLaunch& l) { emulate_launch(l, "trace"); }
void emulate_int_stats(const IntStatsLaunch& l) { emulate_launch(l, "int64 stats"); }
void emulate_one_hot(const OneHotLaunch& l) { emulate_launch(l, "one_hot"); }
void emulate_repeat(const RepeatLaunch& l) { emulate_launch(l, "repeat_interleave"); }
void emulate_searchsorted(const SearchsortedLaunch& l) { emulate_launch(l, "searchsorted"); }
void emulate_unique(const UniqueLaunch& l) { emulate_launch(l, "unique"); }

}  // namespace ember::cuda::kernels
