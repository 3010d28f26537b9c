// LibTorch's Tensor::data(), which ember's own API refuses (ember/tensor.h explains the lookup
// that lets this header give it a meaning): the tensor's values without autograd history.
//   p.data().add_(-lr * p.grad())   // updates p's values; the graph does not see it
// One difference from LibTorch, loud rather than silent: ember's detach() shares the version
// counter, so changing data() in place while the original is saved for a backward still
// pending makes that backward raise ember's "modified by an inplace operation" error, where
// LibTorch would compute the gradient from the changed values.
#pragma once

#include <type_traits>

#include "ember/half.h"
#include "ember/tensor.h"

namespace ember::detail {

inline Tensor tensor_data(const Tensor& t, DataSpelling<void>) { return t.detach(); }

/// LibTorch's deprecated t.data<float>(): data_ptr<float>().
template <class T>
requires std::is_arithmetic_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16> T*
tensor_data(const Tensor& t, DataSpelling<T>) {
  return t.data_ptr<T>();
}

}  // namespace ember::detail
