// The C++ call stack of an ember::Error, for EMBER_SHOW_CPP_STACKTRACES=1 (LibTorch's
// TORCH_SHOW_CPP_STACKTRACES): captured where the error is made, named with libdw (function,
// source file and line, where the program has debug info) or, in a build without libdw, with
// dladdr (functions the dynamic linker sees; other frames as binary+offset for addr2line).
#pragma once

#include <string>

namespace ember::detail {

/// True when EMBER_SHOW_CPP_STACKTRACES is set to something other than "" or "0".
bool show_cpp_stacktraces();

/// The caller's stack, most recent call first, without ember::Error's own frames:
///   "  called from: <first frame outside ember> at <file>:<line>\n"
///   "C++ stack trace (most recent call first):\n  #0 <function> at <file>:<line> (<binary>)\n..."
std::string describe_stack();

}  // namespace ember::detail
