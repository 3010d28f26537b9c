// result_type: PyTorch's ResultTypeState (aten/src/ATen/native/TypeProperties.cpp) over ember's
// tensors and scalars. See Note [Result type priority].
#include "ember/promotion.h"

#include "core/result_type.h"

#include <array>
#include <optional>

#include "ember/error.h"

namespace ember {

// Note [Result type priority]
// Operands fall into three priority levels, each promoted on its own with promote_types:
// dimensioned tensors, 0-d tensors, and wrapped scalars (C++ numbers, PyTorch's Python numbers).
// A scalar takes bool -> bool, integer -> int64, floating -> default_dtype(), so a Python float
// never asks for float64. The levels are then combined from the lowest up: a lower level only
// changes the result when it is of a higher category (bool < integral < floating) than the
// level above it, so tensor(int8) + 1000 stays int8 but tensor(int8) + 2.5 becomes float32.
namespace {

using MaybeDtype = std::optional<Dtype>;

MaybeDtype promote_skip_undefined(MaybeDtype a, MaybeDtype b) {
  if (!a) return b;
  if (!b) return a;
  return promote_types(*a, *b);
}

// The result of a higher-priority level `higher` given everything below it, `lower`.
MaybeDtype combine_categories(MaybeDtype higher, MaybeDtype lower) {
  if (higher && is_floating_point(*higher)) return higher;
  // A bool level takes any integral or floating lower level; an integral one only a floating one.
  if (higher == kBool || (lower && is_floating_point(*lower))) {
    return promote_skip_undefined(higher, lower);
  }
  return higher ? higher : lower;
}

struct ResultTypeState {
  MaybeDtype dim_result;      // tensors with dim() > 0
  MaybeDtype zero_result;     // 0-d tensors
  MaybeDtype wrapped_result;  // scalars

  void update(const Tensor& t) {
    if (!t.defined()) return;  // PyTorch skips undefined tensors too
    MaybeDtype& level = t.dim() > 0 ? dim_result : zero_result;
    level = promote_skip_undefined(level, t.dtype());
  }
  void update(const Scalar& s) {
    wrapped_result = promote_skip_undefined(wrapped_result, s.dtype());
  }
  MaybeDtype result() const {
    return combine_categories(dim_result, combine_categories(zero_result, wrapped_result));
  }
};

Dtype finish(const ResultTypeState& state) {
  const MaybeDtype r = state.result();
  EMBER_CHECK(r.has_value(), "result_type", "expected at least one defined tensor or scalar");
  return *r;
}

}  // namespace

Dtype result_type(const std::vector<Operand>& operands) { return result_type_of(operands); }

Dtype result_type_of(std::span<const Operand> operands) {
  EMBER_CHECK(!operands.empty(), "result_type", "expected at least one operand, got none");
  ResultTypeState state;
  for (const Operand& op : operands) {
    if (op.tensor()) {
      state.update(*op.tensor());
    } else {
      state.update(op.scalar());
    }
  }
  return finish(state);
}

Dtype result_type(const Tensor& a, const Tensor& b) {
  return result_type_of(std::array{Operand(a), Operand(b)});
}
Dtype result_type(const Tensor& a, Scalar b) {
  return result_type_of(std::array{Operand(a), Operand(b)});
}
Dtype result_type(Scalar a, const Tensor& b) {
  return result_type_of(std::array{Operand(a), Operand(b)});
}

}  // namespace ember
