// The registry of device backends (device_communicator.h). A CUDA build with NCCL compiles this
// file with EMBER_NCCL (CMakeLists.txt) and registers "nccl" before the first look-up: a static
// registrar in nccl_communicator.cpp would be dropped from a static libember, which nothing
// else in a program references.
#include "distributed/device_communicator.h"

#include <map>
#include <mutex>

#include "ember/error.h"

#ifdef EMBER_NCCL
#include "distributed/nccl_communicator.h"
#endif

namespace ember::dist {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, DeviceBackend> backends;  // nodes stay put: groups keep pointers
};

Registry& registry() {
  static auto* r = new Registry;  // never destroyed: groups may outlive static destruction order
  return *r;
}

// The backends this build brings, once, before the first look-up.
void register_builtin_backends() {
#ifdef EMBER_NCCL
  static std::once_flag once;
  std::call_once(once, [] { cuda::register_nccl_backend(); });
#endif
}

}  // namespace

void register_device_backend(const std::string& name, DeviceBackend backend) {
  EMBER_CHECK(name != "gloo", "register_device_backend",
              "'gloo' is the CPU backend, not a device backend");
  EMBER_CHECK(backend.create && backend.default_device, "register_device_backend", "backend '",
              name, "' needs both create and default_device");
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.backends[name] = std::move(backend);
}

const DeviceBackend* find_device_backend(const std::string& name) {
  register_builtin_backends();
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  const auto it = r.backends.find(name);
  return it == r.backends.end() ? nullptr : &it->second;
}

}  // namespace ember::dist
