// The backend seam (DESIGN.md §2): ops name their kernels by identity, each device type has one
// Backend mapping those identities to its own functions, and kernel() is the one place where a
// kernel is chosen — one table lookup and one indirect call, no dispatcher layers.
//
//   src/ops (front end)                          src/backend/cpu (a backend)
//   elementwise("exp", ElementwiseKernel::exp,   t[K::exp] = &run<kFloat, 1, exp_fn>;
//               Promote::IntToFloat, {t});
//
// The CPU backend is built in. Another one (CUDA, or a test's fake device) is installed for its
// device type and implements the same list without touching src/ops; an identity it leaves empty
// is `[exp] no kernel for cuda:0 ...`, never a host loop over device memory.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/scalar.h"
#include "ember/tensor.h"
#include "backend/reduce_kernels.h"
#include "backend/scan_kernels.h"
#include "backend/softmax_kernels.h"
#include "backend/gather_kernels.h"
#include "backend/index_kernels.h"
#include "backend/norm_kernels.h"
#include "backend/loss_kernels.h"
#include "backend/sort_kernels.h"
#include "backend/embedding_kernels.h"
#include "backend/random_kernels.h"
#include "backend/creation_kernels.h"
#include "backend/conv_kernels.h"
#include "backend/pool_kernels.h"
#include "backend/linalg_kernels.h"
#include "backend/rearrange_kernels.h"
#include "backend/resize_kernels.h"
#include "backend/optim_kernels.h"
#include "backend/amp_kernels.h"
#include "backend/elementwise_kernel_list.h"

namespace ember::backend {

// ── elementwise family (src/ops: unary, binary, compare, activation, pointwise losses) ──────
// The kernels (ElementwiseKernel) are listed in elementwise_kernel_list.h.

/// An elementwise kernel's arguments besides its operands (see each identity's comment).
struct ElementwiseArgs {
  std::array<std::optional<Scalar>, 2> scalar{};
  std::array<double, 3> real{};
  int64_t integer = 0;
  bool flag = false;
};

/// What the front end hands an elementwise kernel: operands already promoted to `compute` and
/// expanded to `out`'s shape; `out` is `compute` (bool for comparisons) on the kernel's device.
struct ElementwiseCall {
  const char* op;
  const Tensor& out;
  std::span<const Tensor> in;
  Dtype compute;
  const ElementwiseArgs& args;
};
using ElementwiseFn = void (*)(const ElementwiseCall&);

// ── copy family (src/ops/copy.cpp): copies and fills within one device ─────────────────────
/// dst[i] = convert(src[i]): equal shapes (src expanded by the front end), any layouts, dtypes.
using CopyFn = void (*)(const Tensor& dst, const Tensor& src);
/// dst[i] = value converted to dst's dtype (already checked to fit).
using FillFn = void (*)(const Tensor& dst, Scalar value);
/// Whether a and b (contiguous, one dtype and shape) hold equal values: Tensor::equal.
using EqualFn = bool (*)(const Tensor& a, const Tensor& b);

/// One device type's memory functions and kernels. Empty entries mean "not implemented here".
struct Backend {
  const char* name = nullptr;  // "cpu", "cuda", a test's name
  void* (*allocate)(Device, size_t nbytes) = nullptr;
  void (*free)(Device, void* data, size_t nbytes) = nullptr;
  std::array<ElementwiseFn, size_t(ElementwiseKernel::kCount)> elementwise{};
  CopyFn copy = nullptr;
  FillFn fill = nullptr;
  ReduceKernels reduce;
  SoftmaxKernels softmax;
  ScanKernels scan;
  GatherKernels gather;
  IndexKernels index;
  // one sub-table per family, declared in backend/<family>_kernels.h
  NormKernels norm;
  LossKernels loss;
  SortKernels sort;
  EmbeddingKernels embedding;
  RandomKernels random;
  CreationKernels creation;
  ConvKernels conv;
  PoolKernels pool;
  LinalgKernels linalg;
  RearrangeKernels rearrange;
  ResizeKernels resize;
  OptimKernels optim;       // the optimizers' fused updates
  AmpKernels amp;           // GradScaler's unscale
  EqualFn equal = nullptr;  // Tensor::equal (the copy family)

  ElementwiseFn& operator[](ElementwiseKernel k) { return elementwise[size_t(k)]; }
};

namespace detail {
const Backend& cpu_backend();
// Installed backends by device type (CPU's slot is unused: it is built in).
extern const Backend* installed[2];
}  // namespace detail

/// The backend of `type`: CPU's, or the installed one (null when none is).
inline const Backend* backend_for(DeviceType type) {
  if (type == kCPU) [[likely]]
    return &detail::cpu_backend();
  return detail::installed[size_t(type)];
}

/// Installs `b` as the backend of a non-CPU device type (nullptr removes it); returns the
/// previous one. The CUDA build installs its backend; tests install fake devices.
const Backend* install_backend(DeviceType type, const Backend* b);

/// `[op] no kernel for <device>: ...` — the error for an identity a device has no entry for.
[[noreturn]] void no_kernel(const char* op, Device device);

/// The one place a kernel is chosen: entry `id` of `device`'s backend, or no_kernel.
inline ElementwiseFn kernel(const char* op, ElementwiseKernel id, Device device) {
  const Backend* b = backend_for(device.type());
  const ElementwiseFn fn = b ? b->elementwise[size_t(id)] : nullptr;
  if (!fn) [[unlikely]]
    no_kernel(op, device);
  return fn;
}
/// The same for a family with one entry per kernel: `kernel("fill_", device, &Backend::fill)`.
template <class Fn>
Fn kernel(const char* op, Device device, Fn Backend::*entry) {
  const Backend* b = backend_for(device.type());
  const Fn fn = b ? b->*entry : nullptr;
  if (!fn) [[unlikely]]
    no_kernel(op, device);
  return fn;
}

}  // namespace ember::backend
