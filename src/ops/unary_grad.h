// Autograd glue for one-input ops (unary math, activations): run the forward, then record one
// node whose formula maps the output's gradient and one kept tensor (nothing, the input, or the
// result) to the input's gradient. The in-place forms keep a copy of the input taken before the
// kernel writes it (autograd::original_self).
#pragma once

#include <functional>

#include "autograd/function.h"

namespace ember::unary_grad {

using autograd::Grads;
using autograd::Recorder;
using autograd::Saved;
using autograd::TensorList;

// What a unary backward needs besides the incoming gradient: nothing, the input, or the result.
enum class Keep { Nothing, Input, Result };
// d(input) from the gradient of the output and the kept tensor (undefined for Keep::Nothing).
using UnaryGrad = std::function<Tensor(const Tensor& g, const Tensor& kept)>;

inline void record_unary(Recorder& rec, const char* node, const Tensor& out,
                         const Tensor& input, Keep keep, UnaryGrad grad) {
  auto fn = [grad = std::move(grad)](const Grads& g, const Saved& s) {
    return TensorList{grad(g[0], s.empty() ? Tensor() : s[0])};
  };
  switch (keep) {
    case Keep::Nothing: rec.record(node, {out}, {}, std::move(fn)); break;
    case Keep::Input: rec.record(node, {out}, {input}, std::move(fn)); break;
    case Keep::Result: rec.record(node, {out}, {}, std::move(fn), {out}); break;
  }
}

// Runs `forward` (returning the result) and records `node` when `t` needs a gradient.
template <class Fwd>
Tensor unary(const char* op, const char* node, const Tensor& t, Keep keep, UnaryGrad grad,
             const Fwd& forward) {
  Recorder rec(op, {&t});
  Tensor out = forward();
  if (rec) record_unary(rec, node, out, t, keep, std::move(grad));
  return out;
}

// The in-place form: `forward` writes `self`; a kept input is a copy taken before it does.
template <class Fwd>
Tensor& unary_(const char* op, const char* node, Tensor& self, Keep keep, UnaryGrad grad,
               const Fwd& forward) {
  const Tensor before = autograd::original_self(self, keep == Keep::Input && self.requires_grad());
  Recorder rec(Recorder::InPlace{}, op, self, {});
  forward();
  if (rec) record_unary(rec, node, self, before, keep, std::move(grad));
  return self;
}

}  // namespace ember::unary_grad
