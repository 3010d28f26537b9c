// How this ember was built and what it runs on: PyTorch's torch.__config__.show().
#pragma once

#include <string>

namespace ember {

/// A multi-line summary: version, compiler, build type and flags, the CPU's features, the CPU
/// levels the kernels were compiled for and the one this process runs (EMBER_CPU_CAPABILITY
/// overrides the choice; a refused request is shown with its reason), the bfloat16 and float16
/// matrix-product paths, threads.
std::string config();

}  // namespace ember
