// Scalar: a number that is not a tensor (a Python int, float or bool), with its category.
// The category matters for promotion: tensor(int32) + 2.5 -> float32, tensor(int32) + 2 -> int32.
#pragma once

#include <concepts>
#include <cstdint>
#include <iosfwd>

#include "ember/dtype.h"

namespace ember {

class Scalar {
 public:
  enum class Kind : int8_t { Bool, Int, Float };

  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool v) : kind_(Kind::Bool) { i_ = v; }                       // NOLINT
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  Scalar(T v) : kind_(Kind::Int) { i_ = int64_t(v); }                  // NOLINT
  template <std::floating_point T>
  Scalar(T v) : kind_(Kind::Float) { d_ = double(v); }                // NOLINT
  Scalar(Half v) : Scalar(float(v)) {}                                  // NOLINT
  Scalar(BFloat16 v) : Scalar(float(v)) {}                              // NOLINT

  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_integral() const { return kind_ == Kind::Int; }
  bool is_floating_point() const { return kind_ == Kind::Float; }

  double to_double() const { return kind_ == Kind::Float ? d_ : double(i_); }
  int64_t to_int() const { return kind_ == Kind::Float ? int64_t(d_) : i_; }
  bool to_bool() const { return kind_ == Kind::Float ? d_ != 0 : i_ != 0; }
  /// The value converted to T (T is any of ember's element types).
  template <class T>
  T to() const {
    if constexpr (std::same_as<T, bool>) return to_bool();
    else if constexpr (std::integral<T>) return kind_ == Kind::Float ? T(int64_t(d_)) : T(i_);
    else return T(to_double());
  }
  /// LibTorch's names: t.item().toFloat(), toDouble(), toLong(), toInt(), toBool().
  float toFloat() const { return to<float>(); }
  double toDouble() const { return to<double>(); }
  int64_t toLong() const { return to<int64_t>(); }
  int32_t toInt() const { return to<int32_t>(); }
  bool toBool() const { return to<bool>(); }
  /// The dtype PyTorch gives a tensor made from this value: bool, int64, or the default float.
  Dtype dtype() const;

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
  };
};

std::ostream& operator<<(std::ostream& os, const Scalar& s);

}  // namespace ember
