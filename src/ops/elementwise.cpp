// Elementwise front end: promotion, broadcasting, output allocation, in-place rules.
#include "ops/elementwise.h"

#include "core/op_entry.h"
#include "core/result_type.h"

#include <algorithm>

#include "ember/creation.h"
#include "ember/shape.h"
#include "ops/dim_order.h"
#include "ops/memory_overlap.h"

namespace ember {
namespace {

// PyTorch's canCast: no floating -> integral, no non-bool -> bool.
bool can_cast(Dtype from, Dtype to) {
  if (is_floating_point(from) && !is_floating_point(to)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

// Note [Output layout]: the output's dims are ordered as TensorIterator orders them. Walking the
// tensor operands in order, the first one whose strides differ on two dims decides which of them
// is inner (broadcast dims, stride 0, have no say; equal strides put the smaller dim inside), so
// `x.t() * 2` stays transposed and `a + b.t()` follows a; with no opinion it is row-major.
Tensor allocate_output(IntArrayRef shape, Dtype dtype, Device device,
                       std::span<const Operand> operands) {
  const int64_t nd = int64_t(shape.size());
  std::vector<DimVector> strides;  // each tensor's strides in the broadcast shape, 0 if broadcast
  bool all_contiguous = true;
  for (const Operand& o : operands) {
    const Tensor* t = o.tensor();
    if (!t) continue;
    all_contiguous &= t->is_contiguous();
    DimVector s(nd, 0);
    for (int64_t i = 0, lead = nd - t->dim(); i < t->dim(); ++i)
      if (t->sizes()[i] == shape[lead + i]) s[lead + i] = t->strides()[i];
    strides.push_back(std::move(s));
  }
  if (all_contiguous || nd <= 1) return empty(shape, {.dtype = dtype, .device = device});
  const auto should_swap = [&](int64_t d0, int64_t d1) {
    for (const DimVector& s : strides) {
      if (s[d0] == 0 || s[d1] == 0) continue;
      if (s[d0] != s[d1]) return s[d0] < s[d1] ? -1 : 1;
      if (shape[d0] > shape[d1]) return 1;
    }
    return 0;
  };
  // TensorIterator's reorder_dimensions: stops at the first operand with a firm opinion.
  const DimVector perm = dims_innermost_first(nd, should_swap);
  DimVector out_strides(nd);
  int64_t next = 1;
  for (int64_t i = 0; i < nd; ++i) {
    out_strides[perm[i]] = next;
    next *= shape[perm[i]];
  }
  return empty_strided(shape, out_strides, {.dtype = dtype, .device = device});
}

// broadcast_shapes, with the op's name in the error ("[add] the size of tensor a (3) must ...").
DimVector broadcast(const char* op, IntArrayRef a, IntArrayRef b) {
  const size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    EMBER_CHECK(da == db || da == 1 || db == 1, op, "the size of tensor a (", da,
                ") must match the size of tensor b (", db, ") at non-singleton dimension ", i);
  }
  return broadcast_shapes(a, b);
}

// A Python scalar becomes a 0-d tensor of the compute dtype with a plain cast, wrapping like
// PyTorch's scalar conversion (int8 tensor + 1000 wraps; fill_ would reject the value).
Tensor wrap_scalar(Scalar value, Dtype dtype) {
  Tensor t = empty({}, {.dtype = dtype});
  backend::detail::cpu_backend().fill(t, value);
  return t;
}

// What the kernel is handed, and what the op returns.
struct ElementwisePlan {
  backend::ElementwiseFn kernel;  // the op's kernel on the operands' device
  Tensor out;                 // what the kernel writes (dtype = compute, or bool for ToBool/Bool)
  std::vector<Tensor> in;     // inputs in the compute dtype, expanded to out's shape
  Dtype compute;
  Tensor result;              // what the op returns (the target tensor when given)
};

// Checks, promotes, broadcasts, picks the kernel and allocates.
ElementwisePlan plan_elementwise(const char* op, backend::ElementwiseKernel kernel,
                                 std::span<const Operand> operands, Promote mode,
                                 const Tensor* target) {
  ElementwisePlan plan;
  // Device and shape.
  std::optional<Device> device;
  DimVector shape;
  for (const Operand& o : operands) {
    const Tensor* t = o.tensor();
    if (!t) continue;
    EMBER_CHECK(t->defined(), op, "expected a defined tensor");
    if (!device || (device->is_cpu() && !t->is_cpu())) device = t->device();
    shape = broadcast(op, shape, t->sizes());
  }
  if (!device) device = Device(kCPU);
  if (!device->is_cpu()) {  // (the op's scope checked its own inputs; these may be derived ones)
    std::vector<const Tensor*> tensors;
    for (const Operand& o : operands) tensors.push_back(o.tensor());
    check_same_device(op, tensors);
  }
  // Before anything is allocated there: a device without the kernel is refused by name.
  plan.kernel = backend::kernel(op, kernel, *device);

  const Dtype common = result_type_of(operands);
  switch (mode) {
    case Promote::Default:
    case Promote::ToBool: plan.compute = common; break;
    case Promote::IntToFloat:
      plan.compute = is_floating_point(common) ? common : default_dtype();
      break;
    case Promote::Bool: plan.compute = kBool; break;
  }
  const bool bool_out = mode == Promote::ToBool || mode == Promote::Bool;
  const Dtype kernel_dtype = bool_out ? kBool : plan.compute;

  if (target) {
    const Tensor& t = *target;
    EMBER_CHECK(t.sizes() == IntArrayRef(shape), op, "output with shape ", t.sizes(),
                " doesn't match the broadcast shape ", IntArrayRef(shape));
    EMBER_CHECK(can_cast(kernel_dtype, t.dtype()), op, "result type ", kernel_dtype,
                " can't be cast to the desired output type ", t.dtype());
    check_no_internal_overlap(t, op);
    for (const Operand& o : operands) {
      const Tensor* in = o.tensor();
      if (!in || in->is_same(t)) continue;
      if (!same_elements(*in, t) && may_overlap(*in, t)) fail_input_overlaps_output(op);
    }
    plan.result = t;
    plan.out = t.dtype() == kernel_dtype ? t : empty(shape, {.dtype = kernel_dtype, .device = device});
  } else {
    plan.out = allocate_output(shape, kernel_dtype, *device, operands);
    plan.result = plan.out;
  }

  plan.in.reserve(operands.size());
  for (const Operand& o : operands) {
    Tensor t = o.tensor() ? o.tensor()->to(plan.compute) : wrap_scalar(o.scalar(), plan.compute);
    plan.in.push_back(t.sizes() == IntArrayRef(shape) ? t : t.expand(shape));
  }
  return plan;
}

// Copies the kernel's output into the result when they differ, and bumps versions.
void finish_elementwise(ElementwisePlan& plan, const Tensor* target) {
  if (!plan.out.is_same(plan.result)) {
    plan.result.copy_(plan.out);  // bumps the version itself
  } else if (target) {
    plan.result.storage()->bump_version();
  }
}

}  // namespace

Tensor elementwise(const char* op, backend::ElementwiseKernel kernel, Promote mode,
                   std::initializer_list<Operand> operands, const backend::ElementwiseArgs& args,
                   const Tensor* target) {
  // The operands stay in the caller's initializer list: no allocation for them.
  ElementwisePlan plan =
      plan_elementwise(op, kernel, std::span(operands.begin(), operands.size()), mode, target);
  plan.kernel({op, plan.out, plan.in, plan.compute, args});
  finish_elementwise(plan, target);
  return plan.result;
}

}  // namespace ember
