// What code above the backend may ask about the CPU level the kernels run at (Note [CPU levels]
// in backend/cpu/dispatch.h), without reaching into backend/cpu.
#pragma once

namespace ember::backend {

/// 512 when the CPU level in use has AVX-512 (EMBER_CPU_CAPABILITY can lower it), else 256.
int vector_bits();

}  // namespace ember::backend
