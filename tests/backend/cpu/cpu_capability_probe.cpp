// Runs one op and prints ember::config(), or the error the op threw: the CTest rows
// cpu_capability_* (tests/CMakeLists.txt) run it under EMBER_CPU_CAPABILITY and match the output.
#include <ember/config.h>
#include <ember/creation.h>
#include <ember/error.h>
#include <ember/math.h>

#include <cstdio>

int main() {
  try {
    const ember::Tensor one = ember::ones({4}), t = one + one;
    std::printf("%s", ember::config().c_str());
    return t.sum().item<double>() == 8 ? 0 : 1;
  } catch (const ember::Error& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
