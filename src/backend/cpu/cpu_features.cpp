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
  f.sse4_2 = c & (1u << 20);
  f.movbe = c & (1u << 22);
  f.popcnt = c & (1u << 23);
  f.fma = os_avx && (c & (1u << 12));
  f.f16c = os_avx && avx && (c & (1u << 29));
  if (__get_cpuid(0x80000001, &a, &b, &c, &d)) f.lzcnt = c & (1u << 5);
  if (__get_cpuid_max(0, nullptr) < 7) return f;
  __cpuid_count(7, 0, a, b, c, d);
  const unsigned max_subleaf = a;
  f.avx2 = os_avx && (b & (1u << 5));
  f.bmi1 = b & (1u << 3);
  f.bmi2 = b & (1u << 8);
  f.avx512f = os_avx512 && (b & (1u << 16));
  f.avx512dq = f.avx512f && (b & (1u << 17));
  f.avx512bw = f.avx512f && (b & (1u << 30));
  f.avx512vl = f.avx512f && (b & (1u << 31));
  f.avx512_fp16 = f.avx512f && (d & (1u << 23));
  f.amx_bf16 = os_amx && (d & (1u << 22));
  if (max_subleaf >= 1) {
    __cpuid_count(7, 1, a, b, c, d);
    f.avx512_bf16 = f.avx512f && (a & (1u << 5));
  }
  return f;
}

}  // namespace

// Every feature with its name, so printing and comparing list them once.
constexpr struct {
  bool CpuFeatures::*member;
  const char* name;
} kFeatures[] = {
    {&CpuFeatures::sse4_2, "sse4_2"},     {&CpuFeatures::popcnt, "popcnt"},
    {&CpuFeatures::bmi1, "bmi1"},         {&CpuFeatures::bmi2, "bmi2"},
    {&CpuFeatures::lzcnt, "lzcnt"},       {&CpuFeatures::movbe, "movbe"},
    {&CpuFeatures::avx2, "avx2"},         {&CpuFeatures::fma, "fma"},
    {&CpuFeatures::f16c, "f16c"},         {&CpuFeatures::avx512f, "avx512f"},
    {&CpuFeatures::avx512bw, "avx512bw"}, {&CpuFeatures::avx512dq, "avx512dq"},
    {&CpuFeatures::avx512vl, "avx512vl"}, {&CpuFeatures::avx512_bf16, "avx512_bf16"},
    {&CpuFeatures::avx512_fp16, "avx512_fp16"}, {&CpuFeatures::amx_bf16, "amx_bf16"},
};

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = detect();
  return features;
}

std::string cpu_features_string(const CpuFeatures& f) {
  std::string s;
  for (const auto& [member, name] : kFeatures) {
    if (!(f.*member)) continue;
    if (!s.empty()) s += ' ';
    s += name;
  }
  return s.empty() ? "none" : s;
}

bool has_all(const CpuFeatures& have, const CpuFeatures& need) {
  for (const auto& [member, name] : kFeatures)
    if (need.*member && !(have.*member)) return false;
  return true;
}

}  // namespace ember::cpu
