// See randperm_plan.h.
#include "backend/cuda/randperm_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "backend/buffers.h"
#include "backend/cuda/copy_plan.h"
#include "backend/cuda/random_plan.h"

namespace ember::cuda {

int randperm_key_bits(int64_t n) {
  // Randperm.cu's expression, evaluated as it is there (double, std::log2, std::ceil).
  const double log_threshold_12 = std::log(0.9) * 12;
  const double nd = static_cast<double>(n);
  return std::min(
      64, static_cast<int>(std::ceil(std::log2(nd - (6 * nd * nd + 1) / log_threshold_12))));
}

RandpermWork plan_randperm(const Tensor& out, PhiloxGenerator& gen, uint32_t max_blocks) {
  const char* op = "randperm";
  const int64_t n = out.numel();
  EMBER_CHECK(
      out.dim() == 1 && out.is_contiguous() && n >= 1 && n <= std::numeric_limits<int32_t>::max(),
      op,
      "the cuda kernel expects a contiguous 1-D result of 1 to 2147483647 elements "
      "(PyTorch's int counts), got sizes ",
      out.sizes(), " and strides ", out.strides());
  (void)storage_type(out.dtype(), op);  // a dtype the copies take, before anything is drawn
  const Device device = out.device();
  RandpermWork w{};
  w.bits = randperm_key_bits(n);
  const bool wide = w.bits > 32;
  const Dtype key_dtype = wide ? kInt64 : kInt32;
  w.keys = backend::new_buffer({n}, key_dtype, device, op);
  w.sorted_keys = backend::new_buffer({n}, key_dtype, device, op);
  w.iota = backend::new_buffer({n}, kInt64, device, op);
  w.perm = out.dtype() == kInt64 ? out : backend::new_buffer({n}, kInt64, device, op);

  // random_(min, max) of the key type: max - min values from min (the top one never drawn).
  const uint64_t range =
      wide ? std::numeric_limits<uint64_t>::max() : uint64_t(std::numeric_limits<uint32_t>::max());
  const int64_t low =
      wide ? std::numeric_limits<int64_t>::min() : int64_t(std::numeric_limits<int32_t>::min());
  w.fill_keys = plan_random_launch(
      op, w.keys, {.dist = kernels::Distribution::random32, .range = range, .low = low}, gen,
      max_blocks);

  const uint32_t threads = kernels::kRandpermThreads;
  const auto blocks = uint32_t((n + threads - 1) / threads);
  w.fill_iota = {.phase = kernels::RandpermLaunch::Phase::iota,
                 .key_bytes = 0,
                 .n = n,
                 .blocks = std::min<uint32_t>(blocks, 65536),  // the grid-stride loop does the rest
                 .threads = threads,
                 .keys = nullptr,
                 .mask = 0,
                 .perm = w.iota.data_ptr<int64_t>(),
                 .seed = 0,
                 .offset = 0};
  w.sort = {.n = n,
            .key_bytes = int32_t(itemsize(key_dtype)),
            .bits = w.bits,
            .keys_in = w.keys.data_ptr(),
            .keys_out = w.sorted_keys.data_ptr(),
            .values_in = w.iota.data_ptr<int64_t>(),
            .values_out = w.perm.data_ptr<int64_t>(),
            .scratch = nullptr,
            .scratch_bytes = 0};
  // After the keys' draw, as PyTorch's philox_cuda_state(n) comes after random_'s.
  const PhiloxInputs inputs = gen.philox_inputs(uint64_t(n));
  w.islands = {.phase = kernels::RandpermLaunch::Phase::islands,
               .key_bytes = int32_t(itemsize(key_dtype)),
               .n = n,
               .blocks = blocks,  // one thread per element: each may lead an island
               .threads = threads,
               .keys = w.sorted_keys.data_ptr(),
               .mask = w.bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << w.bits) - 1,
               .perm = w.perm.data_ptr<int64_t>(),
               .seed = inputs.seed,
               .offset = inputs.offset};
  if (out.dtype() != kInt64) w.copy_out = plan_copy_launch(out, w.perm);
  return w;
}

}  // namespace ember::cuda
