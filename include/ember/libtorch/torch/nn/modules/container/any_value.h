// torch::nn::AnyValue: one value of any copyable type, read back with get<T>() (which throws
// when T is not the stored type) or try_get<T>() (null then). AnyModule's forward passes its
// arguments and result as AnyValues, and Sequential its intermediate values.
#pragma once

#include <any>
#include <concepts>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "ember/error.h"

namespace torch::nn {

namespace detail {
/// The readable name of a type ("at::Tensor" is spelt as the compiler does: ember::Tensor).
std::string demangle(const char* mangled);
}  // namespace detail

class AnyValue {
 public:
  template <class T>
  requires(!std::same_as<std::decay_t<T>, AnyValue>) explicit AnyValue(T&& value)
      : value_(std::decay_t<T>(std::forward<T>(value))) {}

  template <class T>
  T* try_get() {
    return std::any_cast<T>(&value_);
  }
  template <class T>
  const T* try_get() const {
    return std::any_cast<T>(&value_);
  }
  template <class T>
  T get() const {
    if (const T* value = try_get<T>()) return *value;
    ember::fail("AnyValue", "Attempted to cast AnyValue to ", detail::demangle(typeid(T).name()),
                ", but its actual type is ", detail::demangle(type_info().name()));
  }
  const std::type_info& type_info() const noexcept { return value_.type(); }

 private:
  std::any value_;
};

}  // namespace torch::nn
