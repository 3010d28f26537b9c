// Thread-local grad mode, inference mode and anomaly mode, and their scope guards.
#include <atomic>

#include "ember/autograd.h"

namespace ember {
namespace {
thread_local bool t_grad_enabled = true;
thread_local bool t_inference = false;
std::atomic<bool> g_anomaly{false};  // global, like torch.autograd.set_detect_anomaly
}  // namespace

bool is_grad_enabled() { return t_grad_enabled; }
void set_grad_enabled(bool enabled) { t_grad_enabled = enabled; }
bool is_inference_mode_enabled() { return t_inference; }

NoGradGuard::NoGradGuard() : previous_(t_grad_enabled) { t_grad_enabled = false; }
NoGradGuard::~NoGradGuard() { t_grad_enabled = previous_; }
EnableGradGuard::EnableGradGuard() : previous_(t_grad_enabled) { t_grad_enabled = true; }
EnableGradGuard::~EnableGradGuard() { t_grad_enabled = previous_; }

InferenceMode::InferenceMode(bool enabled)
    : previous_grad_(t_grad_enabled), previous_inference_(t_inference) {
  if (enabled) {
    t_grad_enabled = false;
    t_inference = true;
  }
}
InferenceMode::~InferenceMode() {
  t_grad_enabled = previous_grad_;
  t_inference = previous_inference_;
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
