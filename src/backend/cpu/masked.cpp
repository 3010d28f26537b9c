// CPU kernels of masked_select, masked_scatter_ and nonzero (src/ops/masked.cpp): order-
// preserving compaction and consumption.
#include <algorithm>
#include <vector>

#include "backend/buffers.h"
#include "backend/cpu/gather.h"
#include "backend/cpu/raw_elements.h"
#include "core/convert.h"
#include "core/dispatch.h"
#include "core/parallel.h"

namespace ember::cpu {
namespace {

// Splits [0, n) into chunks, counts with count(b, e), lets alloc(total) make the output, then
// calls write(b, e, first) with each chunk's first output slot: order-preserving compaction.
template <class Count, class Alloc, class Write>
void compact(int64_t n, const Count& count, const Alloc& alloc, const Write& write) {
  const int64_t chunks = std::clamp<int64_t>(n / kGrainSize, 1, get_num_threads());
  const int64_t per = (n + chunks - 1) / std::max<int64_t>(chunks, 1);
  std::vector<int64_t> start(size_t(chunks) + 1, 0);
  parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c)
      start[size_t(c) + 1] = count(c * per, std::min(n, (c + 1) * per));
  });
  for (int64_t c = 0; c < chunks; ++c) start[size_t(c) + 1] += start[size_t(c)];
  alloc(start.back());
  parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) write(c * per, std::min(n, (c + 1) * per), start[size_t(c)]);
  });
}

}  // namespace

Tensor masked_select(const Tensor& s, const Tensor& m) {
  const bool* mv = m.data_ptr<bool>();
  Tensor out;
  by_size(s.element_size(), [&]<class E>() {
    const E* src = static_cast<const E*>(s.data_ptr());
    compact(
        s.numel(), [&](int64_t b, int64_t e) { return int64_t(std::count(mv + b, mv + e, true)); },
        [&](int64_t total) { out = backend::new_buffer({total}, s.dtype(), s.device()); },
        [&](int64_t b, int64_t e, int64_t k) {
          E* dst = static_cast<E*>(out.data_ptr());
          for (int64_t i = b; i < e; ++i)
            if (mv[i]) dst[k++] = src[i];
        });
  });
  return out;
}

void masked_scatter(const Tensor& w, const Tensor& m, const Tensor& x) {
  const bool* mv = m.data_ptr<bool>();
  const int64_t ones = std::count(mv, mv + m.numel(), true);
  EMBER_CHECK(ones <= x.numel(), "masked_scatter_", "Number of elements of source (", x.numel(),
              ") < number of ones in mask (", ones, ")");
  by_size(w.element_size(), [&]<class E>() {
    E* dst = static_cast<E*>(w.data_ptr());
    const E* src = static_cast<const E*>(x.data_ptr());
    for (int64_t i = 0, k = 0; i < w.numel(); ++i)  // serial: source is consumed in order
      if (mv[i]) dst[i] = src[k++];
  });
}

Tensor nonzero(const Tensor& s) {
  const int64_t nd = s.dim();
  const DimVector sizes(s.sizes());
  Tensor out;
  dispatch(s.dtype(), "nonzero", [&]<class T>() {
    const T* v = s.data_ptr<T>();
    compact(
        s.numel(),
        [&](int64_t b, int64_t e) {
          int64_t c = 0;
          for (int64_t i = b; i < e; ++i) c += convert<bool>(v[i]);
          return c;
        },
        [&](int64_t total) {
          out = backend::new_buffer({total, nd}, kInt64);
        },
        [&](int64_t b, int64_t e, int64_t k) {
          int64_t* dst = out.data_ptr<int64_t>();
          for (int64_t i = b; i < e; ++i) {
            if (!convert<bool>(v[i])) continue;
            int64_t* row = dst + k++ * nd;
            for (int64_t d = nd - 1, rest = i; d >= 0; --d) {
              row[d] = rest % sizes[size_t(d)];
              rest /= sizes[size_t(d)];
            }
          }
        });
  });
  return out;
}

}  // namespace ember::cpu
