// c10::ArrayRef<T>: a non-owning view of values (from one value, a braced list, a vector, an
// array or a pointer and a count). c10::IntArrayRef and ArrayRef<int64_t> are ember's
// IntArrayRef itself, so sizes pass between the layer and ember unchanged; other element types
// (ArrayRef<double> for Normalize's means, ArrayRef<size_t> for batch indices) get the view below.
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <type_traits>
#include <vector>

#include "ember/int_array.h"

namespace c10 {

namespace detail {

template <class T>
class ArrayRefOf {
 public:
  using value_type = T;
  using iterator = const T*;
  using const_iterator = const T*;
  using size_type = size_t;

  constexpr ArrayRefOf() = default;
  constexpr ArrayRefOf(const T* data, size_t size) : data_(data), size_(size) {}
  constexpr ArrayRefOf(const T* begin, const T* end) : data_(begin), size_(end - begin) {}
  /// One value, viewed as a list of one (valid as long as the value is, e.g. for the call).
  constexpr ArrayRefOf(const T& one) : data_(&one), size_(1) {}  // NOLINT: implicit, as c10's
  template <class A>
  ArrayRefOf(const std::vector<T, A>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT
  template <size_t N>
  constexpr ArrayRefOf(const std::array<T, N>& a) : data_(a.data()), size_(N) {}  // NOLINT
  template <size_t N>
  constexpr ArrayRefOf(const T (&a)[N]) : data_(a), size_(N) {}  // NOLINT
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  // A braced list lives for the full expression it appears in, so this view is for calls.
  constexpr ArrayRefOf(std::initializer_list<T> l)  // NOLINT
      : data_(l.begin()), size_(l.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  constexpr const T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr const T* begin() const { return data_; }
  constexpr const T* end() const { return data_ + size_; }
  constexpr const T& operator[](size_t i) const { return data_[i]; }
  constexpr const T& front() const { return data_[0]; }
  constexpr const T& back() const { return data_[size_ - 1]; }
  /// The views of the first `n`, or of `n` from `start`.
  constexpr ArrayRefOf slice(size_t start, size_t n) const { return {data_ + start, n}; }
  constexpr ArrayRefOf slice(size_t start) const { return {data_ + start, size_ - start}; }
  std::vector<T> vec() const { return {begin(), end()}; }
  operator std::vector<T>() const { return vec(); }  // NOLINT

  friend bool operator==(ArrayRefOf a, ArrayRefOf b) {
    if (a.size_ != b.size_) return false;
    for (size_t i = 0; i < a.size_; ++i) {
      if (!(a.data_[i] == b.data_[i])) return false;
    }
    return true;
  }

 private:
  const T* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace detail

template <class T>
using ArrayRef =
    std::conditional_t<std::is_same_v<T, int64_t>, ember::IntArrayRef, detail::ArrayRefOf<T>>;
using IntArrayRef = ember::IntArrayRef;

}  // namespace c10
