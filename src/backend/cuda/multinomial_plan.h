// The host half of the CUDA multinomial sampling (Note [CUDA multinomial] in
// multinomial_launch.h), apart from the CUDA build so that every build compiles and tests it:
// the renormalised copy of the probabilities, its prefix sums and the sampling launch. No device
// is touched.
#pragma once

#include <cstdint>

#include "backend/cuda/copy_launch.h"
#include "backend/cuda/multinomial_launch.h"
#include "backend/cuda/philox_generator.h"
#include "backend/cuda/scan_launch.h"
#include "ember/tensor.h"

namespace ember::cuda {

/// Steps (1) and (2) for probs ((categories) or (rows, categories), floating, on its device):
/// the copy into `dist`, its renormalisation (checked through `record`, two int64 zeroed), and
/// the prefix sums into `prefix`; run them, read the record (multinomial_error), then sample.
struct MultinomialWork {
  Tensor dist, prefix, record;
  kernels::CopyLaunch copy;
  kernels::RenormRowsLaunch renorm;
  kernels::ScanLaunch scan;
};
MultinomialWork plan_multinomial(const Tensor& probs, Tensor record);

/// The CPU kernel's error for a record read back ({0, 0} when the rows were fine).
void multinomial_error(int64_t recorded, int64_t entry);

/// Step (3): `result` ((rows, samples) int64, contiguous) from the generator's next Philox inputs.
kernels::MultinomialLaunch plan_multinomial_samples(const MultinomialWork& w, const Tensor& result,
                                                    PhiloxGenerator& gen);

}  // namespace ember::cuda
