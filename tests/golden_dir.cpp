#include "golden_dir.h"

namespace ember::test {

const std::string& golden_dir() {
  static const std::string dir = EMBER_GOLDEN_DIR;
  return dir;
}

std::string golden_path(const std::string& file) { return golden_dir() + "/" + file; }

}  // namespace ember::test
