// The typed fields of torch::optim's options and states: conversions from and to ember's option
// values, state Dicts and archives (torch/optim/detail/fields.h, typed_base.h).
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "ember/creation.h"
#include "ember/error.h"
#include "torch/optim/detail/typed_base.h"

namespace torch::optim::detail {

namespace {
constexpr const char* kOp = "torch::optim";
}  // namespace

void option_from_value(const ember::Value& value, const char* key, double& out) {
  EMBER_CHECK(value.is_double() || value.is_int(), kOp, "option '", key, "' must be a number, got ",
              value.kind_name());
  out = value.to_double();
}

void option_from_value(const ember::Value& value, const char* key, bool& out) {
  EMBER_CHECK(value.is_bool(), kOp, "option '", key, "' must be a bool, got ", value.kind_name());
  out = value.to_bool();
}

void option_from_value(const ember::Value& value, const char* key, Betas& out) {
  EMBER_CHECK(value.is_tuple() || value.is_list(), kOp, "option '", key,
              "' must be a tuple of two numbers, got ", value.kind_name());
  const std::vector<ember::Value>& items =
      value.is_tuple() ? value.to_tuple().items : value.to_list();
  EMBER_CHECK(items.size() == 2, kOp, "option '", key, "' must hold two numbers, got ",
              items.size());
  out = {items[0].to_double(), items[1].to_double()};
}

void option_from_value(const ember::Value& value, const char* key, int64_t& out) {
  EMBER_CHECK(value.is_int(), kOp, "option '", key, "' must be an int, got ", value.kind_name());
  out = value.to_int();
}

void option_from_value(const ember::Value& value, const char* key, std::optional<int64_t>& out) {
  EMBER_CHECK(value.is_int() || value.is_none(), kOp, "option '", key,
              "' must be an int or None, got ", value.kind_name());
  out = value.is_none() ? std::nullopt : std::optional(value.to_int());
}

void option_from_value(const ember::Value& value, const char* key,
                       std::optional<std::string>& out) {
  EMBER_CHECK(value.is_string() || value.is_none(), kOp, "option '", key,
              "' must be a string or None, got ", value.kind_name());
  out = value.is_none() ? std::nullopt : std::optional(value.to_string());
}

void read_state(const ember::Dict& state, const char* key, ember::Tensor& out) {
  const ember::Value k(key);
  out = ember::Tensor();
  if (!state.contains(k)) return;
  const ember::Value& v = state.at(k);
  // PyTorch's LBFGS starts H_diag as the number 1; LibTorch's as the tensor 1.
  if (v.is_tensor())
    out = v.to_tensor();
  else if (v.is_int() || v.is_double())
    out = ember::full({}, v.is_int() ? ember::Scalar(v.to_int()) : ember::Scalar(v.to_double()));
}

void read_state(const ember::Dict& state, const char* key, double& out) {
  const ember::Value k(key);
  out = 0;
  if (!state.contains(k)) return;
  const ember::Value& v = state.at(k);
  out = v.is_tensor() ? v.to_tensor().item<double>() : v.to_double();
}

namespace {
std::vector<ember::Tensor> tensor_list(const ember::Value& v) {
  std::vector<ember::Tensor> out;
  for (const ember::Value& item : v.to_list())
    out.push_back(item.is_tensor() ? item.to_tensor() : ember::Tensor());
  return out;
}

ember::Value list_value(const std::vector<ember::Tensor>& ts) {
  ember::List out;
  for (const ember::Tensor& t : ts) out.push_back(t.defined() ? ember::Value(t) : ember::Value());
  return ember::Value(std::move(out));
}
}  // namespace

void read_state(const ember::Dict& state, const char* key, std::deque<ember::Tensor>& out) {
  const ember::Value k(key);
  out.clear();
  if (state.contains(k) && state.at(k).is_list())
    for (ember::Tensor& t : tensor_list(state.at(k))) out.push_back(std::move(t));
}

void read_state(const ember::Dict& state, const char* key,
                std::optional<std::vector<ember::Tensor>>& out) {
  const ember::Value k(key);
  out.reset();
  if (state.contains(k) && state.at(k).is_list()) out = tensor_list(state.at(k));
}

void write_state(ember::Dict& state, const char* key, double value) {
  const ember::Value k(key);
  if (state.contains(k)) state.insert(k, ember::Value(value));
}

void write_state(ember::Dict& state, const char* key, const std::deque<ember::Tensor>& value) {
  const ember::Value k(key);
  if (state.contains(k)) state.insert(k, list_value({value.begin(), value.end()}));
}

void write_state(ember::Dict& state, const char* key,
                 const std::optional<std::vector<ember::Tensor>>& value) {
  const ember::Value k(key);
  if (value && state.contains(k)) state.insert(k, list_value(*value));
}

void read_state(const ember::Dict& state, const char* key, int64_t& out) {
  const ember::Value k(key);
  if (!state.contains(k)) {
    out = 0;
    return;
  }
  const ember::Value& v = state.at(k);
  out = v.is_tensor() ? int64_t(v.to_tensor().item<double>()) : v.to_int();
}

void write_state(ember::Dict& state, const char* key, const ember::Tensor& value) {
  const ember::Value k(key);
  if (value.defined() && state.contains(k)) state.insert(k, ember::Value(value));
}

void write_state(ember::Dict& state, const char* key, int64_t value) {
  const ember::Value k(key);
  if (!state.contains(k)) return;
  ember::Value& v = state.at(k);
  if (v.is_tensor())
    v.to_tensor().fill_(double(value));
  else
    v = ember::Value(value);
}

void write_field(serialize::OutputArchive& archive, const char* key, double value) {
  archive.write(key, c10::IValue(value));
}
void write_field(serialize::OutputArchive& archive, const char* key, bool value) {
  archive.write(key, c10::IValue(value));
}
void write_field(serialize::OutputArchive& archive, const char* key, const Betas& value) {
  archive.write(key, c10::IValue(option_value(value)));
}
void write_field(serialize::OutputArchive& archive, const char* key, int64_t value) {
  archive.write(key, c10::IValue(value));
}
void write_field(serialize::OutputArchive& archive, const char* key, const ember::Tensor& value) {
  if (value.defined()) archive.write(key, value);  // undefined: absent, as in Python's state
}
void write_field(serialize::OutputArchive& archive, const char* key,
                 const std::optional<int64_t>& value) {
  archive.write(key, value ? c10::IValue(*value) : c10::IValue());
}
void write_field(serialize::OutputArchive& archive, const char* key,
                 const std::optional<std::string>& value) {
  archive.write(key, value ? c10::IValue(ember::Value(*value)) : c10::IValue());
}
void write_field(serialize::OutputArchive& archive, const char* key,
                 const std::deque<ember::Tensor>& value) {
  archive.write(key, c10::IValue(list_value({value.begin(), value.end()})));
}
void write_field(serialize::OutputArchive& archive, const char* key,
                 const std::optional<std::vector<ember::Tensor>>& value) {
  if (value) archive.write(key, c10::IValue(list_value(*value)));
}

namespace {
template <class T>
void read_option_field(serialize::InputArchive& archive, const char* key, T& value) {
  c10::IValue v;
  if (archive.try_read(key, v)) option_from_value(v, key, value);
}
}  // namespace

void read_field(serialize::InputArchive& archive, const char* key, double& value) {
  read_option_field(archive, key, value);
}
void read_field(serialize::InputArchive& archive, const char* key, bool& value) {
  read_option_field(archive, key, value);
}
void read_field(serialize::InputArchive& archive, const char* key, Betas& value) {
  read_option_field(archive, key, value);
}
void read_field(serialize::InputArchive& archive, const char* key, int64_t& value) {
  c10::IValue v;
  if (archive.try_read(key, v))
    value = v.is_tensor() ? int64_t(v.toTensor().item<double>()) : v.toInt();
}
void read_field(serialize::InputArchive& archive, const char* key, ember::Tensor& value) {
  archive.try_read(key, value);
}
void read_field(serialize::InputArchive& archive, const char* key, std::optional<int64_t>& value) {
  read_option_field(archive, key, value);
}
void read_field(serialize::InputArchive& archive, const char* key,
                std::optional<std::string>& value) {
  read_option_field(archive, key, value);
}
void read_field(serialize::InputArchive& archive, const char* key,
                std::deque<ember::Tensor>& value) {
  c10::IValue v;
  if (!archive.try_read(key, v) || !v.is_list()) return;
  value.clear();
  for (ember::Tensor& t : tensor_list(v)) value.push_back(std::move(t));
}
void read_field(serialize::InputArchive& archive, const char* key,
                std::optional<std::vector<ember::Tensor>>& value) {
  c10::IValue v;
  if (archive.try_read(key, v) && v.is_list()) value = tensor_list(v);
}

}  // namespace torch::optim::detail
