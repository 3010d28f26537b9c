// Devices: kCPU and kCUDA(index), parsed from "cpu", "cuda", "cuda:1".
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

namespace ember {

enum class DeviceType : int8_t { CPU, CUDA };
inline constexpr DeviceType kCPU = DeviceType::CPU;
inline constexpr DeviceType kCUDA = DeviceType::CUDA;

class Device {
 public:
  Device(DeviceType type = kCPU, int index = -1);  // NOLINT: kCUDA converts to a Device
  /// Parses "cpu", "cuda", "cuda:N"; anything else throws ember::Error.
  explicit Device(std::string_view spec);
  Device(const char* spec) : Device(std::string_view(spec)) {}  // NOLINT: Device("cuda:1")

  DeviceType type() const { return type_; }
  /// -1 means "the current device" (only for CUDA).
  int index() const { return index_; }
  bool has_index() const { return index_ >= 0; }
  bool is_cpu() const { return type_ == kCPU; }
  bool is_cuda() const { return type_ == kCUDA; }
  std::string str() const;

  friend bool operator==(const Device& a, const Device& b) {
    return a.type_ == b.type_ && a.index_ == b.index_;
  }

 private:
  DeviceType type_;
  int index_;
};

std::ostream& operator<<(std::ostream& os, const Device& d);

}  // namespace ember
