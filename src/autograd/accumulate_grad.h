// AccumulateGrad: the node at each leaf that adds incoming gradients into leaf.grad().
#pragma once

#include "ember/autograd.h"

namespace ember::autograd {

class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(const Tensor& leaf);
  std::string name() const override { return "AccumulateGrad"; }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override;
  const intrusive_ptr<TensorImpl>& leaf() const { return leaf_; }

 private:
  intrusive_ptr<TensorImpl> leaf_;
};

}  // namespace ember::autograd
