// The host half of the CUDA class-index loss kernels, apart from the CUDA build so that every
// build compiles and tests it: a backend::ClassLossCall becomes the passes of a
// kernels::ClassLossLaunch (loss_launch.h) over device scratch the caller allocates. No device
// is touched.
#pragma once

#include <array>
#include <cstdint>

#include "backend/backend.h"
#include "backend/cuda/loss_launch.h"

namespace ember::cuda {

/// The scratch elements (of c.x's dtype) the forward needs (the per-position terms).
int64_t class_loss_scratch(const backend::ClassLossCall& c);

/// The forward's passes: terms, then total (not to be launched for reduction none).
/// `terms` holds class_loss_scratch(c) elements, `bad` a zeroed bad-index record.
std::array<kernels::ClassLossLaunch, 2> plan_class_loss_launches(const backend::ClassLossCall& c,
                                                                 const Tensor& out, void* terms,
                                                                 int64_t* bad);

/// The backward's passes: weight_sums (into `sums`, 2 elements of c.x's dtype), then grad.
std::array<kernels::ClassLossLaunch, 2> plan_class_loss_backward_launches(
    const backend::ClassLossCall& c, const Tensor& grad_input, const Tensor& grad, void* sums,
    int64_t* bad);

/// `[op] Target t is out of bounds.` (the CPU kernel's words) when `record` holds a target.
void raise_bad_target(const char* op, const int64_t* record);

}  // namespace ember::cuda
