// nn.functional's distances between two batches of vectors: cosine_similarity and
// pairwise_distance.
#include <algorithm>
#include <vector>

#include "ember/math.h"
#include "ember/nn/functional/layers.h"
#include "ember/promotion.h"
#include "ember/reduce.h"
#include "ember/shape.h"

namespace ember::nn::functional {

Tensor cosine_similarity(const Tensor& x1_in, const Tensor& x2_in, CosineSimilarityFuncOptions o) {
  const char* op = "cosine_similarity";
  const Dtype common = result_type(x1_in, x2_in);
  EMBER_CHECK(is_floating_point(common), op,
              "expected common dtype to be floating point, yet common dtype is ", common);
  // Integer inputs are promoted first; norms need a floating type.
  const Tensor a = is_floating_point(x1_in.dtype()) ? x1_in : x1_in.to(common);
  const Tensor b = is_floating_point(x2_in.dtype()) ? x2_in : x2_in.to(common);
  const std::vector<Tensor> xs = broadcast_tensors({a, b});
  const int64_t dim = wrap_dim(o.dim, std::max<int64_t>(xs[0].dim(), 1), op);
  // PyTorch 1.13: each input is divided by its own norm (clamped at eps) before the dot product,
  // which keeps the result in [-1, 1].
  const Tensor n1 = linalg_vector_norm(xs[0], 2, {dim}, true).clamp_min(o.eps);
  const Tensor n2 = linalg_vector_norm(xs[1], 2, {dim}, true).clamp_min(o.eps);
  return ((xs[0] / n1) * (xs[1] / n2)).sum(dim);
}

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, PairwiseDistanceFuncOptions o) {
  const int64_t out_dim = std::max(x1.dim(), x2.dim());
  const int64_t inner = out_dim - 1;
  const Tensor d = x1 - x2 + o.eps;
  if (d.dim() == 0) return d.abs();  // norm over a 0-d tensor: the absolute value
  return linalg_vector_norm(d, o.p, {inner}, o.keepdim);
}

}  // namespace ember::nn::functional
