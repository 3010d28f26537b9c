// Run-time choice of the CPU kernels' instruction-set level.
//
// Note [CPU levels]: the kernel files whose inner loops gain from wider vectors (elementwise and
// activation functors, reductions, softmax, pooling, batch norm, convolution's own loops, the
// optimizer updates, copies and casts) are compiled once per level of the build's
// EMBER_CPU_LEVELS (CMakeLists.txt) — baseline (-march=x86-64: SSE2), avx2 (x86-64-v3: AVX2,
// FMA, F16C, BMI) and avx512 (x86-64-v4: AVX-512 F/BW/DQ/VL) — each copy in its own namespace
// (level.h), or once as `native` with -march=native (EMBER_NATIVE=ON). The rest of the library,
// the loop planner and the OpenMP region included, is compiled once for the baseline. The process
// picks one level on first use of the CPU backend, the highest the CPU runs, or the one that
// EMBER_CPU_CAPABILITY names (as PyTorch's ATEN_CPU_CAPABILITY): then that level's functions
// fill the CPU backend's table, and every op reaches them through it at no extra cost. The
// elementwise kernels' integer and bool dtypes are compiled in the lowest level only (Note
// [Integer dtypes at the lowest level] in elementwise.h).
#pragma once

#include <span>

#include "backend/backend.h"
#include "backend/cpu/cpu_features.h"

namespace ember::cpu {

/// One compiled level: its name, the CPU features its code uses (from its compiler's macros),
/// and the function that puts its kernels into a CPU table.
struct CpuLevel {
  const char* name;
  CpuFeatures needs;
  void (*add_kernels)(backend::Backend& b);
};

/// The levels this build compiled, lowest first.
std::span<const CpuLevel* const> compiled_cpu_levels();

/// The level for a CPU with `cpu`'s features: `requested` (EMBER_CPU_CAPABILITY's value; null or
/// empty for none) or else the highest level the CPU runs. A name that is no compiled level, or
/// a level the CPU lacks features for, is an ember::Error naming the level, the compiled levels
/// and the CPU's features.
const CpuLevel& choose_cpu_level(const char* requested, const CpuFeatures& cpu);

/// This process's level: choose_cpu_level(getenv("EMBER_CPU_CAPABILITY"), cpu_features()),
/// chosen on first use. A refused request throws here, on every call, so the first op says why.
const CpuLevel& cpu_level();

/// The CPU backend's table with `level`'s kernels (built once per level). Tests use it to run
/// every level the machine supports in one process.
const backend::Backend& kernels_for(const CpuLevel& level);

/// The lowest compiled level's table: the only one that compiles some kernels' integer dtypes
/// (Note [Integer dtypes at the lowest level] in elementwise.h).
const backend::Backend& lowest_level_kernels();
/// Makes `table` the CPU backend (null: the chosen level's again); returns the previous one.
/// For tests: ops in flight on other threads may see either table.
const backend::Backend* set_cpu_kernels(const backend::Backend* table);

}  // namespace ember::cpu
