// GradScaler's one-pass kernel: check for inf/NaN and unscale in the same loop. It is the CPU
// backend's amp entry (backend/amp_kernels.h); tests also call it directly as the reference.
#include "backend/cpu/amp.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "backend/cpu/kernels.h"
#include "core/dispatch.h"
#include "core/parallel.h"
#include "ember/error.h"

namespace ember::cpu {
namespace {

// Non-finite means all exponent bits set, tested on the bits so the loop vectorises (std::isfinite
// of a float does not under -O3 with GCC 12).
inline bool non_finite(float v) {
  uint32_t u;
  std::memcpy(&u, &v, 4);
  return (u & 0x7f800000u) == 0x7f800000u;
}
inline bool non_finite(double v) { return !std::isfinite(v); }

// PyTorch computes in the op math type: float for float16/bfloat16/float32, double for double.
template <class T>
using OpMath = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <class T>
bool check_and_unscale_contiguous(T* p, int64_t n, float inv_scale) {
  std::atomic<bool> found{false};
  const bool unscale = inv_scale != 1.0f;
  parallel_for(0, n, kGrainSize, [&](int64_t b, int64_t e) {
    bool bad = false;
    if (unscale) {
      for (int64_t i = b; i < e; ++i) {
        const OpMath<T> v = OpMath<T>(p[i]);
        bad |= non_finite(v);
        p[i] = T(v * OpMath<T>(inv_scale));
      }
    } else {
      for (int64_t i = b; i < e; ++i) bad |= non_finite(OpMath<T>(p[i]));
    }
    if (bad) found.store(true, std::memory_order_relaxed);
  });
  return found.load();
}

}  // namespace

bool non_finite_check_and_unscale_(std::span<const Tensor> tensors, float inv_scale) {
  bool found = false;
  for (const Tensor& t : tensors) {
    EMBER_CHECK(t.is_contiguous(), "GradScaler.unscale_", "expected contiguous tensors");
    if (t.numel() == 0) continue;
    dispatch<DtypeSet::Floating>(t.dtype(), "GradScaler.unscale_", [&]<class T>() {
      found |= check_and_unscale_contiguous(static_cast<T*>(t.data_ptr()), t.numel(), inv_scale);
    });
  }
  return found;
}

void add_amp_kernels(backend::Backend& b) {
  b.amp.non_finite_check_and_unscale_ = &non_finite_check_and_unscale_;
}

}  // namespace ember::cpu
