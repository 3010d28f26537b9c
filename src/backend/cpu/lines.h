// A contiguous tensor seen as `outer * inner` lines of length n along one dim (stride inner):
// the decomposition of the kernels that work along a dim (softmax, scans, sort).
#pragma once

#include <algorithm>
#include <cstdint>

#include "backend/cpu/level.h"
#include "core/parallel.h"
#include "ember/tensor.h"

namespace EMBER_CPU_NS {

struct Lines {
  int64_t outer = 1, n = 1, inner = 1;
  int64_t count() const { return outer * inner; }
  // Offset of line r's first element in a tensor whose dim has length len.
  int64_t base(int64_t r, int64_t len) const { return (r / inner) * len * inner + r % inner; }
};

/// The lines of `t` along `dim` (a 0-d tensor is one line of one element).
inline Lines lines_of(const Tensor& t, int64_t dim) {
  Lines l;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d < dim) l.outer *= t.size(d);
    else if (d == dim) l.n = t.size(d);
    else l.inner *= t.size(d);
  }
  return l;
}

/// Runs f(begin, end) over ranges of `count` items in parallel; `work` is the cost of one item.
template <class F>
void for_lines(int64_t count, int64_t work, const F& f) {
  parallel_for(0, count, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(1, work)), f);
}

}  // namespace EMBER_CPU_NS
