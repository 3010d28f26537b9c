// amp::autocast: PyTorch's autocast as an RAII guard. Inside a region, each op listed for the
// device runs in the region's lower-precision dtype, in float32, or in the widest input dtype
// (PyTorch 1.13's lists, src/amp/policy_table.cpp); other ops run in their inputs' dtypes.
//
//   { amp::autocast ac(kCPU, kBFloat16);   // bfloat16 matmul/linear/conv, float32 losses
//     auto loss = criterion(model->forward(x), y); }
//   loss.backward();                       // gradients arrive in the parameters' dtypes
//
// State is per thread and per device type, regions nest, and {.enabled = false} inside a region
// turns it off until that guard ends. Casts of float32 leaf parameters (requires_grad) to the
// lower dtype are cached per region when cache_enabled, so a weight used twice is cast once;
// the cache is cleared when the thread's outermost region ends.
//
// CPU takes bfloat16 (PyTorch 1.13) and also float16, which 1.13 refuses on CPU: ember runs
// the same CPU lists with float16 (for --amp fp16 with a GradScaler).
#pragma once

#include <optional>

#include "ember/device.h"
#include "ember/dtype.h"

namespace ember::amp {

struct AutocastOptions {
  bool enabled = true;
  /// Unset: keep the thread's current setting (true by default), as PyTorch's None.
  std::optional<bool> cache_enabled = {};
};

class autocast {  // NOLINT: PyTorch's spelling, amp::autocast
 public:
  /// dtype must be kBFloat16 or kFloat16; device_type kCPU or kCUDA.
  autocast(DeviceType device_type, Dtype dtype, AutocastOptions options = {});
  /// The device's default dtype: bfloat16 on CPU, float16 on CUDA.
  explicit autocast(DeviceType device_type, AutocastOptions options = {});
  ~autocast();
  autocast(const autocast&) = delete;
  autocast& operator=(const autocast&) = delete;

 private:
  DeviceType device_;
  bool prev_enabled_;
  Dtype prev_dtype_;
  bool prev_cache_enabled_;
};

/// Whether ops on `device_type` are autocast in the calling thread.
bool is_autocast_enabled(DeviceType device_type);
/// The lower-precision dtype of `device_type`'s regions in the calling thread.
Dtype get_autocast_dtype(DeviceType device_type);
bool is_autocast_cache_enabled();
/// Drops the calling thread's cached weight casts (the outermost region's exit does this).
void clear_autocast_cache();

}  // namespace ember::amp
