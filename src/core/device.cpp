// Device values and their textual form ("cpu", "cuda", "cuda:1").
#include "ember/device.h"

#include <charconv>
#include <ostream>

#include "ember/error.h"

namespace ember {

Device::Device(DeviceType type, int index) : type_(type), index_(index) {
  EMBER_CHECK(index >= -1, "device", "device index must be -1 or non-negative, got ", index);
  EMBER_CHECK(!(type == kCPU && index > 0), "device",
              "CPU device index must be -1 or zero, got ", index);
}

Device::Device(std::string_view spec) : type_(kCPU), index_(-1) {
  const auto colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  if (name == "cpu") {
    type_ = kCPU;
  } else if (name == "cuda") {
    type_ = kCUDA;
  } else {
    fail("device", "expected one of cpu, cuda device type at start of device string: ", spec);
  }
  if (colon != std::string_view::npos) {
    const std::string_view digits = spec.substr(colon + 1);
    int index = -1;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    EMBER_CHECK(!digits.empty() && ec == std::errc() && end == digits.data() + digits.size() &&
                    index >= 0,
                "device", "invalid device string: '", spec, "'");
    EMBER_CHECK(!(type_ == kCPU && index > 0), "device",
                "CPU device index must be -1 or zero, got ", index);
    index_ = index;
  }
}

std::string Device::str() const {
  std::string s = is_cpu() ? "cpu" : "cuda";
  if (index_ >= 0) s.append(":").append(std::to_string(index_));
  return s;
}

std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

}  // namespace ember
