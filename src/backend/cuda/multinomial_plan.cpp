// See multinomial_plan.h.
#include "backend/cuda/multinomial_plan.h"

#include <algorithm>

#include "backend/buffers.h"
#include "backend/cuda/copy_plan.h"
#include "backend/cuda/reduce_plan.h"
#include "backend/cuda/scan_plan.h"

namespace ember::cuda {

MultinomialWork plan_multinomial(const Tensor& probs, Tensor record) {
  const char* op = "multinomial";
  EMBER_CHECK(probs.dim() == 1 || probs.dim() == 2, op, "prob_dist must be 1 or 2 dim");
  const int64_t rows = probs.dim() == 1 ? 1 : probs.size(0), cols = probs.size(-1);
  MultinomialWork w;
  // probs' shape, read by the kernels as (rows, cols) rows.
  w.dist = backend::new_buffer(probs.sizes(), probs.dtype(), probs.device(), op);
  w.prefix = backend::new_buffer(probs.sizes(), probs.dtype(), probs.device(), op);
  w.record = std::move(record);
  w.copy = plan_copy_launch(w.dist, probs);
  kernels::RenormRowsLaunch& r = w.renorm;
  r.type = storage_type(probs.dtype(), op);
  EMBER_CHECK(r.type == kernels::Type::float32 || r.type == kernels::Type::float64 ||
                  r.type == kernels::Type::float16 || r.type == kernels::Type::bfloat16,
              op, "multinomial only supports floating-point dtypes for input, got: ",
              probs.dtype());
  r.rows = rows;
  r.cols = cols;
  r.dist = static_cast<char*>(w.dist.data_ptr());
  r.bad = w.record.data_ptr<int64_t>();
  // renormRows's grid: a block a row (at most 65535 blocks striding over more), a warp per 32
  // categories up to 1024 threads.
  r.threads = block_threads(cols, 1024);
  r.blocks = uint32_t(std::clamp<int64_t>(rows, 1, 65535));
  w.scan = plan_scan_launch(op, w.prefix, w.dist, probs.dim() - 1, /*prod=*/false);
  return w;
}

void multinomial_error(int64_t recorded, int64_t entry) {
  if (!recorded) return;
  const char* op = "multinomial";
  switch (entry % 4) {
    case 1: fail(op, "invalid multinomial distribution (encountering probability entry < 0)");
    case 2:
      fail(op, "invalid multinomial distribution (encountering probability entry = infinity or "
               "NaN)");
    default: fail(op, "invalid multinomial distribution (sum of probabilities <= 0)");
  }
}

kernels::MultinomialLaunch plan_multinomial_samples(const MultinomialWork& w, const Tensor& result,
                                                    PhiloxGenerator& gen) {
  const char* op = "multinomial";
  kernels::MultinomialLaunch l{};
  l.type = w.renorm.type;
  l.rows = w.renorm.rows;
  l.cols = w.renorm.cols;
  l.samples = result.numel() / std::max<int64_t>(l.rows, 1);
  EMBER_CHECK(result.is_contiguous() && result.dtype() == kInt64 &&
                  result.numel() == l.rows * l.samples && l.samples > 0,
              op, "expected a contiguous int64 result of ", l.rows, " rows of samples, got ",
              result.sizes(), " ", result.dtype());
  l.prefix = static_cast<const char*>(w.prefix.data_ptr());
  l.dist = static_cast<const char*>(w.dist.data_ptr());
  l.out = result.data_ptr<int64_t>();
  l.threads = kernels::kMultinomialThreads;
  l.blocks_x = uint32_t((l.samples - 1) / l.threads + 1);
  l.blocks_y = uint32_t(std::min<int64_t>(l.rows, 65535));
  l.blocks = l.blocks_x * l.blocks_y;
  // A thread has at most one sample a row (ceil(samples / 128) blocks across), so it draws one
  // curand_uniform4 per row it serves: PyTorch advances the offset by 4 per such row.
  const PhiloxInputs in = gen.philox_inputs(uint64_t((l.rows - 1) / l.blocks_y + 1) * 4);
  l.seed = in.seed;
  l.offset = in.offset;
  return l;
}

}  // namespace ember::cuda
