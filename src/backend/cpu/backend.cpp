// The CPU backend: every family's kernels in one table, built on first use (so ops that run
// during static initialisation find it complete).
#include "backend/cpu/copy.h"
#include "backend/cpu/kernels.h"

namespace ember::backend::detail {

const Backend& cpu_backend() {
  static const Backend table = [] {
    Backend b;
    b.name = "cpu";
    cpu::add_unary_kernels(b);
    cpu::add_binary_kernels(b);
    cpu::add_compare_kernels(b);
    cpu::add_activation_kernels(b);
    cpu::add_loss_kernels(b);
    b.copy = &cpu::copy_kernel;
    b.fill = &cpu::fill_kernel;
    b.equal = &cpu::equal_kernel;
    cpu::add_reduce_kernels(b);
    cpu::add_softmax_kernels(b);
    cpu::add_scan_kernels(b);
    cpu::add_gather_kernels(b);
    cpu::add_index_kernels(b);
    cpu::add_norm_kernels(b);
    cpu::add_class_loss_kernels(b);
    cpu::add_sort_kernels(b);
    cpu::add_embedding_kernels(b);
    cpu::add_random_kernels(b);
    cpu::add_creation_kernels(b);
    cpu::add_conv_kernels(b);
    cpu::add_pool_kernels(b);
    cpu::add_linalg_kernels(b);
    cpu::add_rearrange_kernels(b);
    cpu::add_resize_kernels(b);
    cpu::add_optim_kernels(b);
    return b;
  }();
  return table;
}

}  // namespace ember::backend::detail
