// The CPU backend's families that are compiled once: the part of the table that every CPU level
// shares. The level's own kernels and the choice of level: dispatch.h.
#include "backend/cpu/kernels.h"

namespace ember::cpu {

void add_common_kernels(backend::Backend& b) {
  add_scan_kernels(b);
  add_gather_kernels(b);
  add_index_kernels(b);
  add_class_loss_kernels(b);
  add_sort_kernels(b);
  add_embedding_kernels(b);
  add_random_kernels(b);
  add_creation_kernels(b);
  add_linalg_kernels(b);
  add_rearrange_kernels(b);
  add_resize_kernels(b);
  add_amp_kernels(b);
}

}  // namespace ember::cpu
