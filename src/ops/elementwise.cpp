// Elementwise front end: promotion, broadcasting, output allocation, in-place rules.
#include "ops/elementwise.h"

#include <algorithm>

#include "ember/creation.h"
#include "ember/shape.h"

namespace ember {
namespace {

// PyTorch's canCast: no floating -> integral, no non-bool -> bool.
bool can_cast(Dtype from, Dtype to) {
  if (is_floating_point(from) && !is_floating_point(to)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

bool dense_non_overlapping(const Tensor& t, DimVector& order) {
  order.resize(0);
  for (int64_t d = 0; d < t.dim(); ++d) order.push_back(d);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return t.strides()[a] > t.strides()[b]; });
  int64_t expected = 1;
  for (int64_t i = t.dim() - 1; i >= 0; --i) {
    const int64_t d = order[i];
    if (t.sizes()[d] == 1) continue;
    if (t.strides()[d] != expected) return false;
    expected *= t.sizes()[d];
  }
  return true;
}

// Output layout follows the first input that has the full shape and a dense, permuted layout
// (so `x.T() * 2` stays transposed, as in PyTorch); otherwise row-major.
Tensor allocate_output(IntArrayRef shape, Dtype dtype, Device device,
                       const std::vector<Operand>& operands) {
  for (const Operand& o : operands) {
    const Tensor* t = o.tensor();
    if (!t || t->sizes() != shape || t->is_contiguous()) continue;
    DimVector order;
    if (!dense_non_overlapping(*t, order)) break;
    DimVector strides(shape.size());
    int64_t s = 1;
    for (int64_t i = int64_t(order.size()) - 1; i >= 0; --i) {
      strides[order[i]] = s;
      s *= std::max<int64_t>(shape[order[i]], 1);
    }
    return empty_strided(shape, strides, {.dtype = dtype, .device = device});
  }
  return empty(shape, {.dtype = dtype, .device = device});
}

bool overlaps(const Tensor& a, const Tensor& b) {
  if (a.numel() == 0 || b.numel() == 0 || a.storage().get() != b.storage().get()) return false;
  auto extent = [](const Tensor& t) {
    int64_t lo = t.storage_offset(), hi = t.storage_offset();
    for (int64_t d = 0; d < t.dim(); ++d) hi += (t.sizes()[d] - 1) * t.strides()[d];
    return std::pair{lo * t.element_size(), (hi + 1) * t.element_size()};
  };
  const auto [a0, a1] = extent(a);
  const auto [b0, b1] = extent(b);
  return a0 < b1 && b0 < a1;
}

}  // namespace

ElementwisePlan plan_elementwise(const char* op, const std::vector<Operand>& operands,
                                 Promote mode, const Tensor* target, bool is_out) {
  ElementwisePlan plan;
  // Device and shape.
  std::optional<Device> device;
  DimVector shape;
  for (const Operand& o : operands) {
    const Tensor* t = o.tensor();
    if (!t) continue;
    EMBER_CHECK(t->defined(), op, "expected a defined tensor");
    if (!device) device = t->device();
    EMBER_CHECK(t->device() == *device || t->dim() == 0, op,
                "expected all tensors to be on the same device, but found at least two devices, ",
                *device, " and ", t->device(), "!");
    shape = broadcast_shapes(shape, t->sizes());
  }
  if (!device) device = Device(kCPU);

  const Dtype common = result_type(operands);
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
    if (is_out && t.sizes() != IntArrayRef(shape)) {
      EMBER_CHECK(t.numel() == 0, op, "output with shape ", t.sizes(),
                  " doesn't match the broadcast shape ", IntArrayRef(shape));
    }
    EMBER_CHECK(t.sizes() == IntArrayRef(shape), op, "output with shape ", t.sizes(),
                " doesn't match the broadcast shape ", IntArrayRef(shape));
    EMBER_CHECK(can_cast(kernel_dtype, t.dtype()), op, "result type ", kernel_dtype,
                " can't be cast to the desired output type ", t.dtype());
    for (int64_t d = 0; d < t.dim(); ++d)
      EMBER_CHECK(t.strides()[d] != 0 || t.sizes()[d] <= 1, op,
                  "unsupported operation: more than one element of the written-to tensor refers "
                  "to a single memory location. Please clone() the tensor before performing the "
                  "operation.");
    for (const Operand& o : operands) {
      const Tensor* in = o.tensor();
      if (!in || in->is_same(t)) continue;
      const bool identical = in->data_ptr() == t.data_ptr() && in->strides() == t.strides() &&
                             in->sizes() == t.sizes();
      EMBER_CHECK(identical || !overlaps(*in, t), op,
                  "unsupported operation: some elements of the input tensor and the written-to "
                  "tensor refer to a single memory location. Please clone() the tensor before "
                  "performing the operation.");
    }
    plan.result = t;
    plan.out = t.dtype() == kernel_dtype ? t : empty(shape, {.dtype = kernel_dtype, .device = device});
  } else {
    plan.out = allocate_output(shape, kernel_dtype, *device, operands);
    plan.result = plan.out;
  }

  plan.in.reserve(operands.size());
  for (const Operand& o : operands) {
    Tensor t = o.tensor() ? o.tensor()->to(plan.compute)
                          : full({}, o.scalar(), {.dtype = plan.compute, .device = device});
    plan.in.push_back(t.sizes() == IntArrayRef(shape) ? t : t.expand(shape));
  }
  return plan;
}

void finish_elementwise(ElementwisePlan& plan, const Tensor* target) {
  if (!plan.out.is_same(plan.result)) {
    plan.result.copy_(plan.out);  // bumps the version itself
  } else if (target) {
    plan.result.storage()->bump_version();
  }
}

}  // namespace ember
