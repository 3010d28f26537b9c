// Memory overlap between tensors (src/ops/memory_overlap.h).
#include "ops/memory_overlap.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "ember/error.h"
#include "ember/tensor_impl.h"

namespace ember {
namespace {

// [first byte, last byte + 1) that a tensor's elements can touch.
std::pair<uintptr_t, uintptr_t> byte_extent(const Tensor& t) {
  const auto base = reinterpret_cast<uintptr_t>(t.impl()->data());
  int64_t lo = 0, hi = 0;
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t span = (t.sizes()[d] - 1) * t.strides()[d];
    (span < 0 ? lo : hi) += span;
  }
  return {base + lo * t.element_size(), base + (hi + 1) * t.element_size()};
}

}  // namespace

void check_no_internal_overlap(const Tensor& t, const char* op) {
  for (int64_t d = 0; d < t.dim(); ++d)
    EMBER_CHECK(t.strides()[d] != 0 || t.sizes()[d] <= 1, op,
                "unsupported operation: more than one element of the written-to tensor refers to "
                "a single memory location. Please clone() the tensor before performing the "
                "operation.");
}

void fail_input_overlaps_output(const char* op) {
  fail(op, "unsupported operation: some elements of the input tensor and the written-to tensor "
           "refer to a single memory location. Please clone() the tensor before performing the "
           "operation.");
}

bool may_overlap(const Tensor& a, const Tensor& b) {
  if (a.numel() == 0 || b.numel() == 0 || a.storage().get() != b.storage().get()) return false;
  const auto [a0, a1] = byte_extent(a);
  const auto [b0, b1] = byte_extent(b);
  return a0 < b1 && b0 < a1;
}

bool same_elements(const Tensor& a, const Tensor& b) {
  return a.impl()->data() == b.impl()->data() && a.sizes() == b.sizes() &&
         a.strides() == b.strides();
}

bool is_non_overlapping_and_dense(const Tensor& t) {
  if (t.is_contiguous()) return true;
  DimVector order;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.sizes()[d] != 1) order.push_back(d);
  std::sort(order.begin(), order.end(),
            [&](int64_t a, int64_t b) { return t.strides()[a] < t.strides()[b]; });
  int64_t expected = 1;
  for (int64_t d : order) {
    if (t.strides()[d] != expected) return false;
    expected *= t.sizes()[d];
  }
  return true;
}

bool partially_overlaps(const Tensor& dst, const Tensor& src) {
  if (dst.numel() == 0 || src.numel() == 0 || dst.storage().get() != src.storage().get() ||
      !is_non_overlapping_and_dense(dst) || !is_non_overlapping_and_dense(src))
    return false;
  const auto d0 = reinterpret_cast<uintptr_t>(dst.impl()->data()), d1 = d0 + size_t(dst.nbytes());
  const auto s0 = reinterpret_cast<uintptr_t>(src.impl()->data()), s1 = s0 + size_t(src.nbytes());
  if (d0 == s0 && d1 == s1) return dst.strides() != src.strides();
  return d0 < s1 && s0 < d1;
}

}  // namespace ember
