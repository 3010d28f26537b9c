// The model and data of the "N ranks equal one process" tests (DDP, FSDP): a small MLP and 128
// samples, of which rank r of W takes rows [128 r / W, 128 (r + 1) / W).
#pragma once

#include <ember/ember.h>

#include <cstdint>

namespace ember::test {

/// Linear(12, hidden) - ReLU - Linear(hidden, hidden) - ReLU - Linear(hidden, 5), seeded.
/// (Parameter counts 312, 600, 125 at hidden 24. With hidden = 512 the middle weight is 1 MiB,
/// PyTorch's first DDP bucket, so a small bucket_cap_mb spreads the model over three buckets.)
inline nn::Sequential mlp(uint64_t seed, int64_t hidden = 24) {
  manual_seed(seed);
  return nn::Sequential(nn::Linear(12, hidden), nn::ReLU(), nn::Linear(hidden, hidden), nn::ReLU(),
                        nn::Linear(hidden, 5));
}

struct Batch {
  Tensor x, y;
};

/// The 128 samples every rank draws alike.
inline Batch full_batch() {
  manual_seed(1234);
  return {randn({128, 12}), randint(0, 5, {128})};
}

/// Rows [start, start + n) of b.
inline Batch rows(const Batch& b, int64_t start, int64_t n) {
  return {b.x.narrow(0, start, n), b.y.narrow(0, start, n)};
}

}  // namespace ember::test
