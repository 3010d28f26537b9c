// The host half of the CUDA gather-family kernels, apart from the CUDA build so that every build
// compiles and tests it: the launches of gather/scatter/scatter_add (strided operands over the
// index's shape), index_select and the embedding lookup ((outer, size, inner) row moves) and
// index_select's index check, and the error a launch's bad-index record raises. No device is
// touched: `bad` is the record's address (two int64, zeroed) in the tensors' memory.
#pragma once

#include <cstdint>
#include <utility>

#include "backend/cuda/gather_launch.h"
#include "ember/tensor.h"

namespace ember::cuda {

/// gather (out = self at index along dim; `other` is out) or scatter/scatter_add (self at index
/// = / += other) as the backend's gather entries take them: self, index and other of one rank,
/// index int64, other of index's shape or larger (a broadcast scalar has strides 0). scatter_add
/// takes the floating dtypes: `[scatter_add] the cuda backend has no <dtype> kernel yet`.
kernels::GatherLaunch plan_gather_launch(kernels::GatherOp op, const Tensor& self, int64_t dim,
                                         const Tensor& index, const Tensor& other, int64_t* bad);

/// out = self's slices index[j] along dim (self contiguous, index int64 contiguous).
kernels::SelectLaunch plan_index_select_launch(const Tensor& out, const Tensor& self, int64_t dim,
                                               const Tensor& index, int64_t* bad);

/// out (*, D) = weight's rows (num, D) at indices (*), weight and indices contiguous.
kernels::SelectLaunch plan_embedding_launch(const Tensor& out, const Tensor& weight,
                                            const Tensor& indices, int64_t* bad);

/// take: out (index's shape) = self.flatten()[index] (self and index contiguous), negative
/// entries counting from the end.
kernels::SelectLaunch plan_take_launch(const Tensor& out, const Tensor& self, const Tensor& index,
                                       int64_t* bad);

/// The check (and wrap, with `wrap`) of index (int64, contiguous) against a dim of `size`.
kernels::CheckIndexLaunch plan_check_index_launch(const Tensor& index, int64_t size, bool wrap,
                                                  int64_t* bad);

/// index_add_ (scatter_add, source times alpha), index_copy_ (scatter) and index_fill_ (scatter
/// of a 0-d value expanded to source's shape): slice j of source along dim into slice index[j] of
/// self (contiguous); index 1-d, contiguous, int64, checked.
kernels::GatherLaunch plan_index_scatter_launch(kernels::GatherOp op, const Tensor& self,
                                                int64_t dim, const Tensor& index,
                                                const Tensor& source, double alpha, int64_t* bad);

/// embedding_backward's passes: the check of indices (n, int64 contiguous) against
/// grad_weight's rows, counting each entry into `counts` (num zeroed int64; null: no
/// scale_grad_by_freq), then grad_weight ((num, D), float32/float64) += grad's rows ((n, D),
/// contiguous) at indices, divided by their counts with `counts`, padding_idx's (-1: none) left
/// out.
std::pair<kernels::CheckIndexLaunch, kernels::GatherLaunch> plan_embedding_backward_launches(
    const Tensor& grad_weight, const Tensor& grad, const Tensor& indices, int64_t padding_idx,
    int64_t* counts, int64_t* bad);

/// `[op] index i is out of bounds for dimension dim with size n` (the CPU kernels' words) when
/// `record` (a launch's bad-index record, read back to the host) holds an entry.
void raise_bad_index(const char* op, const int64_t* record, int64_t dim, int64_t size);

}  // namespace ember::cuda
