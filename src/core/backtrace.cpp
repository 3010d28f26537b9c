// Note [Error stack traces]
// Under EMBER_SHOW_CPP_STACKTRACES=1 every ember::Error appends the C++ stack at its making:
// the first frame outside ember (no "ember::"/"std::" prefix, not the C runtime) is named as
// the user's call, then every frame follows. With libdw (EMBER_HAVE_LIBDW) a frame names its
// function from the symbol table and its file:line from the debug info, so a program built with
// -g sees the line of its own call; without libdw, dladdr names what the dynamic linker sees and
// the rest reads <binary>+0x<offset> (`addr2line -f -C -e <binary> <offset>` resolves it). It
// costs milliseconds per error, so it is off by default.
#include "core/backtrace.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#ifdef EMBER_HAVE_LIBDW
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#endif

namespace ember::detail {
namespace {

constexpr int kMaxFrames = 64;

struct Frame {
  std::string function;  // demangled, or "" when unknown
  std::string file;      // source file, or "" without debug info
  int line = 0;
  std::string binary;  // the module's file name (no directory)
  uintptr_t offset = 0;  // the address within the module
};

std::string demangle(const char* name) {
  if (!name) return {};
  int status = 0;
  char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string s = status == 0 && out ? out : name;
  std::free(out);
  return s;
}

std::string base_name(const char* path) {
  if (!path) return "?";
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

bool starts_with(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// ember's own frames, the standard library's, and the C runtime's: not the user's call.
bool internal(const Frame& f) {
  return starts_with(f.function, "ember::") || starts_with(f.function, "std::") ||
         starts_with(f.function, "__gnu_cxx::") || starts_with(f.function, "__libc_start") ||
         f.function == "_start";
}

#ifdef EMBER_HAVE_LIBDW
// The file:line of pc. dwfl_module_getsrc finds pc's compilation unit through .debug_aranges,
// which GCC emits and Clang (14) does not; without them it fails, so the units are then walked
// and each asked whether it covers pc.
void name_source_line(Dwfl_Module* module, Dwarf_Addr pc, Frame& frame) {
  int lineno = 0;
  const char* file = nullptr;
  if (Dwfl_Line* line = dwfl_module_getsrc(module, pc)) {
    file = dwfl_lineinfo(line, nullptr, &lineno, nullptr, nullptr, nullptr);
  } else {
    Dwarf_Addr bias = 0;
    for (Dwarf_Die* unit = nullptr; (unit = dwfl_module_nextcu(module, unit, &bias));) {
      if (dwarf_haspc(unit, pc - bias) <= 0) continue;
      if (Dwarf_Line* line = dwarf_getsrc_die(unit, pc - bias)) {
        file = dwarf_linesrc(line, nullptr, nullptr);
        dwarf_lineno(line, &lineno);
      }
      break;
    }
  }
  if (!file) return;
  frame.file = file;
  frame.line = lineno;
}

std::vector<Frame> name_frames(void* const* pcs, int n) {
  static const Dwfl_Callbacks callbacks = {dwfl_linux_proc_find_elf, dwfl_standard_find_debuginfo,
                                           nullptr, nullptr};
  std::vector<Frame> frames(n);
  Dwfl* dwfl = dwfl_begin(&callbacks);
  if (!dwfl) return frames;
  dwfl_report_begin(dwfl);
  const bool reported = dwfl_linux_proc_report(dwfl, getpid()) == 0;
  dwfl_report_end(dwfl, nullptr, nullptr);
  for (int i = 0; reported && i < n; ++i) {
    // A return address points after the call; look up the call instruction's byte.
    const Dwarf_Addr pc = reinterpret_cast<uintptr_t>(pcs[i]) - (i > 0 ? 1 : 0);
    Dwfl_Module* module = dwfl_addrmodule(dwfl, pc);
    if (!module) continue;
    Dwarf_Addr base = 0;
    const char* path = dwfl_module_info(module, nullptr, &base, nullptr, nullptr, nullptr,
                                        nullptr, nullptr);
    frames[i].binary = base_name(path);
    frames[i].offset = pc - base;
    frames[i].function = demangle(dwfl_module_addrname(module, pc));
    name_source_line(module, pc, frames[i]);
  }
  dwfl_end(dwfl);
  return frames;
}
#else
std::vector<Frame> name_frames(void* const* pcs, int n) {
  std::vector<Frame> frames(n);
  for (int i = 0; i < n; ++i) {
    const uintptr_t pc = reinterpret_cast<uintptr_t>(pcs[i]) - (i > 0 ? 1 : 0);
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(pc), &info)) continue;
    frames[i].binary = base_name(info.dli_fname);
    frames[i].offset = pc - reinterpret_cast<uintptr_t>(info.dli_fbase);
    frames[i].function = demangle(info.dli_sname);
  }
  return frames;
}
#endif

std::string describe(const Frame& f) {
  std::string s = f.function.empty() ? "??" : f.function;
  if (!f.file.empty()) s += " at " + f.file + ":" + std::to_string(f.line);
  char where[64];
  std::snprintf(where, sizeof where, "+0x%zx)", size_t(f.offset));
  return s + " (" + f.binary + where;
}

}  // namespace

bool show_cpp_stacktraces() {
  const char* v = std::getenv("EMBER_SHOW_CPP_STACKTRACES");
  return v && *v && std::string_view(v) != "0";
}

std::string describe_stack() {
  void* pcs[kMaxFrames];
  const int n = ::backtrace(pcs, kMaxFrames);
  std::vector<Frame> frames = name_frames(pcs, n);
  // Drop the frames that make the error (this function, Error's constructor, fail, the check).
  size_t first = 0;
  while (first < frames.size() &&
         (starts_with(frames[first].function, "ember::detail::") ||
          starts_with(frames[first].function, "ember::Error::") ||
          starts_with(frames[first].function, "ember::(anonymous namespace)::with_stack") ||
          starts_with(frames[first].function, "void ember::fail")))
    ++first;
  std::string out;
  for (size_t i = first; i < frames.size(); ++i) {
    if (!internal(frames[i]) && !frames[i].function.empty()) {
      out += "  called from: " + describe(frames[i]) + "\n";
      break;
    }
  }
  out += "C++ stack trace (most recent call first):\n";
  for (size_t i = first; i < frames.size(); ++i)
    out += "  #" + std::to_string(i - first) + " " + describe(frames[i]) + "\n";
  return out;
}

}  // namespace ember::detail
