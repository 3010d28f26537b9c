// ember::config(): the build's facts (compile definitions set in CMakeLists.txt), the CPU
// dispatch's state (backend/cpu/dispatch.h) and the reduced-precision GEMM paths
// (backend/cpu/blas.h), in the layout of torch.__config__.show().
#include "ember/config.h"

#include <string>

#include "backend/cpu/blas.h"
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
    s += "\n  - bfloat16 GEMM: " + cpu::reduced_gemm_path(kBFloat16);
    s += "\n  - float16 GEMM: " + cpu::reduced_gemm_path(kFloat16);
  } catch (const Error& e) {
    s += std::string("none: ") + e.what();
  }
  s += "\n  - threads: " + std::to_string(get_num_threads()) + " (OpenMP)\n";
  return s;
}

}  // namespace ember
