// What src/autograd does with a tensor's autograd slot (core/autograd_meta.h): its gradient
// edge, its history, views' regenerated histories, hook ids.
#pragma once

#include <memory>

#include "core/autograd_meta.h"
#include "ember/autograd.h"
#include "ember/tensor.h"

namespace ember {
namespace autograd {

/// The edge a tensor's gradient flows into: (grad_fn, output_nr) for results, the
/// AccumulateGrad node for leaves that require grad, an invalid edge otherwise.
Edge gradient_edge(const Tensor& t);

/// Marks `output` as output `output_nr` of `node` (requires_grad follows).
void set_history(const Tensor& output, const std::shared_ptr<Node>& node, uint32_t output_nr);

/// A view whose base was written in place since its history was set gets a fresh history, an
/// as_strided of the base as it is now (Note [In-place on views]); everything that reads a
/// tensor's history calls this first.
void regenerate_view_history(const Tensor& view);
inline void refresh_view_history(const Tensor& t) {
  const TensorImpl* impl = t.impl();
  if (impl->view_base() && impl->view_history_stale()) regenerate_view_history(t);
}

/// A fresh id for hooks (unique per process).
uint64_t next_hook_id();

}  // namespace autograd
}  // namespace ember
