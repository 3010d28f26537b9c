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

RandomGrid random_grid(int64_t numel, uint32_t max_blocks, PhiloxGenerator& gen) {
  const uint64_t n = uint64_t(numel), threads = kernels::kRandomThreads;
  const auto blocks =
      uint32_t(std::min<uint64_t>(std::max<uint32_t>(max_blocks, 1), (n + threads - 1) / threads));
  return {blocks, gen.philox_inputs(((n - 1) / (blocks * threads * 4) + 1) * 4)};
}

kernels::RandomLaunch plan_random_launch(const char* op, const Tensor& t, const RandomFill& fill,
                                         PhiloxGenerator& gen, uint32_t max_blocks) {
  const Type type = storage_type(t.dtype(), op);
  EMBER_CHECK(is_floating_type(type) ||
                  (fill.dist != Distribution::uniform && fill.dist != Distribution::normal &&
                   fill.dist != Distribution::exponential),
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
  const RandomGrid grid = random_grid(l.numel, max_blocks, gen);
  l.blocks = grid.blocks;
  l.seed = grid.inputs.seed;
  l.offset = grid.inputs.offset;
  return l;
}

}  // namespace ember::cuda
