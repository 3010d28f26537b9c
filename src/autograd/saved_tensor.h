// Tensors a node saves for its backward (autograd::Recorder's `saved`), and the anomaly-mode trace
// of where a node was created.
#pragma once

#include <memory>
#include <string>

#include "autograd/autograd_meta.h"

namespace ember::autograd {

/// The creation trace anomaly mode attaches to a node: "  <name> created by:" and the stack.
std::string capture_trace(const std::string& name);

/// A tensor saved for backward, with the version it had when saved. unpack() raises PyTorch's
/// errors when the graph was already freed or the tensor was modified in place since.
/// Outputs of the saving node itself are kept without their grad_fn (which would be a cycle).
class SavedTensor {
 public:
  SavedTensor() = default;
  explicit SavedTensor(const Tensor& t, bool is_output = false);
  Tensor unpack(const std::shared_ptr<Node>& owner) const;
  void reset() {
    data_ = Tensor();
    hooked_.reset();
    released_ = true;
  }
  bool defined() const { return data_.defined() || hooked_ || released_; }

 private:
  struct Hooked;  // what a saved_tensors_hooks region's pack returned, and its unpack
  Tensor data_;
  std::shared_ptr<const Hooked> hooked_;
  uint32_t version_ = 0;
  bool is_output_ = false;
  bool released_ = false;
  uint32_t output_nr_ = 0;
};

}  // namespace ember::autograd
