// CPU feature detection with cpuid. A feature counts only when the OS also saves its register
// state (xgetbv): AVX needs XCR0 bits 1-2, AVX-512 bits 5-7, AMX bits 17-18. Linux additionally
// asks a process to request AMX tile data (arch_prctl ARCH_REQ_XCOMP_PERM) before using it;
// whoever issues AMX instructions must do that, so amx_bf16 here means "the CPU and OS have it".
#include "backend/cpu/cpu_features.h"

#include <cpuid.h>

#include <cstdint>

namespace ember::cpu {
namespace {

uint64_t xcr0() {
  uint32_t eax, edx;
  __asm__("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (uint64_t(edx) << 32) | eax;
}

CpuFeatures detect() {
  CpuFeatures f;
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
  const bool osxsave = c & (1u << 27);
  const bool avx = c & (1u << 28);
  const uint64_t xcr = osxsave ? xcr0() : 0;
  const bool os_avx = (xcr & 0x6) == 0x6;
  const bool os_avx512 = (xcr & 0xe6) == 0xe6;
  const bool os_amx = (xcr & 0x60000) == 0x60000;
  f.fma = os_avx && (c & (1u << 12));
  f.f16c = os_avx && avx && (c & (1u << 29));
  if (__get_cpuid_max(0, nullptr) < 7) return f;
  __cpuid_count(7, 0, a, b, c, d);
  const unsigned max_subleaf = a;
  f.avx2 = os_avx && (b & (1u << 5));
  f.avx512f = os_avx512 && (b & (1u << 16));
  f.avx512_fp16 = f.avx512f && (d & (1u << 23));
  f.amx_bf16 = os_amx && (d & (1u << 22));
  if (max_subleaf >= 1) {
    __cpuid_count(7, 1, a, b, c, d);
    f.avx512_bf16 = f.avx512f && (a & (1u << 5));
  }
  return f;
}

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

std::string cpu_features_string() {
  const CpuFeatures& f = cpu_features();
  std::string s;
  auto add = [&](bool on, const char* name) {
    if (!on) return;
    if (!s.empty()) s += ' ';
    s += name;
  };
  add(f.avx2, "avx2");
  add(f.fma, "fma");
  add(f.f16c, "f16c");
  add(f.avx512f, "avx512f");
  add(f.avx512_bf16, "avx512_bf16");
  add(f.avx512_fp16, "avx512_fp16");
  add(f.amx_bf16, "amx_bf16");
  return s.empty() ? "none" : s;
}

}  // namespace ember::cpu
