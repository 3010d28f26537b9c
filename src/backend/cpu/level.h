// The namespace of the kernels compiled once per CPU level (Note [CPU levels] in dispatch.h).
// A dispatched kernel file, and every header whose inline code it instantiates, opens
// `namespace EMBER_CPU_NS {`: in a per-level object (built with -DEMBER_CPU_LEVEL=avx2 and that
// level's -march) this is ember::cpu::inline avx2, so each level's functions, templates and their
// instantiations are distinct symbols and the linker can never keep an AVX-512 copy of something
// a baseline caller uses. Outside a per-level object (the once-compiled files that share these
// headers) it is plain ember::cpu. Being inline, the level namespace changes symbol names only:
// the code inside names everything as before.
#pragma once

#if defined(EMBER_CPU_LEVEL)
#define EMBER_CPU_NS ember::cpu::inline EMBER_CPU_LEVEL
#else
#define EMBER_CPU_NS ember::cpu
#endif

// Note [Integer dtypes at the lowest level]: wider vectors pay for the floating dtypes (explicit
// SIMD for float/double, F16C and wider conversions for half and bfloat16), much less for
// integers and bool, which no benchmark row uses. So only the lowest compiled level
// (EMBER_CPU_LEVEL_LOWEST, from CMakeLists.txt; the one level of a native build) instantiates the
// elementwise kernels, reductions and casts for integer and bool dtypes, and a higher level hands
// such a call to the lowest level's entry of the same kernel (lowest_level_kernels() in
// dispatch.h): one extra indirect call on an integer op, for about a third of binary.cpp's and
// the reductions' compile time and most of compare.cpp's saved on every level but one.
namespace EMBER_CPU_NS {
#if defined(EMBER_CPU_LEVEL) && !defined(EMBER_CPU_LEVEL_LOWEST)
inline constexpr bool kIntegersAtLowestLevel = true;
#else
inline constexpr bool kIntegersAtLowestLevel = false;
#endif
}  // namespace EMBER_CPU_NS
