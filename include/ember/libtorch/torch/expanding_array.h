// torch::ExpandingArray<D>: D sizes given as one value for all (`5` -> {5, 5}) or as a list of
// exactly D (`{3, 5}`), as LibTorch's kernel_size, stride and padding options take them. It
// reads as a std::array (`*a`, `a->at(0)`) and converts to c10::IntArrayRef.
// ExpandingArrayWithOptionalElem<D> also takes c10::nullopt entries (AdaptiveAvgPool2dOptions:
// {nullopt, 7} keeps the input's height).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <vector>

#include "ember/error.h"
#include "ember/int_array.h"

namespace torch {

template <size_t D, typename T = int64_t>
class ExpandingArray {
 public:
  /* implicit */ ExpandingArray(std::initializer_list<T> list)  // NOLINT
      : ExpandingArray(std::vector<T>(list)) {}
  /* implicit */ ExpandingArray(const std::vector<T>& list) {  // NOLINT
    if (list.size() != D)
      ember::fail("ExpandingArray", "expected ", D, " values, but got ", list.size());
    std::copy(list.begin(), list.end(), values_.begin());
  }
  /* implicit */ ExpandingArray(T single_size) { values_.fill(single_size); }         // NOLINT
  /* implicit */ ExpandingArray(const std::array<T, D>& values) : values_(values) {}  // NOLINT
  // From c10::IntArrayRef (a view of int64_t sizes), for ExpandingArray<D, int64_t>.
  template <class U = T>
  requires std::is_same_v<U, int64_t>
  /* implicit */ ExpandingArray(ember::IntArrayRef list)  // NOLINT
      : ExpandingArray(list.vec()) {}

  std::array<T, D>& operator*() { return values_; }
  const std::array<T, D>& operator*() const { return values_; }
  std::array<T, D>* operator->() { return &values_; }
  const std::array<T, D>* operator->() const { return &values_; }
  template <class U = T>
  requires std::is_same_v<U, int64_t>
  operator ember::IntArrayRef() const {  // NOLINT: as LibTorch's, for ops taking sizes
    return ember::IntArrayRef(values_.data(), D);
  }
  /// The values as a vector (ember's IntOrList and DoubleOrList are built from one).
  std::vector<T> vec() const { return std::vector<T>(values_.begin(), values_.end()); }
  size_t size() const noexcept { return D; }

 protected:
  std::array<T, D> values_;
};

template <size_t D, typename T>
std::ostream& operator<<(std::ostream& stream, const ExpandingArray<D, T>& array) {
  if (array.size() == 1) return stream << array->at(0);
  stream << '[';
  for (size_t i = 0; i < D; ++i) stream << (i ? ", " : "") << array->at(i);
  return stream << ']';
}

/// Sizes of which some may be c10::nullopt ("the input's size there").
template <size_t D, typename T = int64_t>
class ExpandingArrayWithOptionalElem : public ExpandingArray<D, std::optional<T>> {
  using Base = ExpandingArray<D, std::optional<T>>;

 public:
  using Base::Base;
  /* implicit */ ExpandingArrayWithOptionalElem(std::initializer_list<T> list)  // NOLINT
      : ExpandingArrayWithOptionalElem(std::vector<T>(list)) {}
  /* implicit */ ExpandingArrayWithOptionalElem(const std::vector<T>& list)  // NOLINT
      : Base(std::vector<std::optional<T>>(list.begin(), list.end())) {}
  /* implicit */ ExpandingArrayWithOptionalElem(T single_size)  // NOLINT
      : Base(std::optional<T>(single_size)) {}
  /* implicit */ ExpandingArrayWithOptionalElem(const ExpandingArray<D, T>& array)  // NOLINT
      : Base(std::vector<std::optional<T>>(array->begin(), array->end())) {}
};

template <size_t D, typename T>
std::ostream& operator<<(std::ostream& stream, const ExpandingArrayWithOptionalElem<D, T>& array) {
  stream << '[';
  for (size_t i = 0; i < D; ++i) {
    stream << (i ? ", " : "");
    if (array->at(i))
      stream << *array->at(i);
    else
      stream << "None";
  }
  return stream << ']';
}

}  // namespace torch
