#pragma once
// Where PyTorch's reference data lives (tests/golden). The absolute path is compiled into one
// small file (golden_dir.cpp) rather than passed to every test as a -D define: a define that names
// the checkout's path makes every test object differ between two checkouts, so ccache could never
// share them.
#include <string>

namespace ember::test {

// The golden directory, without a trailing slash.
const std::string& golden_dir();

// golden_dir() + "/" + file.
std::string golden_path(const std::string& file);

}  // namespace ember::test
