// LibTorch's TensorAccessor: element access through a tensor's sizes and strides for loops on
// the CPU, without a bounds check per element (as LibTorch's):
//   auto a = t.accessor<float, 2>();
//   for (int64_t i = 0; i < a.size(0); ++i) for (int64_t j = 0; j < a.size(1); ++j) a[i][j] *= 2;
// The tensor must stay alive while the accessor is used (accessor() on a temporary is deleted).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ember/error.h"
#include "ember/tensor.h"

namespace ember {

template <class T, size_t N>
class TensorAccessor {
  static_assert(N > 0, "TensorAccessor<T, N>: use item<T>() for a 0-dim tensor");

 public:
  TensorAccessor(T* data, const int64_t* sizes, const int64_t* strides)
      : data_(data), sizes_(sizes), strides_(strides) {}

  /// The (N-1)-dim accessor of index i along the first dim, or for N == 1 the element.
  decltype(auto) operator[](int64_t i) const {
    if constexpr (N == 1)
      return data_[i * strides_[0]];
    else
      return TensorAccessor<T, N - 1>(data_ + i * strides_[0], sizes_ + 1, strides_ + 1);
  }
  int64_t size(int64_t dim) const { return sizes_[dim]; }
  int64_t stride(int64_t dim) const { return strides_[dim]; }
  IntArrayRef sizes() const { return {sizes_, N}; }
  IntArrayRef strides() const { return {strides_, N}; }
  T* data() const { return data_; }

 private:
  T* data_;
  const int64_t* sizes_;  // the tensor's own arrays: valid while it lives
  const int64_t* strides_;
};

template <class T, size_t N>
TensorAccessor<T, N> Tensor::accessor() const& {
  EMBER_CHECK(dim() == int64_t(N), "accessor", "TensorAccessor expected ", N,
              " dims but the tensor has ", dim(), " (sizes ", sizes(), ")");
  return TensorAccessor<T, N>(data_ptr<T>(), sizes().data(), strides().data());
}

}  // namespace ember
