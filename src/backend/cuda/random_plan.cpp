// See random_plan.h.
#include "backend/cuda/random_plan.h"

#include <algorithm>

#include "backend/cuda/copy_plan.h"
#include "backend/cuda/elementwise_plan.h"

namespace ember::cuda {

using kernels::Distribution;
using kernels::Type;

uint32_t random_max_blocks(int sm_count, int max_threads_per_sm) {
  const int per_sm = max_threads_per_sm / int(kernels::kRandomThreads);
  return uint32_t(std::max(1, sm_count * per_sm));
}

kernels::RandomLaunch plan_random_launch(const char* op, const Tensor& t, const RandomFill& fill,
                                         PhiloxGenerator& gen, uint32_t max_blocks) {
  const Type type = storage_type(t.dtype(), op);
  const bool floating = type == Type::float32 || type == Type::float64 || type == Type::float16 ||
                        type == Type::bfloat16;
  EMBER_CHECK(floating || (fill.dist != Distribution::uniform && fill.dist != Distribution::normal),
              op, "expected a floating-point dtype, got ", t.dtype());
  for (int64_t d = 0; d < t.dim(); ++d)
    EMBER_CHECK(t.size(d) == 1 || t.stride(d) != 0, op, "unsupported operation: more than one ",
                "element of the written-to tensor refers to a single memory location");
  kernels::RandomLaunch l{};
  static_cast<kernels::Strided&>(l) = plan_strided<1>(op, {&t}, kernels::kRandomThreads);
  l.type = type;
  l.dist = fill.dist;
  // PyTorch draws two words per element for wide ranges in the types that can hold them.
  const bool wide_type = type == Type::int64 || type == Type::float64 || type == Type::float32 ||
                         type == Type::bfloat16;
  if (fill.dist == Distribution::random32 && wide_type && fill.range >= (uint64_t(1) << 32))
    l.dist = Distribution::random64;
  l.a = fill.a;
  l.b = fill.b;
  l.range = fill.range;
  l.low = fill.low;
  if (l.numel == 0) return l;
  // calc_execution_policy: a thread per element up to the device's cap, and an offset increment
  // of 4 words per draw counted as if every draw served 4 elements (also for the 2-element
  // draws: PyTorch's increment, reproduced so that later launches start where its do).
  const uint64_t n = uint64_t(l.numel);
  l.blocks =
      uint32_t(std::min<uint64_t>(std::max<uint32_t>(max_blocks, 1),
                                  (n + kernels::kRandomThreads - 1) / kernels::kRandomThreads));
  const uint64_t per_draw = uint64_t(l.blocks) * kernels::kRandomThreads * 4;
  const PhiloxInputs in = gen.philox_inputs(((n - 1) / per_draw + 1) * 4);
  l.seed = in.seed;
  l.offset = in.offset;
  return l;
}

}  // namespace ember::cuda
