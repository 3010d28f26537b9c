// The reduction family's kernels (src/ops/reduce.cpp, reduce_index.cpp): what a backend
// implements so that sum/mean/prod/amax/amin/all/any/count_nonzero/norm, var/std, aminmax and
// max/min/argmax/argmin along a dim run on its device. The front end has already checked the
// arguments, chosen the output dtype, normalised the dims and allocated the outputs on the
// input's device; keepdim is applied by the front end afterwards (a view).
#pragma once

#include <cstdint>

#include "ember/tensor.h"

namespace ember::backend {

/// A reduction of `in` (any layout) over `dims` (normalised, sorted; empty only for a 0-d `in`)
/// into `out`: contiguous, the kept dims in order, of the dtype the front end chose (the input's,
/// int64 for sums of integers and bools, bool for all/any).
struct ReduceCall {
  const char* op;
  const Tensor& out;
  const Tensor& in;
  IntArrayRef dims;
  double arg = 0;  // mean: the divisor (elements per output); norm: p (non-zero, may be +-inf)
};
using ReduceFn = void (*)(const ReduceCall&);

/// var/std over `dims`: `var` gets sum((x - mean)^2) / max(0, n - correction), or its square
/// root when `take_sqrt`; `mean`, when defined, the mean (NaN for n = 0). Both like ReduceCall's
/// out, in the input's (floating) dtype.
struct MomentsCall {
  const char* op;
  const Tensor& var;
  const Tensor& mean;
  const Tensor& in;
  IntArrayRef dims;
  int64_t correction;
  bool take_sqrt;
};
using MomentsFn = void (*)(const MomentsCall&);

/// aminmax over `dims`: `lo` and `hi` like ReduceCall's out, in the input's dtype.
using MinMaxFn = void (*)(const char* op, const Tensor& lo, const Tensor& hi, const Tensor& in,
                          IntArrayRef dims);

/// Max/min along the last dim of `rows` (contiguous, M x D, D > 0): values[m] and the position
/// indices[m] (int64) of the first extremum of row m, where a NaN beats every number.
using ArgReduceFn = void (*)(const char* op, const Tensor& values, const Tensor& indices,
                             const Tensor& rows);

/// One backend's reduction kernels; a null entry is `[op] no kernel for <device>`.
struct ReduceKernels {
  ReduceFn sum = nullptr;      // also count_nonzero (bool input, int64 out)
  ReduceFn nansum = nullptr;   // floating
  ReduceFn mean = nullptr;     // floating; arg: divisor
  ReduceFn prod = nullptr;
  ReduceFn amax = nullptr;     // also any (bool in, bool out)
  ReduceFn amin = nullptr;     // also all (bool in, bool out)
  ReduceFn norm = nullptr;     // floating; (sum |x|^p)^(1/p), max|x| / min|x| for p = +inf / -inf
  MomentsFn var = nullptr;     // var, std, var_mean, std_mean
  MinMaxFn aminmax = nullptr;
  ArgReduceFn max_dim = nullptr;  // max(dim), argmax
  ArgReduceFn min_dim = nullptr;  // min(dim), argmin
};

}  // namespace ember::backend
