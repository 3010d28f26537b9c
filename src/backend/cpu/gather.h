// The CPU kernels of the gather family (src/backend/gather_kernels.h), one file each as in
// src/ops: gather.cpp (gather/scatter), index_select.cpp, take.cpp, masked.cpp; and what they
// share.
#pragma once

#include <atomic>
#include <cstdint>

#include "backend/gather_kernels.h"
#include "ember/error.h"

namespace ember::cpu {

// gather.cpp
void gather(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index);
void scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
void scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
void scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                    backend::ScatterReduce reduce, bool include_self);
// index_select.cpp
void check_index(const char* op, const Tensor& index, int64_t dim, int64_t size, bool wrap);
void index_select(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index);
void index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
               Scalar alpha);
void index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
void index_fill(const Tensor& self, int64_t dim, const Tensor& index, Scalar value);
// take.cpp
void take(const Tensor& out, const Tensor& self, const Tensor& index);
// masked.cpp
Tensor masked_select(const Tensor& self, const Tensor& mask);
void masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);
Tensor nonzero(const Tensor& t);

// The first out-of-range index met inside a parallel loop, thrown once the loop is over
// (an exception must not leave an OpenMP region).
struct BadIndex {
  std::atomic<bool> seen{false};
  int64_t value = 0;
  void record(int64_t v) {
    bool expected = false;
    if (seen.compare_exchange_strong(expected, true)) value = v;
  }
  void raise(const char* op, int64_t dim, int64_t size) const {
    if (seen)
      fail(op, "index ", value, " is out of bounds for dimension ", dim, " with size ", size);
  }
};

}  // namespace ember::cpu
