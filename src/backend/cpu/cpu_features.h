// What the CPU offers for reduced-precision math, read once at run time (cpuid + the OS's
// saved-state mask), so one binary picks the fastest correct path on each machine.
#pragma once

#include <string>

namespace ember::cpu {

struct CpuFeatures {
  // What -march=x86-64-v2/v3 add besides AVX2 (a CPU level needs all it was compiled for).
  bool sse4_2 = false;
  bool popcnt = false;
  bool bmi1 = false;
  bool bmi2 = false;
  bool lzcnt = false;
  bool movbe = false;
  bool avx2 = false;
  bool fma = false;
  bool f16c = false;         // float16 <-> float32 conversion (vcvtph2ps / vcvtps2ph)
  bool avx512f = false;      // and the OS saves the AVX-512 state
  bool avx512bw = false;     // with avx512dq and avx512vl: what -march=x86-64-v4 adds
  bool avx512dq = false;
  bool avx512vl = false;
  bool avx512_bf16 = false;  // vdpbf16ps: bfloat16 dot products into float32
  bool avx512_fp16 = false;  // float16 arithmetic
  bool amx_bf16 = false;     // and the OS saves the AMX tile state
};

/// The features of the CPU this process runs on (computed on first use).
const CpuFeatures& cpu_features();

/// "avx2 fma f16c" etc.: the features of `f` (this CPU's by default), for logs and benches.
std::string cpu_features_string(const CpuFeatures& f = cpu_features());

/// Whether `have` has every feature `need` has.
bool has_all(const CpuFeatures& have, const CpuFeatures& need);

}  // namespace ember::cpu
