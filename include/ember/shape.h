// Joining and splitting tensors: cat, stack, hstack, vstack, split, chunk, unbind, broadcasting.
#pragma once

#include <cstdint>
#include <vector>

#include "ember/tensor.h"

namespace ember {

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor concat(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor hstack(const std::vector<Tensor>& tensors);
Tensor vstack(const std::vector<Tensor>& tensors);
std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> unbind(const Tensor& t, int64_t dim = 0);

/// The broadcast shape of a and b (PyTorch's rules); throws naming both shapes if incompatible.
DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b);
std::vector<Tensor> broadcast_tensors(const std::vector<Tensor>& tensors);
Tensor broadcast_to(const Tensor& t, IntArrayRef sizes);

/// Free-function spellings of the view methods.
Tensor reshape(const Tensor& t, IntArrayRef sizes);
Tensor flatten(const Tensor& t, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor squeeze(const Tensor& t);
Tensor squeeze(const Tensor& t, int64_t dim);
Tensor unsqueeze(const Tensor& t, int64_t dim);
Tensor transpose(const Tensor& t, int64_t d0, int64_t d1);
Tensor permute(const Tensor& t, IntArrayRef dims);
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
Tensor select(const Tensor& t, int64_t dim, int64_t index);

/// Wraps a possibly negative dim into [0, ndim); throws "[op] dimension out of range".
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op);

}  // namespace ember
