// Helpers shared by the optimizers' front ends: the checks and state buffers around each fused
// update, and the lookup of the update's kernel on the parameter's device
// (backend/optim_kernels.h; the CPU's are in backend/cpu/optim_*.cpp).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>

#include "backend/family_kernel.h"
#include "core/op_entry.h"
#include "ember/error.h"
#include "ember/tensor.h"

namespace ember::optim::detail {

/// The parameter's dense gradient as a contiguous tensor of the parameter's dtype (a copy only
/// when the gradient is strided or of another dtype).
Tensor dense_grad(const char* op, const Tensor& param);

/// Checks the parameter is contiguous float32/float64 — what the fused kernels read.
void check_param(const char* op, const Tensor& param);

/// A zero-filled state buffer shaped like the parameter (contiguous).
Tensor zeros_like_param(const Tensor& param);

/// Increments a 0-d float32 "step" tensor in float32, as PyTorch's `step_t += 1`, and returns
/// its value (PyTorch's step_t.item()). PyTorch keeps it on the CPU, whatever the parameter's
/// device.
double increment_step(Tensor& step);

/// Marks the parameter modified in place (bumps the version counter, as add_/addcdiv_ would).
void mark_updated(const Tensor& param);

/// Checks a state buffer read from the state dict matches its parameter (dtype, size, layout).
void check_state(const char* op, const Tensor& buf, const Tensor& param, const char* key);

/// Update `entry` of the device of `tensors` (the parameter first, then its gradient and state
/// buffers; undefined ones are absent): `[op] expected all tensors on one device, ...` when they
/// are on two, `[op] no kernel for <device>` when that device has no such update.
template <class Fn>
Fn update_kernel(const char* op, std::initializer_list<const Tensor*> tensors,
                 Fn backend::OptimKernels::*entry) {
  const std::span<const Tensor* const> all(tensors.begin(), tensors.size());
  for (const Tensor* t : all)
    if (t->defined() && !t->is_cpu()) [[unlikely]] {
      check_same_device(op, all);
      break;
    }
  return backend::kernel(op, all[0]->device(), &backend::Backend::optim, entry);
}

}  // namespace ember::optim::detail
