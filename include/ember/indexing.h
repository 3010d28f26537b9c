// Index expressions for Tensor::index / index_put_: integers, Slice(start, stop, step) with
// Python's clamping and negative indices, None (a new axis), Ellipsis, booleans and tensors.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "ember/error.h"
#include "ember/tensor_impl.h"

namespace ember {

class Tensor;

namespace indexing {

struct NoneType {};
struct EllipsisType {};
inline constexpr NoneType None{};
inline constexpr EllipsisType Ellipsis{};

/// A slice bound: an integer or None (meaning "from the start" / "to the end" / step 1).
class SliceBound {
 public:
  SliceBound(NoneType = None) {}  // NOLINT
  template <std::integral T>
  SliceBound(T v) : value_(int64_t(v)) {}  // NOLINT
  std::optional<int64_t> value() const { return value_; }

 private:
  std::optional<int64_t> value_;
};

/// Python's start:stop:step. Slice() is ':'.
struct Slice {
  Slice(SliceBound start = None, SliceBound stop = None, SliceBound step = None)
      : start(start.value()), stop(stop.value()), step(step.value()) {}
  std::optional<int64_t> start, stop, step;
};

}  // namespace indexing

/// One entry of an index list.
class TensorIndex {
 public:
  enum class Kind : int8_t { Integer, Slice, None, Ellipsis, Boolean, Tensor };

  template <std::integral T>
    requires(!std::same_as<T, bool>)
  TensorIndex(T i) : kind_(Kind::Integer), integer_(int64_t(i)) {}  // NOLINT
  TensorIndex(bool b) : kind_(Kind::Boolean), integer_(b) {}       // NOLINT
  TensorIndex(indexing::Slice s) : kind_(Kind::Slice), slice_(s) {}  // NOLINT
  TensorIndex(indexing::NoneType) : kind_(Kind::None) {}              // NOLINT
  TensorIndex(indexing::EllipsisType) : kind_(Kind::Ellipsis) {}      // NOLINT
  /// LibTorch's "..." for Ellipsis. Any other string is an error (without this constructor a
  /// string literal would silently become the boolean index true).
  TensorIndex(const char* ellipsis) : kind_(Kind::Ellipsis) {  // NOLINT
    if (std::string_view(ellipsis) != "...")
      fail("index", "the only string index is \"...\" (Ellipsis), got \"", ellipsis, "\"");
  }
  TensorIndex(const Tensor& t);                                       // NOLINT

  Kind kind() const { return kind_; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return integer_ != 0; }
  const indexing::Slice& slice() const { return slice_; }
  Tensor tensor() const;

 private:
  Kind kind_;
  int64_t integer_ = 0;
  indexing::Slice slice_;
  intrusive_ptr<TensorImpl> tensor_;  // when kind_ == Tensor
};

}  // namespace ember
