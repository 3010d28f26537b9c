// One-input ops (unary math, activations) defined once for all their forms: a UnaryOp names the
// op and its in-place spelling, the node its backward records, what that backward keeps (nothing,
// the input or the result) with its formula, and the kernel with its promotion and arguments.
// The out-of-place form runs the kernel and records the node; the in-place form runs the same
// kernel into self and records the same node, keeping a copy of the input taken before the kernel
// writes it (autograd::original_self).
//
//   const UnaryOp& exp_op() { static const UnaryOp d{.op = "exp", .inplace = "exp_", ...}; ... }
//   Tensor exp(const Tensor& t) { return unary(exp_op(), t); }
//   Tensor& Tensor::exp_() const { return unary_(exp_op(), *this); }
#pragma once

#include <functional>

#include "autograd/function.h"
#include "ops/elementwise.h"

namespace ember::unary_op {

using autograd::Grads;
using autograd::Recorder;
using autograd::Saved;
using autograd::TensorList;

// What a unary backward needs besides the incoming gradient: nothing, the input, or the result.
enum class Keep { Nothing, Input, Result };
// d(input) from the gradient of the output and the kept tensor (undefined for Keep::Nothing).
using UnaryGrad = std::function<Tensor(const Tensor& g, const Tensor& kept)>;

struct UnaryOp {
  const char* op;                  // "exp"
  const char* inplace;             // "exp_" (nullptr: the op has no in-place form)
  const char* node;                // "ExpBackward0"
  Keep keep;
  UnaryGrad grad;
  backend::ElementwiseKernel kernel;
  Promote promote = Promote::Default;
  backend::ElementwiseArgs args = {};
};

inline void record_unary(Recorder& rec, const UnaryOp& d, const Tensor& out,
                         const Tensor& input) {
  auto fn = [grad = d.grad](const Grads& g, const Saved& s) {
    return TensorList{grad(g[0], s.empty() ? Tensor() : s[0])};
  };
  switch (d.keep) {
    case Keep::Nothing: rec.record(d.node, {out}, {}, std::move(fn)); break;
    case Keep::Input: rec.record(d.node, {out}, {input}, std::move(fn)); break;
    case Keep::Result: rec.record(d.node, {out}, {}, std::move(fn), {out}); break;
  }
}

/// Runs `forward` (returning the result: for an op whose forward is more than its kernel, as
/// rounding's integer identity) and records d's node when `t` needs a gradient.
template <class Fwd>
Tensor unary(const UnaryOp& d, const Tensor& t, const Fwd& forward) {
  Recorder rec(d.op, {&t});
  Tensor out = forward();
  if (rec) record_unary(rec, d, out, t);
  return out;
}
/// The out-of-place form: d's kernel on `t`.
inline Tensor unary(const UnaryOp& d, const Tensor& t) {
  return unary(d, t, [&] { return elementwise(d.op, d.kernel, d.promote, {t}, d.args); });
}

/// The in-place form: d's kernel written into `self`, recorded as d's node.
inline Tensor& unary_(const UnaryOp& d, Tensor& self) {
  const Tensor before =
      autograd::original_self(self, d.keep == Keep::Input && self.requires_grad());
  Recorder rec(Recorder::InPlace{}, d.inplace, self, {});
  elementwise(d.inplace, d.kernel, d.promote, {self}, d.args, &self);
  if (rec) record_unary(rec, d, self, before);
  return self;
}

}  // namespace ember::unary_op
