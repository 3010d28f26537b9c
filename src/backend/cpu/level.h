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
