// CPU kernel of take (src/ops/take.cpp): flat indices into a contiguous tensor.
#include "backend/cpu/gather.h"
#include "backend/cpu/raw_elements.h"
#include "core/parallel.h"

namespace ember::cpu {

void take(const Tensor& out, const Tensor& s, const Tensor& i) {
  const int64_t n = s.numel();
  const int64_t* iv = i.data_ptr<int64_t>();
  BadIndex bad;
  by_size(s.element_size(), [&]<class E>() {
    const E* src = static_cast<const E*>(s.data_ptr());
    E* dst = static_cast<E*>(out.data_ptr());
    parallel_for(0, i.numel(), kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t j = b; j < e; ++j) {
        const int64_t k = iv[j];
        if (k < -n || k >= n) [[unlikely]] {
          bad.record(k);
          continue;
        }
        dst[j] = src[k < 0 ? k + n : k];
      }
    });
  });
  EMBER_CHECK(!bad.seen, "take", "out of range: tried to access index ", bad.value,
              " on a tensor of ", n, " elements.");
}

}  // namespace ember::cpu
