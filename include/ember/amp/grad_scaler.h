// amp::GradScaler: loss scaling for float16 training, with PyTorch's semantics and defaults
// (torch.cuda.amp.GradScaler, 1.13), on any device:
//
//   amp::GradScaler scaler;                   // init_scale 65536, growth 2, backoff 0.5, 2000
//   scaler.scale(loss).backward();
//   scaler.unscale_(opt);                     // optional: true gradients for clip_grad_norm_
//   nn::utils::clip_grad_norm_(model->parameters(), 1.0);
//   scaler.step(opt);                         // skipped when any gradient is inf/NaN
//   scaler.update();                          // backs off after a skip, grows after 2000 clean
//
// state_dict() is {"scale", "growth_factor", "backoff_factor", "growth_interval",
// "_growth_tracker"} as PyTorch's, so a checkpoint carries it.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "ember/optim/optimizer.h"
#include "ember/tensor.h"
#include "ember/value.h"

namespace ember::amp {

struct GradScalerOptions {
  double init_scale = 65536.0;  // 2**16
  double growth_factor = 2.0;
  double backoff_factor = 0.5;
  int64_t growth_interval = 2000;
  bool enabled = true;
};

class GradScaler {
 public:
  /// Throws ember::Error unless growth_factor > 1 and backoff_factor < 1 (when enabled).
  explicit GradScaler(GradScalerOptions options = {});

  /// outputs * scale, with the scale as a 1-element float32 tensor (so a 0-d loss becomes
  /// shape [1], as in PyTorch). Disabled: outputs unchanged.
  Tensor scale(const Tensor& outputs);
  std::vector<Tensor> scale(const std::vector<Tensor>& outputs);

  /// Divides the optimizer's gradients by the scale in place and records whether any was inf or
  /// NaN (one pass over all gradients). At most once per optimizer between update()s.
  void unscale_(optim::Optimizer& optimizer);
  /// Unscales (unless unscale_ ran) and runs optimizer.step() unless a gradient was inf/NaN.
  /// Returns whether the optimizer stepped. Disabled: always steps.
  bool step(optim::Optimizer& optimizer);
  /// Backs the scale off if any optimizer saw inf/NaN since the last update, else counts a
  /// clean step and grows the scale every growth_interval clean steps (never to inf).
  void update();
  /// Sets the scale to new_scale instead (the growth tracker is kept).
  void update(double new_scale);

  /// The current scale (init_scale before the first scale()); 1.0 when disabled.
  double get_scale() const;
  double get_growth_factor() const { return growth_factor_; }
  void set_growth_factor(double factor) { growth_factor_ = factor; }
  double get_backoff_factor() const { return backoff_factor_; }
  void set_backoff_factor(double factor) { backoff_factor_ = factor; }
  int64_t get_growth_interval() const { return growth_interval_; }
  void set_growth_interval(int64_t interval) { growth_interval_ = interval; }
  /// Clean steps counted toward the next growth.
  int64_t growth_tracker() const { return growth_tracker_; }
  bool is_enabled() const { return enabled_; }

  /// PyTorch's keys; an empty Dict when disabled.
  Dict state_dict() const;
  /// Restores state_dict() (a no-op when disabled); an empty dict is an error, as in PyTorch.
  void load_state_dict(const Dict& state_dict);

 private:
  enum class Stage { kReady, kUnscaled, kStepped };
  struct OptimizerState {
    Stage stage = Stage::kReady;
    std::optional<bool> found_inf;  // set by unscale_; nullopt when it saw no gradients
  };
  void check_scaled(const char* fn) const;
  OptimizerState& state_of(const optim::Optimizer& optimizer);

  bool enabled_;
  double growth_factor_, backoff_factor_;
  int64_t growth_interval_;
  // PyTorch keeps init_scale as given until the first scale() creates the float32 scale tensor;
  // scale_ is that tensor's value once scaled_.
  double init_scale_;
  float scale_ = 0;
  bool scaled_ = false;
  int64_t growth_tracker_ = 0;
  std::unordered_map<const optim::Optimizer*, OptimizerState> per_optimizer_;
};

}  // namespace ember::amp
