// The lookup for families whose kernels sit in a sub-table of Backend (GatherKernels gather;
// ...): the same one lookup as backend::kernel(), one level deeper.
//
//   const auto take = backend::family_kernel("take", t.device(), &Backend::gather,
//                                            &GatherKernels::take);
#pragma once

#include "backend/backend.h"

namespace ember::backend {

/// Entry `entry` of sub-table `family` of `device`'s backend, or `[op] no kernel for <device>`.
template <class Family, class Fn>
Fn family_kernel(const char* op, Device device, Family Backend::*family, Fn Family::*entry) {
  const Backend* b = backend_for(device.type());
  const Fn fn = b ? b->*family.*entry : nullptr;
  if (!fn) [[unlikely]]
    no_kernel(op, device);
  return fn;
}

}  // namespace ember::backend
