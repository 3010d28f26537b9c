// torch.multinomial: PyTorch 1.13's two algorithms, so a seed draws PyTorch's indices. Without
// replacement, or for one sample, the Gumbel trick: argmax / top-k of p / q with q ~ Exp(1) drawn
// over the whole input; with replacement, the backend's inverse-CDF sampler (one uniform per
// sample, backend/random_kernels.h).
#include <cmath>
#include <limits>

#include "backend/family_kernel.h"
#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/index_ops.h"
#include "ember/math.h"
#include "ember/reduce.h"

namespace ember {

Tensor multinomial(const Tensor& input, int64_t num_samples, bool replacement, Generator* gen) {
  const char* op = "multinomial";
  EMBER_CHECK(input.defined(), op, "undefined input");
  EMBER_CHECK(input.dim() > 0 && input.dim() <= 2, op, "prob_dist must be 1 or 2 dim");
  EMBER_CHECK(is_floating_point(input.dtype()), op,
              "multinomial only supports floating-point dtypes for input, got: ", input.dtype());
  EMBER_CHECK(num_samples > 0, op, "cannot sample n_sample <= 0 samples");
  const int64_t categories = input.size(-1);
  EMBER_CHECK(replacement || num_samples <= categories, op,
              "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  EMBER_CHECK(categories <= (int64_t(1) << 24), op, "number of categories cannot exceed 2^24");

  std::vector<int64_t> shape{num_samples};
  if (input.dim() == 2) shape.insert(shape.begin(), input.size(0));
  if (input.numel() == 0) return empty(shape, {.dtype = kInt64, .device = input.device()});
  NoGradGuard no_grad;

  if (!replacement || num_samples == 1) {
    const bool valid = (input.max() < std::numeric_limits<double>::infinity())
                           .logical_and(input.min() >= 0)
                           .item<bool>();
    EMBER_CHECK(valid, op, "probability tensor contains either `inf`, `nan` or element < 0");
    const bool zero_row = input.dim() == 1 ? (input.sum() == 0).item<bool>()
                                           : (input.sum(1) == 0).any().item<bool>();
    EMBER_CHECK(!zero_row, op, "invalid multinomial distribution (sum of probabilities <= 0)");
    Tensor q = empty_like(input);
    exponential_(q, 1.0, gen);
    q = input / q;
    if (num_samples == 1) return q.argmax(-1, /*keepdim=*/true);
    return std::get<1>(q.topk(num_samples));
  }

  Tensor result = empty(shape, {.dtype = kInt64, .device = input.device()});
  backend::kernel(op, input.device(), &backend::Backend::random,
                  &backend::RandomKernels::multinomial_with_replacement)(input, result, gen);
  return result;
}

}  // namespace ember
