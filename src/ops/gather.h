// Front-end helpers shared by the gather family's files (gather, index_select, take, masked).
#pragma once

#include "backend/family_kernel.h"
#include "ember/tensor.h"

namespace ember {

/// Tensors of rank 0 take part as rank 1 (PyTorch's ensure_nonempty_dim).
inline Tensor at_least_1d(const Tensor& t) { return t.dim() == 0 ? t.reshape({1}) : t; }

/// The gather family's kernel `entry` on `device` (`[op] no kernel for <device>` without it).
template <class Fn>
Fn gather_kernel(const char* op, Device device, Fn backend::GatherKernels::*entry) {
  return backend::kernel(op, device, &backend::Backend::gather, entry);
}

/// Runs body(work) on a contiguous tensor holding self's values, then writes it back to self
/// when self itself was not contiguous.
template <class F>
Tensor& in_place(Tensor& self, const F& body) {
  Tensor work = self.is_contiguous() ? self : self.contiguous();
  body(work);
  if (work.is_same(self))
    self.storage()->bump_version();
  else
    self.copy_(work);
  return self;
}

}  // namespace ember
