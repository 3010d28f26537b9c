// The lookup of backend.h for families whose kernels sit in their own sub-table of Backend
// (backend/<family>_kernels.h): still one table lookup and one indirect call.
//
//   backend::kernel("sum", t.device(), &Backend::reduce, &ReduceKernels::sum)(call);
#pragma once

#include "backend/backend.h"

namespace ember::backend {

/// Entry `entry` of sub-table `family` of `device`'s backend, or null where that device has none
/// (an optional entry: a fused path the front end takes only where a backend offers it).
template <class Family, class Fn>
Fn optional_kernel(Device device, Family Backend::*family, Fn Family::*entry) {
  const Backend* b = backend_for(device.type());
  return b ? b->*family.*entry : nullptr;
}

/// Entry `entry` of sub-table `family` of `device`'s backend, or `[op] no kernel for <device>`.
template <class Family, class Fn>
Fn kernel(const char* op, Device device, Family Backend::*family, Fn Family::*entry) {
  const Fn fn = optional_kernel(device, family, entry);
  if (!fn) [[unlikely]]
    no_kernel(op, device);
  return fn;
}

}  // namespace ember::backend
