// The thread's grad mode and inference mode flags (PyTorch's GradMode and InferenceMode state).
// They sit in core because a new TensorImpl records whether InferenceMode made it; autograd's
// guards and queries (autograd/grad_mode.cpp, ember/autograd.h) are the only writers.
#pragma once

namespace ember::grad_mode_state {

inline thread_local bool grad_enabled = true;
inline thread_local bool inference = false;

}  // namespace ember::grad_mode_state
