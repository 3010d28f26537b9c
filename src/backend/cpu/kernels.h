// The CPU backend's table is filled by its family files, one function each (the same names as
// the front ends in src/ops).
#pragma once

#include "backend/backend.h"

namespace ember::cpu {

void add_unary_kernels(backend::Backend& b);
void add_binary_kernels(backend::Backend& b);
void add_compare_kernels(backend::Backend& b);
void add_activation_kernels(backend::Backend& b);
void add_loss_kernels(backend::Backend& b);
void add_reduce_kernels(backend::Backend& b);
void add_softmax_kernels(backend::Backend& b);
void add_scan_kernels(backend::Backend& b);
void add_gather_kernels(backend::Backend& b);
void add_index_kernels(backend::Backend& b);
void add_norm_kernels(backend::Backend& b);
void add_class_loss_kernels(backend::Backend& b);
void add_sort_kernels(backend::Backend& b);
void add_embedding_kernels(backend::Backend& b);
void add_random_kernels(backend::Backend& b);
void add_creation_kernels(backend::Backend& b);
void add_conv_kernels(backend::Backend& b);
void add_pool_kernels(backend::Backend& b);
void add_linalg_kernels(backend::Backend& b);
void add_rearrange_kernels(backend::Backend& b);
void add_resize_kernels(backend::Backend& b);
void add_optim_kernels(backend::Backend& b);

}  // namespace ember::cpu
