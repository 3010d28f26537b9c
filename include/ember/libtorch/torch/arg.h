// TORCH_ARG(type, name): one option of a LibTorch options struct. It declares the member
// `name_` (what follows the macro initializes it: TORCH_ARG(size_t, workers) = 0;), a setter
// `name(value)` that returns the struct, so setters chain (Options().a(1).b(2)), and the getter
// `name()`.
#pragma once

#include <utility>

#define TORCH_ARG(T, name)                                 \
 public:                                                   \
  auto name(const T& new_value)->decltype(*this) {         \
    this->name##_ = new_value;                             \
    return *this;                                          \
  }                                                        \
  auto name(T&& new_value)->decltype(*this) {              \
    this->name##_ = std::move(new_value);                  \
    return *this;                                          \
  }                                                        \
  const T& name() const noexcept { return this->name##_; } \
  T& name() noexcept { return this->name##_; }             \
                                                           \
 private:                                                  \
  T name##_ /* NOLINT: the initializer follows the macro */
