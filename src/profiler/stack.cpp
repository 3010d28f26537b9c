// Note [Profiler stacks]
// with_stack captures the return addresses at an op's entry (backtrace(), at most 32 frames)
// and names them only when the results are collected: dladdr() gives the function for symbols
// the dynamic linker can see (shared libraries, programs linked with -rdynamic), demangled;
// other frames read "<binary>+0x<offset>", which `addr2line -f -C -e <binary> <offset>`
// resolves. Frames inside ember itself (names starting "ember::", the profiler's own) are
// dropped, so the first entry is the caller's code where it can be told apart; in a static
// link without -rdynamic ember's frames cannot be told apart and stay. Kept: 5 frames, as
// PyTorch's table shows (MAX_STACK_ENTRY).
#include "profiler/stack.h"

#include <cxxabi.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

namespace ember::profiler {
namespace {

constexpr size_t kKeptFrames = 5;

struct Frame {
  std::string text;
  bool internal = false;  // ember's or the C runtime's own
};

Frame describe(uintptr_t address) {
  Dl_info info{};
  // A return address points after the call; look up the call instruction's byte.
  if (!dladdr(reinterpret_cast<void*>(address - 1), &info)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%zx", size_t(address));
    return {buf, false};
  }
  if (info.dli_sname) {
    int status = 0;
    char* demangled = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
    std::string name = status == 0 && demangled ? demangled : info.dli_sname;
    std::free(demangled);
    const bool internal = name.rfind("ember::", 0) == 0 || name.rfind("__libc_start", 0) == 0 ||
                          name == "_start" || name.rfind("std::", 0) == 0;
    return {name, internal};
  }
  const char* file = info.dli_fname ? info.dli_fname : "?";
  if (const char* slash = std::strrchr(file, '/')) file = slash + 1;
  char buf[64];
  std::snprintf(buf, sizeof buf, "+0x%zx",
                size_t(address - reinterpret_cast<uintptr_t>(info.dli_fbase)));
  return {std::string(file) + buf, false};
}

}  // namespace

void symbolize_stacks(const std::vector<std::vector<uintptr_t>>& raw, std::vector<Event>& events) {
  std::unordered_map<uintptr_t, Frame> cache;
  for (size_t i = 0; i < raw.size() && i < events.size(); ++i) {
    std::vector<std::string>& stack = events[i].stack;
    for (uintptr_t address : raw[i]) {
      auto it = cache.find(address);
      if (it == cache.end()) it = cache.emplace(address, describe(address)).first;
      if (it->second.internal) continue;
      stack.push_back(it->second.text);
      if (stack.size() == kKeptFrames) break;
    }
  }
}

}  // namespace ember::profiler
