// How tensors share memory, for the ops that write (PyTorch's MemoryOverlap): a written-to tensor
// whose elements alias each other, and inputs that overlap what an op writes.
#pragma once

#include "ember/tensor.h"

namespace ember {

/// PyTorch's assert_no_internal_overlap for a tensor an op writes: an expanded tensor (a stride-0
/// dim of size > 1) would have several results land on one element, so it is refused with
/// `[op] unsupported operation: more than one element of the written-to tensor refers to a single
/// memory location. Please clone() the tensor before performing the operation.`
void check_no_internal_overlap(const Tensor& t, const char* op);

/// `[op] unsupported operation: some elements of the input tensor and the written-to tensor refer
/// to a single memory location. Please clone() the tensor before performing the operation.`
/// (PyTorch's assert_no_partial_overlap), for an input that overlaps what the op writes.
[[noreturn]] void fail_input_overlaps_output(const char* op);

/// True when `a` and `b` may share bytes: one storage, and their byte ranges intersect.
bool may_overlap(const Tensor& a, const Tensor& b);

/// True when `a` and `b` are the same elements: same start, sizes and strides (dtypes aside).
bool same_elements(const Tensor& a, const Tensor& b);

/// True when the elements occupy exactly numel() consecutive slots in some dim order
/// (PyTorch's is_non_overlapping_and_dense).
bool is_non_overlapping_and_dense(const Tensor& t);

/// PyTorch's get_overlap_status(dst, src) == PARTIAL, which copy_ refuses (Note [Overlapping
/// copies]): both non-overlapping and dense, sharing some but not all of their elements.
bool partially_overlaps(const Tensor& dst, const Tensor& src);

}  // namespace ember
