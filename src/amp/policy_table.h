// Autocast's per-op cast policy, one table per device, taken from PyTorch 1.13 (the lists and
// where each comes from are in policy_table.cpp). An op that is not in a device's table runs
// untouched: in its inputs' dtypes, with ordinary type promotion.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "ember/device.h"

namespace ember::amp {

enum class CastPolicy : int8_t {
  kLowerPrecision,      // float32 inputs are cast to the region's dtype (bfloat16/float16)
  kFloat32,             // lower-precision floating inputs are cast up to float32
  kFloat32SetOptDtype,  // as kFloat32 (PyTorch passes dtype=float32 to the op instead of casting)
  kFloat32AppendDtype,  // as kFloat32 (PyTorch redispatches to the overload that takes a dtype)
  kPromote,             // floating inputs are cast to the widest floating dtype among them
  kBanned,              // refused inside an autocast region (binary_cross_entropy on CUDA)
};

struct OpPolicy {
  std::string_view op;  // PyTorch's name: "aten name" or "aten name.overload"
  CastPolicy policy;
};

/// The whole table for a device, in the order of PyTorch's source (for tests and docs).
std::span<const OpPolicy> autocast_policy_table(DeviceType device);

/// The policy for `op` on `device`; an op spelled without overload matches its default entry.
/// std::nullopt means the op is not listed and runs untouched.
std::optional<CastPolicy> autocast_policy(DeviceType device, std::string_view op);

/// "lower_precision_fp", "fp32", "fp32_set_opt_dtype", "fp32_append_dtype", "promote", "banned":
/// PyTorch's own names for the policies.
std::string_view policy_name(CastPolicy policy);

}  // namespace ember::amp
