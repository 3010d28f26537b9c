// The typed fields of torch::optim's options and states: conversions from and to ember's option
// values, state Dicts and archives (torch/optim/detail/fields.h, typed_base.h).
#include <vector>

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

void read_state(const ember::Dict& state, const char* key, ember::Tensor& out) {
  const ember::Value k(key);
  out = state.contains(k) && state.at(k).is_tensor() ? state.at(k).to_tensor() : ember::Tensor();
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

}  // namespace torch::optim::detail
