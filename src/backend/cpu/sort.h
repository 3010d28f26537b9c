// The CPU sort family is two files, so that neither takes over 30 s to compile: sort.cpp (sort,
// topk) fills the table's sort entries and calls sort_select.cpp's for the selections.
#pragma once

#include "backend/backend.h"

namespace ember::cpu {

/// Fills kthvalue, median, median_all and mode of b.sort (sort_select.cpp).
void add_sort_select_kernels(backend::Backend& b);

}  // namespace ember::cpu
