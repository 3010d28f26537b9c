// torch::NoGradGuard, torch::AutoGradMode, torch::manual_seed and the thread settings.
#pragma once

#include "torch/types.h"

namespace torch {

/// LibTorch's AutoGradMode: sets grad mode for its scope (ember's set_grad_enabled, restored).
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : previous_(ember::is_grad_enabled()) {
    ember::set_grad_enabled(enabled);
  }
  ~AutoGradMode() { ember::set_grad_enabled(previous_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool previous_;
};

}  // namespace torch
