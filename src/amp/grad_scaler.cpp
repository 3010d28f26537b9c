// GradScaler: PyTorch 1.13's torch/cuda/amp/grad_scaler.py state machine, with the scale and the
// growth tracker held on the host. PyTorch keeps them on the device to avoid a sync per step;
// ember's unscale_ reads the inf verdict back anyway, so the update is host arithmetic with no
// kernel, and only the check-and-unscale goes through the backend table (backend/amp_kernels.h).
// Messages are PyTorch's, after the "[GradScaler.fn]" prefix.
#include "ember/amp/grad_scaler.h"

#include <algorithm>
#include <cmath>

#include "backend/family_kernel.h"
#include "ember/autograd.h"
#include "ember/creation.h"
#include "ember/error.h"
#include "ember/math.h"

namespace ember::amp {

GradScaler::GradScaler(GradScalerOptions options)
    : enabled_(options.enabled),
      growth_factor_(options.growth_factor),
      backoff_factor_(options.backoff_factor),
      growth_interval_(options.growth_interval),
      init_scale_(options.init_scale) {
  if (!enabled_) return;
  EMBER_CHECK(growth_factor_ > 1.0, "GradScaler", "The growth factor must be > 1.0. (got ",
              growth_factor_, ")");
  EMBER_CHECK(backoff_factor_ < 1.0, "GradScaler", "The backoff factor must be < 1.0. (got ",
              backoff_factor_, ")");
}

void GradScaler::check_scaled(const char* fn) const {
  EMBER_CHECK(scaled_, (std::string("GradScaler.") + fn).c_str(), "Attempted ", fn,
              " but _scale is None.  This may indicate your script did not use "
              "scaler.scale(loss or outputs) earlier in the iteration.");
}

GradScaler::OptimizerState& GradScaler::state_of(const optim::Optimizer& optimizer) {
  return per_optimizer_[&optimizer];
}

Tensor GradScaler::scale(const Tensor& outputs) {
  if (!enabled_) return outputs;
  if (!scaled_) {
    scale_ = float(init_scale_);
    scaled_ = true;
  }
  return outputs * full({1}, scale_, {.dtype = kFloat32, .device = outputs.device()});
}

std::vector<Tensor> GradScaler::scale(const std::vector<Tensor>& outputs) {
  std::vector<Tensor> scaled;
  scaled.reserve(outputs.size());
  for (const Tensor& t : outputs) scaled.push_back(scale(t));
  return scaled;
}

void GradScaler::unscale_(optim::Optimizer& optimizer) {
  if (!enabled_) return;
  check_scaled("unscale_");
  OptimizerState& st = state_of(optimizer);
  EMBER_CHECK(st.stage != Stage::kUnscaled, "GradScaler.unscale_",
              "unscale_() has already been called on this optimizer since the last update().");
  EMBER_CHECK(st.stage != Stage::kStepped, "GradScaler.unscale_",
              "unscale_() is being called after step().");
  // PyTorch: inv_scale = _scale.double().reciprocal().float()
  const float inv_scale = float(1.0 / double(scale_));
  // Grouped by device type: each backend's amp entry checks its own, and a CUDA one reads each
  // device's verdict back once for all of that device's gradients.
  std::vector<std::vector<Tensor>> by_type;
  for (optim::ParamGroup& group : optimizer.param_groups()) {
    for (Tensor& p : group.params()) {
      Tensor& g = p.mutable_grad();
      if (!g.defined()) continue;
      EMBER_CHECK(g.dtype() != kFloat16, "GradScaler.unscale_",
                  "Attempting to unscale FP16 gradients.");
      // A gradient can be a broadcast view (the grad of x.sum() is ones expanded), which cannot
      // be written in place: it becomes a contiguous copy, the layout PyTorch's AccumulateGrad
      // gives such gradients anyway.
      if (!g.is_contiguous()) g = g.contiguous();
      auto same_type = std::find_if(by_type.begin(), by_type.end(), [&](const auto& grads) {
        return grads.front().device().type() == g.device().type();
      });
      if (same_type == by_type.end()) same_type = by_type.emplace(by_type.end());
      same_type->push_back(g);
    }
  }
  {
    NoGradGuard no_grad;
    bool found = false;
    for (const std::vector<Tensor>& grads : by_type) {
      // The backend of the gradients' device, never the CPU's for device memory: a device type
      // without the entry is `[GradScaler.unscale_] no kernel for <device>`.
      const auto unscale =
          backend::kernel("GradScaler.unscale_", grads.front().device(), &backend::Backend::amp,
                          &backend::AmpKernels::non_finite_check_and_unscale_);
      found = unscale(grads, inv_scale) || found;
    }
    if (!by_type.empty()) st.found_inf = found;
  }
  st.stage = Stage::kUnscaled;
}

bool GradScaler::step(optim::Optimizer& optimizer) {
  if (!enabled_) {
    optimizer.step();
    return true;
  }
  check_scaled("step");
  OptimizerState& st = state_of(optimizer);
  EMBER_CHECK(st.stage != Stage::kStepped, "GradScaler.step",
              "step() has already been called since the last update().");
  if (st.stage == Stage::kReady) unscale_(optimizer);
  EMBER_CHECK(st.found_inf.has_value(), "GradScaler.step",
              "No inf checks were recorded for this optimizer.");
  const bool clean = !*st.found_inf;
  if (clean) optimizer.step();
  st.stage = Stage::kStepped;
  return clean;
}

void GradScaler::update() {
  if (!enabled_) return;
  check_scaled("update");
  bool any_check = false, found_inf = false;
  for (const auto& [opt, st] : per_optimizer_) {
    if (!st.found_inf) continue;
    any_check = true;
    found_inf |= *st.found_inf;
  }
  EMBER_CHECK(any_check, "GradScaler.update", "No inf checks were recorded prior to update.");
  // PyTorch's _amp_update_scale_ (AmpKernels.cu): the float32 scale times a double factor.
  if (found_inf) {
    scale_ = float(double(scale_) * backoff_factor_);
    growth_tracker_ = 0;
  } else if (growth_tracker_ + 1 == growth_interval_) {
    const float grown = float(double(scale_) * growth_factor_);
    if (std::isfinite(grown)) scale_ = grown;  // never grow past float32's range to inf
    growth_tracker_ = 0;
  } else {
    ++growth_tracker_;
  }
  per_optimizer_.clear();
}

void GradScaler::update(double new_scale) {
  if (!enabled_) return;
  check_scaled("update");
  scale_ = float(new_scale);
  per_optimizer_.clear();
}

double GradScaler::get_scale() const {
  if (!enabled_) return 1.0;
  return scaled_ ? double(scale_) : init_scale_;
}

Dict GradScaler::state_dict() const {
  if (!enabled_) return Dict();
  return Dict{{"scale", get_scale()},
              {"growth_factor", growth_factor_},
              {"backoff_factor", backoff_factor_},
              {"growth_interval", growth_interval_},
              {"_growth_tracker", growth_tracker_}};
}

void GradScaler::load_state_dict(const Dict& state_dict) {
  if (!enabled_) return;
  EMBER_CHECK(!state_dict.empty(), "GradScaler.load_state_dict",
              "The source state dict is empty, possibly because it was saved from a disabled "
              "instance of GradScaler.");
  for (const char* key :
       {"scale", "growth_factor", "backoff_factor", "growth_interval", "_growth_tracker"})
    EMBER_CHECK(state_dict.contains(Value(key)), "GradScaler.load_state_dict",
                "the state dict has no key '", key, "'");
  init_scale_ = state_dict.at(Value("scale")).to_double();
  if (scaled_) scale_ = float(init_scale_);
  growth_factor_ = state_dict.at(Value("growth_factor")).to_double();
  backoff_factor_ = state_dict.at(Value("backoff_factor")).to_double();
  growth_interval_ = state_dict.at(Value("growth_interval")).to_int();
  growth_tracker_ = state_dict.at(Value("_growth_tracker")).to_int();
}

}  // namespace ember::amp
