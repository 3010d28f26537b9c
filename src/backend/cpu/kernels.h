// The CPU backend's table is filled by its family files, one function each (the same names as
// the front ends in src/ops). The families whose inner loops gain from wider vectors are compiled
// once per CPU level (Note [CPU levels] in dispatch.h), so their functions live in the level's
// namespace and reach the table through that level's add_level_kernels; the others are compiled
// once, with the library's flags.
#pragma once

#include "backend/backend.h"
#include "backend/cpu/level.h"

namespace ember::cpu {

// ── compiled once ──
/// All of the families below: the part that every level's table shares (backend.cpp).
void add_common_kernels(backend::Backend& b);
void add_scan_kernels(backend::Backend& b);
void add_gather_kernels(backend::Backend& b);
void add_index_kernels(backend::Backend& b);
void add_class_loss_kernels(backend::Backend& b);
void add_sort_kernels(backend::Backend& b);
void add_embedding_kernels(backend::Backend& b);
void add_random_kernels(backend::Backend& b);
void add_creation_kernels(backend::Backend& b);
void add_linalg_kernels(backend::Backend& b);
void add_rearrange_kernels(backend::Backend& b);
void add_resize_kernels(backend::Backend& b);
void add_amp_kernels(backend::Backend& b);

}  // namespace ember::cpu

// ── compiled once per level (declared, and defined, only inside a per-level object) ──
#if defined(EMBER_CPU_LEVEL)
namespace EMBER_CPU_NS {

void add_unary_kernels(backend::Backend& b);
void add_binary_kernels(backend::Backend& b);
void add_compare_kernels(backend::Backend& b);
void add_activation_kernels(backend::Backend& b);
void add_loss_kernels(backend::Backend& b);
void add_reduce_kernels(backend::Backend& b);
void add_softmax_kernels(backend::Backend& b);
void add_norm_kernels(backend::Backend& b);      // and, from it:
void add_row_norm_kernels(backend::Backend& b);  // norm_rows.cpp
void add_conv_kernels(backend::Backend& b);
void add_pool_kernels(backend::Backend& b);
void add_optim_kernels(backend::Backend& b);

}  // namespace EMBER_CPU_NS
#endif
