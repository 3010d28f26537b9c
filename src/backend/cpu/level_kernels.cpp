// A CPU level's entry (Note [CPU levels] in dispatch.h): compiled once per level with that
// level's -march and EMBER_CPU_LEVEL, it names the level, states the features its compiler was
// allowed to use (from the compiler's own macros, so the requirement cannot drift from the
// flags), and fills a table with the level's copies of the dispatched kernels.
#include "backend/cpu/copy.h"
#include "backend/cpu/dispatch.h"
#include "backend/cpu/kernels.h"

#if !defined(EMBER_CPU_LEVEL)
#error "level_kernels.cpp is compiled once per CPU level, with -DEMBER_CPU_LEVEL=<name>"
#endif

namespace EMBER_CPU_NS {
namespace {

#define EMBER_STRINGIFY_(x) #x
#define EMBER_STRINGIFY(x) EMBER_STRINGIFY_(x)

constexpr CpuFeatures compiled_for() {
  CpuFeatures f;
#if defined(__SSE4_2__)
  f.sse4_2 = true;
#endif
#if defined(__POPCNT__)
  f.popcnt = true;
#endif
#if defined(__BMI__)
  f.bmi1 = true;
#endif
#if defined(__BMI2__)
  f.bmi2 = true;
#endif
#if defined(__LZCNT__)
  f.lzcnt = true;
#endif
#if defined(__MOVBE__)
  f.movbe = true;
#endif
#if defined(__AVX2__)
  f.avx2 = true;
#endif
#if defined(__FMA__)
  f.fma = true;
#endif
#if defined(__F16C__)
  f.f16c = true;
#endif
#if defined(__AVX512F__)
  f.avx512f = true;
#endif
#if defined(__AVX512BW__)
  f.avx512bw = true;
#endif
#if defined(__AVX512DQ__)
  f.avx512dq = true;
#endif
#if defined(__AVX512VL__)
  f.avx512vl = true;
#endif
#if defined(__AVX512BF16__)
  f.avx512_bf16 = true;
#endif
#if defined(__AVX512FP16__)
  f.avx512_fp16 = true;
#endif
#if defined(__AMX_BF16__)
  f.amx_bf16 = true;
#endif
  return f;
}

void add_level_kernels(backend::Backend& b) {
  add_unary_kernels(b);
  add_binary_kernels(b);
  add_compare_kernels(b);
  add_activation_kernels(b);
  add_loss_kernels(b);
  b.copy = &copy_kernel;
  b.fill = &fill_kernel;
  b.equal = &equal_kernel;
  add_reduce_kernels(b);
  add_softmax_kernels(b);
  add_norm_kernels(b);
  add_conv_kernels(b);
  add_pool_kernels(b);
  add_optim_kernels(b);
}

}  // namespace

extern const CpuLevel kLevel;
constinit const CpuLevel kLevel = {EMBER_STRINGIFY(EMBER_CPU_LEVEL), compiled_for(),
                                   &add_level_kernels};

}  // namespace EMBER_CPU_NS
