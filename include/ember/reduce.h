// Reductions as free functions (the Tensor methods are in tensor.h): sums, means, extrema,
// norms, variance, logsumexp, softmax. The scans are in scan.h, which this header includes.
#pragma once

#include <optional>
#include <tuple>

#include "ember/scan.h"
#include "ember/tensor.h"

namespace ember {

inline Tensor sum(const Tensor& t, IntArrayRef dims = {}, bool keepdim = false,
                  std::optional<Dtype> dtype = {}) {
  return t.sum(dims, keepdim, dtype);
}
inline Tensor mean(const Tensor& t, IntArrayRef dims = {}, bool keepdim = false) {
  return t.mean(dims, keepdim);
}
inline Tensor amax(const Tensor& t, IntArrayRef dims = {}, bool keepdim = false) {
  return t.amax(dims, keepdim);
}
inline Tensor amin(const Tensor& t, IntArrayRef dims = {}, bool keepdim = false) {
  return t.amin(dims, keepdim);
}
/// (min, max) in one pass, over every element or along dim.
std::tuple<Tensor, Tensor> aminmax(const Tensor& t, std::optional<int64_t> dim = {},
                                   bool keepdim = false);
inline Tensor argmax(const Tensor& t, std::optional<int64_t> dim = {}, bool keepdim = false) {
  return t.argmax(dim, keepdim);
}
inline Tensor argmin(const Tensor& t, std::optional<int64_t> dim = {}, bool keepdim = false) {
  return t.argmin(dim, keepdim);
}
/// torch.linalg.vector_norm: p = 0, 1, 2, inf, -inf or any real p.
Tensor linalg_vector_norm(const Tensor& t, double p = 2, IntArrayRef dims = {},
                          bool keepdim = false);
inline Tensor var(const Tensor& t, std::optional<IntArrayRef> dims = {}, int64_t correction = 1,
                  bool keepdim = false) {
  return t.var(dims, correction, keepdim);
}
inline Tensor std(const Tensor& t, std::optional<IntArrayRef> dims = {}, int64_t correction = 1,
                  bool keepdim = false) {
  return t.std(dims, correction, keepdim);
}
/// (var, mean) / (std, mean) from one pass over the input.
std::tuple<Tensor, Tensor> var_mean(const Tensor& t, std::optional<IntArrayRef> dims = {},
                                    int64_t correction = 1, bool keepdim = false);
std::tuple<Tensor, Tensor> std_mean(const Tensor& t, std::optional<IntArrayRef> dims = {},
                                    int64_t correction = 1, bool keepdim = false);
inline Tensor logsumexp(const Tensor& t, IntArrayRef dims, bool keepdim = false) {
  return t.logsumexp(dims, keepdim);
}
Tensor softmax(const Tensor& t, int64_t dim, std::optional<Dtype> dtype = {});
Tensor log_softmax(const Tensor& t, int64_t dim, std::optional<Dtype> dtype = {});

}  // namespace ember
