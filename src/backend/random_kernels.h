// The random fills' kernels (src/ops/random.cpp: uniform_, normal_, random_, bernoulli_,
// exponential_ and randperm, which rand/randn/randint build on; multinomial's sampling with
// replacement, src/ops/multinomial.cpp; the fused dropout of src/ops/dropout.cpp, which only a
// device that has it installs). The front end checks the bounds against the
// dtype; a kernel draws from `gen` (the default generator when null) under its lock and visits
// the elements in TensorIterator's order, so that a seed gives PyTorch's CPU numbers
// (Note [Matching PyTorch's random streams] in backend/cpu/random.cpp).
#pragma once

#include <cstdint>

#include "ember/tensor.h"

namespace ember {
class Generator;
}

namespace ember::backend {

/// In every entry t is the defined tensor written in place (any strides, no two elements at one
/// address: `[op] unsupported operation: more than one element ...` otherwise).
struct RandomKernels {
  /// Uniform in [from, to); floating t.
  void (*uniform)(const char* op, const Tensor& t, double from, double to,
                  Generator* gen) = nullptr;
  /// Normal with mean and std; floating t.
  void (*normal)(const char* op, const Tensor& t, double mean, double std,
                 Generator* gen) = nullptr;
  /// Integers base + [0, range), converted to t's dtype.
  void (*random)(const char* op, const Tensor& t, uint64_t range, int64_t base,
                 Generator* gen) = nullptr;
  /// 1 with probability p, else 0, in t's dtype.
  void (*bernoulli)(const char* op, const Tensor& t, double p, Generator* gen) = nullptr;
  /// t (n), contiguous and numeric, = a random permutation of 0..n-1 (values exact in t's dtype).
  void (*randperm)(const Tensor& t, Generator* gen) = nullptr;
  /// Exponential with rate lambd (-log(1 - u) / lambd of a 53-bit uniform u); floating t.
  void (*exponential)(const char* op, const Tensor& t, double lambd, Generator* gen) = nullptr;
  /// multinomial with replacement: probs (categories) or (rows, categories), floating, entries
  /// checked finite and >= 0 here; result int64 (samples) or (rows, samples), contiguous.
  void (*multinomial_with_replacement)(const Tensor& probs, const Tensor& result,
                                       Generator* gen) = nullptr;
  /// PyTorch's native_dropout in one pass: y = x * mask / (1 - p), mask (bool) = the kept
  /// elements, 0 <= p < 1; y and mask are x's shape, x floating. Null where the front end drops
  /// out through bernoulli_ and mul instead (the CPU).
  void (*dropout)(const char* op, const Tensor& y, const Tensor& mask, const Tensor& x, double p,
                  Generator* gen) = nullptr;
  /// native_dropout_backward: dx = grad * mask * scale; dx and grad one floating dtype, mask
  /// bool, one shape (grad may be expanded).
  void (*dropout_backward)(const char* op, const Tensor& dx, const Tensor& grad, const Tensor& mask,
                           double scale) = nullptr;
};

}  // namespace ember::backend
