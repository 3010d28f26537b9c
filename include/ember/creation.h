// Factory functions: tensor() from nested lists, filled tensors, ranges, random tensors, *_like.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

#include "ember/generator.h"
#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember {

/// A nested initializer list of numbers: 42, {1, 2, 3}, {{1, 2}, {3, 4}}.
class NestedList {
 public:
  NestedList(Scalar value) : value_(value), is_scalar_(true) {}  // NOLINT
  template <class T>
    requires std::is_arithmetic_v<T>
  NestedList(T value) : NestedList(Scalar(value)) {}  // NOLINT
  NestedList(std::initializer_list<NestedList> items) : items_(items) {}

  bool is_scalar() const { return is_scalar_; }
  Scalar value() const { return value_; }
  const std::vector<NestedList>& items() const { return items_; }

 private:
  Scalar value_;
  bool is_scalar_ = false;
  std::vector<NestedList> items_;
};

/// torch.tensor: dtype inferred (integers -> int64, floats -> float32, bools -> bool) unless given.
Tensor tensor(const NestedList& data, TensorOptions options = {});
Tensor tensor(const NestedList& data, Dtype dtype);
/// A 1-D tensor copying `values`, optionally reshaped to `sizes`.
template <class T>
Tensor from_vector(const std::vector<T>& values, std::optional<std::vector<int64_t>> sizes = {},
                   TensorOptions options = {});
/// Wraps memory ember does not own; `deleter(data, context)` runs when the last view goes.
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, Dtype dtype,
                 DeleterFn deleter = nullptr, void* context = nullptr);
/// LibTorch's from_blob(data, sizes, options): contiguous, float32 unless options say otherwise
/// (the CPU only); ember does not own the memory.
inline Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions options = {}) {
  Tensor t = from_blob(data, sizes, contiguous_strides(sizes), options.dtype.value_or(kFloat32));
  return options.requires_grad ? t.requires_grad_(true) : t;
}

Tensor empty(IntArrayRef sizes, TensorOptions options = {});
Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, TensorOptions options = {});
Tensor zeros(IntArrayRef sizes, TensorOptions options = {});
Tensor ones(IntArrayRef sizes, TensorOptions options = {});
/// dtype follows the value (bool, int64 or float32) unless given, as torch.full.
Tensor full(IntArrayRef sizes, Scalar value, TensorOptions options = {});
Tensor eye(int64_t n, std::optional<int64_t> m = std::nullopt, TensorOptions options = {});
Tensor eye(int64_t n, TensorOptions options);

/// [start, end) in steps; int64 when all arguments are integers, else the default float dtype.
Tensor arange(Scalar end, TensorOptions options = {});
Tensor arange(Scalar start, Scalar end, Scalar step = 1, TensorOptions options = {});
Tensor linspace(Scalar start, Scalar end, int64_t steps, TensorOptions options = {});
Tensor logspace(Scalar start, Scalar end, int64_t steps, double base = 10.0,
                TensorOptions options = {});

/// Uniform on [0, 1).
Tensor rand(IntArrayRef sizes, RandomOptions options = {});
/// Standard normal.
Tensor randn(IntArrayRef sizes, RandomOptions options = {});
/// Integers uniform on [low, high); int64 unless given.
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, RandomOptions options = {});
Tensor randint(int64_t high, IntArrayRef sizes, RandomOptions options = {});
/// A random permutation of 0..n-1.
Tensor randperm(int64_t n, RandomOptions options = {});

Tensor empty_like(const Tensor& t, TensorOptions options = {});
Tensor zeros_like(const Tensor& t, TensorOptions options = {});
Tensor ones_like(const Tensor& t, TensorOptions options = {});
Tensor full_like(const Tensor& t, Scalar value, TensorOptions options = {});
Tensor rand_like(const Tensor& t, RandomOptions options = {});
Tensor randn_like(const Tensor& t, RandomOptions options = {});
Tensor randint_like(const Tensor& t, int64_t low, int64_t high, RandomOptions options = {});

