// Thread-local grad mode, inference mode and anomaly mode, and their scope guards.
#include <atomic>

#include "core/grad_mode_state.h"
#include "ember/autograd.h"

namespace ember {
namespace {
std::atomic<bool> g_anomaly{false};  // global, like torch.autograd.set_detect_anomaly
}  // namespace

bool is_grad_enabled() { return grad_mode_state::grad_enabled; }
void set_grad_enabled(bool enabled) { grad_mode_state::grad_enabled = enabled; }
bool is_inference_mode_enabled() { return grad_mode_state::inference; }

NoGradGuard::NoGradGuard() : previous_(grad_mode_state::grad_enabled) {
  grad_mode_state::grad_enabled = false;
}
NoGradGuard::~NoGradGuard() { grad_mode_state::grad_enabled = previous_; }
EnableGradGuard::EnableGradGuard() : previous_(grad_mode_state::grad_enabled) {
  grad_mode_state::grad_enabled = true;
}
EnableGradGuard::~EnableGradGuard() { grad_mode_state::grad_enabled = previous_; }

InferenceMode::InferenceMode(bool enabled)
    : previous_grad_(grad_mode_state::grad_enabled),
      previous_inference_(grad_mode_state::inference) {
  if (enabled) {
    grad_mode_state::grad_enabled = false;
    grad_mode_state::inference = true;
  }
}
InferenceMode::~InferenceMode() {
  grad_mode_state::grad_enabled = previous_grad_;
  grad_mode_state::inference = previous_inference_;
}

namespace autograd {
void set_detect_anomaly(bool enabled) { g_anomaly.store(enabled, std::memory_order_relaxed); }
bool is_anomaly_enabled() { return g_anomaly.load(std::memory_order_relaxed); }
DetectAnomalyGuard::DetectAnomalyGuard() : previous_(is_anomaly_enabled()) {
  set_detect_anomaly(true);
}
DetectAnomalyGuard::~DetectAnomalyGuard() { set_detect_anomaly(previous_); }
}  // namespace autograd

}  // namespace ember
