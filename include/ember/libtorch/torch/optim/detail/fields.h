// The fields of LibTorch's optimizer options and parameter states, declared once per class and
// used generically: the builder accessors (TORCH_ARG, torch/arg.h), and a table of {key, member,
// ember's member} that converts to ember's options structs, compares, and moves fields to and
// from archives and ember's per-parameter state Dicts. Six optimizers share this instead of each
// spelling every field five times.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ember/optim/optimizer.h"
#include "ember/tensor.h"
#include "ember/value.h"
#include "torch/arg.h"

namespace torch::optim::detail {

using Betas = std::tuple<double, double>;

/// An option: its key in PyTorch's group dict, the LibTorch member, the ember member.
template <class Owner, class T, class EmberMember>
struct OptionField {
  const char* key;
  T Owner::*member;
  EmberMember ember;
};
template <class Owner, class T, class EmberMember>
OptionField(const char*, T Owner::*, EmberMember) -> OptionField<Owner, T, EmberMember>;

/// A per-parameter state entry: its key in PyTorch's state dict and the LibTorch member.
template <class Owner, class T>
struct StateField {
  const char* key;
  T Owner::*member;
};
template <class Owner, class T>
StateField(const char*, T Owner::*) -> StateField<Owner, T>;

// ── options ─────────────────────────────────────────────────────────────
inline double ember_setting(double v) { return v; }
inline bool ember_setting(bool v) { return v; }
inline ember::optim::Betas ember_setting(const Betas& v) {
  return {std::get<0>(v), std::get<1>(v)};
}

inline int64_t ember_setting(int64_t v) { return v; }
/// An unset LibTorch optional (LBFGS's max_eval, line_search_fn) leaves ember's setting unset.
template <class T>
ember::optim::Setting<T> ember_setting(const std::optional<T>& v) {
  return v ? ember::optim::Setting<T>(*v) : ember::optim::Setting<T>();
}

inline ember::Value option_value(double v) { return ember::Value(v); }
inline ember::Value option_value(bool v) { return ember::Value(v); }
inline ember::Value option_value(const Betas& v) {
  return ember::Value(ember::Tuple{{ember::Value(std::get<0>(v)), ember::Value(std::get<1>(v))}});
}

/// A LibTorch field from an option's value (ints convert to double; betas from a tuple or list
/// of two); throws ember::Error naming `key` for another kind.
void option_from_value(const ember::Value& value, const char* key, double& out);
void option_from_value(const ember::Value& value, const char* key, bool& out);
void option_from_value(const ember::Value& value, const char* key, Betas& out);
void option_from_value(const ember::Value& value, const char* key, int64_t& out);
void option_from_value(const ember::Value& value, const char* key, std::optional<int64_t>& out);
void option_from_value(const ember::Value& value, const char* key, std::optional<std::string>& out);

/// ember's options struct with every field set from the LibTorch options.
template <class Options>
typename Options::EmberOptions to_ember(const Options& options) {
  typename Options::EmberOptions out;
  std::apply(
      [&](const auto&... f) { ((out.*(f.ember) = ember_setting(options.*(f.member))), ...); },
      Options::fields());
  return out;
}

template <class Options>
bool options_equal(const Options& a, const Options& b) {
  return std::apply([&](const auto&... f) { return ((a.*(f.member) == b.*(f.member)) && ...); },
                    Options::fields());
}

// ── per-parameter state ─────────────────────────────────────────────────
/// ember keeps "step" as an int (RMSprop) or a 0-d tensor (Adam, Adagrad, as PyTorch 1.13);
/// LibTorch as an int64_t. Absent entries read as undefined tensors and 0.
void read_state(const ember::Dict& state, const char* key, ember::Tensor& out);
void read_state(const ember::Dict& state, const char* key, int64_t& out);
/// Writes a field back over the entry ember has (a tensor replaces it, a step count is stored in
/// ember's form); entries ember does not have are left alone, undefined tensors are skipped.
void write_state(ember::Dict& state, const char* key, const ember::Tensor& value);
void write_state(ember::Dict& state, const char* key, int64_t value);
// LBFGS's state: a step and a loss (doubles), the curvature pairs (lists of tensors, "al" None
// until the second iteration).
void read_state(const ember::Dict& state, const char* key, double& out);
void read_state(const ember::Dict& state, const char* key, std::deque<ember::Tensor>& out);
void read_state(const ember::Dict& state, const char* key,
                std::optional<std::vector<ember::Tensor>>& out);
void write_state(ember::Dict& state, const char* key, double value);
void write_state(ember::Dict& state, const char* key, const std::deque<ember::Tensor>& value);
void write_state(ember::Dict& state, const char* key,
                 const std::optional<std::vector<ember::Tensor>>& value);

template <class State>
void read_state(State& out, const ember::Dict& state) {
  std::apply([&](const auto&... f) { (read_state(state, f.key, out.*(f.member)), ...); },
             State::fields());
}

template <class State>
void write_state(const State& in, ember::Dict& state) {
  std::apply([&](const auto&... f) { (write_state(state, f.key, in.*(f.member)), ...); },
             State::fields());
}

}  // namespace torch::optim::detail
