// TORCH_ARG(T, name): LibTorch's way of declaring one option of an options struct. It declares
// the member `name_` and two accessors: `name(value)` sets it and returns the struct itself (so
// setters chain: LinearOptions(4, 5).bias(false)), `name()` reads it. Programs use it for their
// own options too, with a default after the macro:
//   struct MyOptions { TORCH_ARG(double, scale) = 1.0; };
#pragma once

#include <utility>

#define TORCH_ARG(T, name)                                        \
 public:                                                          \
  inline auto name(const T& new_##name)->decltype(*this) {        \
    this->name##_ = new_##name;                                   \
    return *this;                                                 \
  }                                                               \
  inline auto name(T&& new_##name)->decltype(*this) {             \
    this->name##_ = std::move(new_##name);                        \
    return *this;                                                 \
  }                                                               \
  inline const T& name() const noexcept { return this->name##_; } \
  inline T& name() noexcept { return this->name##_; }             \
                                                                  \
 private:                                                         \
  T name##_ /* the macro's user writes the default: TORCH_ARG(T, x) = v; */