// In-place random fills (used by nn::init and dropout).
Tensor& uniform_(Tensor& t, double from = 0.0, double to = 1.0, Generator* gen = nullptr);
Tensor& normal_(Tensor& t, double mean = 0.0, double std = 1.0, Generator* gen = nullptr);
Tensor& random_(Tensor& t, int64_t from, int64_t to, Generator* gen = nullptr);
Tensor& bernoulli_(Tensor& t, double p, Generator* gen = nullptr);
/// Exponential draws with rate lambd (torch.Tensor.exponential_).
Tensor& exponential_(Tensor& t, double lambd = 1.0, Generator* gen = nullptr);

/// Indices drawn from the rows of `input` (1-d or 2-d, non-negative weights, need not sum to 1):
/// (num_samples) or (rows, num_samples), int64. Without replacement, an index once drawn is not
/// drawn again in its row (torch.multinomial; PyTorch's numbers for a seed).
Tensor multinomial(const Tensor& input, int64_t num_samples, bool replacement = false,
                   Generator* gen = nullptr);

// ── LibTorch's shorthand: a dtype or a device alone as the options ─────────
// zeros({2, 3}, kInt64), randn({4}, kCUDA), arange(0, 10, kFloat64): the same as {.dtype = ...}.
template <OptionsShorthand O>
Tensor empty(IntArrayRef sizes, O o) { return empty(sizes, options_from(o)); }
template <OptionsShorthand O>
Tensor zeros(IntArrayRef sizes, O o) { return zeros(sizes, options_from(o)); }
template <OptionsShorthand O>
Tensor ones(IntArrayRef sizes, O o) { return ones(sizes, options_from(o)); }
template <OptionsShorthand O>
Tensor full(IntArrayRef sizes, Scalar value, O o) { return full(sizes, value, options_from(o)); }
template <OptionsShorthand O>
Tensor eye(int64_t n, O o) { return eye(n, options_from(o)); }
template <OptionsShorthand O>
Tensor arange(Scalar end, O o) { return arange(end, options_from(o)); }
/// LibTorch's arange(start, end, options), without a step.
inline Tensor arange(Scalar start, Scalar end, TensorOptions options) {
  return arange(start, end, 1, options);
}
template <OptionsShorthand O>
Tensor arange(Scalar start, Scalar end, O o) { return arange(start, end, 1, options_from(o)); }
template <OptionsShorthand O>
Tensor arange(Scalar start, Scalar end, Scalar step, O o) {
  return arange(start, end, step, options_from(o));
}
template <OptionsShorthand O>
Tensor linspace(Scalar start, Scalar end, int64_t steps, O o) {
  return linspace(start, end, steps, options_from(o));
}
template <OptionsShorthand O>
Tensor tensor(const NestedList& data, O o) { return tensor(data, options_from(o)); }
template <OptionsShorthand O>
Tensor from_blob(void* data, IntArrayRef sizes, O o) { return from_blob(data, sizes, options_from(o)); }
template <OptionsShorthand O>
Tensor empty_like(const Tensor& t, O o) { return empty_like(t, options_from(o)); }
template <OptionsShorthand O>
Tensor zeros_like(const Tensor& t, O o) { return zeros_like(t, options_from(o)); }
template <OptionsShorthand O>
Tensor ones_like(const Tensor& t, O o) { return ones_like(t, options_from(o)); }
template <OptionsShorthand O>
Tensor full_like(const Tensor& t, Scalar value, O o) { return full_like(t, value, options_from(o)); }

namespace detail {
inline RandomOptions random_options_from(TensorOptions o) {
  return {.dtype = o.dtype, .device = o.device, .requires_grad = o.requires_grad};
}
}  // namespace detail
template <OptionsShorthand O>
Tensor rand(IntArrayRef sizes, O o) { return rand(sizes, detail::random_options_from(options_from(o))); }
template <OptionsShorthand O>
Tensor randn(IntArrayRef sizes, O o) { return randn(sizes, detail::random_options_from(options_from(o))); }
template <OptionsShorthand O>
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, O o) {
  return randint(low, high, sizes, detail::random_options_from(options_from(o)));
}
template <OptionsShorthand O>
Tensor randint(int64_t high, IntArrayRef sizes, O o) {
  return randint(high, sizes, detail::random_options_from(options_from(o)));
}
template <OptionsShorthand O>
Tensor randperm(int64_t n, O o) { return randperm(n, detail::random_options_from(options_from(o))); }

}  // namespace ember
