// IntArrayRef: a non-owning view of int64 values (sizes, strides, dims), and DimVector, the small
// inline vector that tensors use to hold them without touching the heap for up to 6 dims.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iosfwd>
#include <vector>

#include "ember/error.h"

namespace ember {

class IntArrayRef {
 public:
  IntArrayRef() = default;
  IntArrayRef(const int64_t* data, size_t size) : data_(data), size_(size) {}
  /// One value, as LibTorch's ArrayRef: zeros(5) is zeros({5}). Valid as long as `one` is (for a
  /// literal argument, the call).
  IntArrayRef(const int64_t& one) : data_(&one), size_(1) {}  // NOLINT
  IntArrayRef(const std::vector<int64_t>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT
// GCC warns that the list's array dies with the full expression; that is the intended use.
// Clang has no such warning and would warn about the unknown group instead.
#if !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  // Like std::span over a braced list: valid for the full expression it appears in (a call).
  IntArrayRef(std::initializer_list<int64_t> l) : data_(l.begin()), size_(l.size()) {}  // NOLINT
#if !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  const int64_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  int64_t operator[](size_t i) const { return data_[i]; }
  int64_t front() const { return data_[0]; }
  int64_t back() const { return data_[size_ - 1]; }
  std::vector<int64_t> vec() const { return {begin(), end()}; }
  /// The m values from position n (LibTorch's ArrayRef::slice).
  IntArrayRef slice(size_t n, size_t m) const {
    EMBER_CHECK(n + m <= size_, "IntArrayRef::slice", "cannot take ", m, " values from position ",
                n, " of ", size_);
    return {data_ + n, m};
  }
  /// The values after the first n.
  IntArrayRef slice(size_t n) const {
    EMBER_CHECK(n <= size_, "IntArrayRef::slice", "cannot drop ", n, " of ", size_, " values");
    return {data_ + n, size_ - n};
  }
  operator std::vector<int64_t>() const { return vec(); }  // NOLINT

  friend bool operator==(IntArrayRef a, IntArrayRef b) {
    return a.size_ == b.size_ && (a.size_ == 0 || std::memcmp(a.data_, b.data_, a.size_ * 8) == 0);
  }

 private:
  const int64_t* data_ = nullptr;
  size_t size_ = 0;
};

/// Prints "[2, 3]".
std::ostream& operator<<(std::ostream& os, IntArrayRef a);

/// Product of the values (1 for an empty list).
inline int64_t prod(IntArrayRef a) {
  int64_t n = 1;
  for (int64_t v : a) n *= v;
  return n;
}

class DimVector {
 public:
  static constexpr size_t kInline = 6;
  DimVector() = default;
  explicit DimVector(size_t n, int64_t value = 0) { assign(n, value); }
  DimVector(IntArrayRef a) { assign(a); }  // NOLINT
  DimVector(std::initializer_list<int64_t> l) { assign(IntArrayRef(l)); }
  DimVector(const DimVector& o) { assign(IntArrayRef(o)); }
  DimVector& operator=(const DimVector& o) {
    if (this != &o) assign(IntArrayRef(o));
    return *this;
  }
  DimVector(DimVector&& o) noexcept { steal(o); }
  DimVector& operator=(DimVector&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  ~DimVector() { release(); }

  operator IntArrayRef() const { return {data_, size_}; }  // NOLINT
  int64_t* data() { return data_; }
  const int64_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  int64_t& operator[](size_t i) { return data_[i]; }
  int64_t operator[](size_t i) const { return data_[i]; }
  int64_t* begin() { return data_; }
  int64_t* end() { return data_ + size_; }
  const int64_t* begin() const { return data_; }
  const int64_t* end() const { return data_ + size_; }
  int64_t& back() { return data_[size_ - 1]; }
  std::vector<int64_t> vec() const { return {begin(), end()}; }

  void resize(size_t n, int64_t value = 0) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = value;
    size_ = n;
  }
  void push_back(int64_t v) {
    if (size_ == capacity_) reserve(capacity_ * 2);
    data_[size_++] = v;
  }
  void insert(size_t pos, int64_t v) {
    push_back(0);
    std::memmove(data_ + pos + 1, data_ + pos, (size_ - 1 - pos) * 8);
    data_[pos] = v;
  }
  void erase(size_t pos) {
    std::memmove(data_ + pos, data_ + pos + 1, (size_ - 1 - pos) * 8);
    --size_;
  }
  void assign(IntArrayRef a) {
    reserve(a.size());
    if (!a.empty()) std::memmove(data_, a.data(), a.size() * 8);
    size_ = a.size();
  }
  void assign(size_t n, int64_t value) {
    size_ = 0;
    resize(n, value);
  }
  void reserve(size_t n) {
    if (n <= capacity_) return;
    auto* p = new int64_t[n];
    if (size_) std::memcpy(p, data_, size_ * 8);
    release();
    data_ = p;
    capacity_ = n;
  }

  friend bool operator==(const DimVector& a, const DimVector& b) {
    return IntArrayRef(a) == IntArrayRef(b);
  }

 private:
  void release() {
    if (data_ != inline_) delete[] data_;
    data_ = inline_;
    capacity_ = kInline;
  }
  void steal(DimVector& o) {
    if (o.data_ == o.inline_) {
      std::memcpy(inline_, o.inline_, o.size_ * 8);
      data_ = inline_;
      capacity_ = kInline;
    } else {
      data_ = o.data_;
      capacity_ = o.capacity_;
      o.data_ = o.inline_;
      o.capacity_ = kInline;
    }
    size_ = o.size_;
    o.size_ = 0;
  }

  int64_t inline_[kInline];
  int64_t* data_ = inline_;
  size_t size_ = 0;
  size_t capacity_ = kInline;
};

}  // namespace ember
