// ember::config(): the build's facts (compile definitions set in CMakeLists.txt) and the CPU
// dispatch's state (backend/cpu/dispatch.h), in the layout of torch.__config__.show().
#include "ember/config.h"

#include <string>

#include "backend/cpu/dispatch.h"
#include "ember/error.h"
#include "ember/threads.h"

namespace ember {

std::string config() {
  std::string s = "ember " EMBER_VERSION_STRING "\n";
  s += "  - compiler: GCC-compatible " __VERSION__ "\n";
  s += "  - build type: " EMBER_BUILD_TYPE_STRING "\n";
  s += "  - C++ flags: " EMBER_CXX_FLAGS_STRING "\n";
  s += "  - CPU features: " + cpu::cpu_features_string() + "\n";
  s += "  - CPU levels compiled:";
  for (const cpu::CpuLevel* l : cpu::compiled_cpu_levels()) s += std::string(" ") + l->name;
  s += "\n  - CPU level in use: ";
  try {
    s += cpu::cpu_level().name;
  } catch (const Error& e) {
    s += std::string("none: ") + e.what();
  }
  s += "\n  - threads: " + std::to_string(get_num_threads()) + " (OpenMP)\n";
  return s;
}

}  // namespace ember
