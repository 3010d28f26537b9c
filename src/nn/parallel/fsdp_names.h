// What FullyShardedDataParallel's files share: the op name its errors carry and how they name
// parameters (dotted paths) and shapes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ember::nn::fsdp_detail {

inline constexpr const char* kFsdpOp = "FullyShardedDataParallel";

inline std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

/// "prefix.name", or whichever of the two is not empty.
inline std::string join_path(const std::string& prefix, const std::string& name) {
  if (prefix.empty()) return name;
  return name.empty() ? prefix : prefix + "." + name;
}

}  // namespace ember::nn::fsdp_detail
