// The backends installed for non-CPU device types, and the error for a kernel a device lacks.
#include "backend/backend.h"

#include <utility>

#include "ember/error.h"

namespace ember::backend {

namespace detail {
const Backend* installed[2] = {nullptr, nullptr};
}  // namespace detail

const Backend* install_backend(DeviceType type, const Backend* b) {
  EMBER_CHECK(type != kCPU, "install_backend", "the CPU backend is built in");
  return std::exchange(detail::installed[size_t(type)], b);
}

void no_kernel(const char* op, Device device) {
  const Backend* b = backend_for(device.type());
  if (!b) fail(op, "no kernel for ", device, ": this build has no backend for its device type");
  fail(op, "no kernel for ", device, ": the ", b->name, " backend does not implement this op");
}

}  // namespace ember::backend
