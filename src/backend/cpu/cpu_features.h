// What the CPU offers for reduced-precision math, read once at run time (cpuid + the OS's
// saved-state mask), so one binary picks the fastest correct path on each machine.
#pragma once

#include <string>

namespace ember::cpu {

struct CpuFeatures {
  bool avx2 = false;
  bool fma = false;
  bool f16c = false;         // float16 <-> float32 conversion (vcvtph2ps / vcvtps2ph)
  bool avx512f = false;      // and the OS saves the AVX-512 state
  bool avx512_bf16 = false;  // vdpbf16ps: bfloat16 dot products into float32
  bool avx512_fp16 = false;  // float16 arithmetic
  bool amx_bf16 = false;     // and the OS saves the AMX tile state
};

/// The features of the CPU this process runs on (computed on first use).
const CpuFeatures& cpu_features();

/// "avx2 fma f16c" etc.: the reduced-precision-relevant features present, for logs and benches.
std::string cpu_features_string();

}  // namespace ember::cpu
