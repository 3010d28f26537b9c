// The bases of torch::optim's options (SGDOptions, ...) and parameter states (SGDParamState,
// ...): what LibTorch writes out in each class — get_lr/set_lr, operator==, serialize() into
// archives — done once from each class's field table (torch/optim/detail/fields.h).
#pragma once

#include "torch/optim/detail/fields.h"
#include "torch/optim/optimizer.h"
#include "torch/serialize/archive.h"

namespace torch::optim::detail {

/// Stores a field in an archive / reads it back (absent: left as it is).
void write_field(serialize::OutputArchive& archive, const char* key, double value);
void write_field(serialize::OutputArchive& archive, const char* key, bool value);
void write_field(serialize::OutputArchive& archive, const char* key, const Betas& value);
void write_field(serialize::OutputArchive& archive, const char* key, int64_t value);
void write_field(serialize::OutputArchive& archive, const char* key, const ember::Tensor& value);
void read_field(serialize::InputArchive& archive, const char* key, double& value);
void read_field(serialize::InputArchive& archive, const char* key, bool& value);
void read_field(serialize::InputArchive& archive, const char* key, Betas& value);
void read_field(serialize::InputArchive& archive, const char* key, int64_t& value);
void read_field(serialize::InputArchive& archive, const char* key, ember::Tensor& value);
// LBFGS's optional options and list states.
void write_field(serialize::OutputArchive& archive, const char* key,
                 const std::optional<int64_t>& value);
void write_field(serialize::OutputArchive& archive, const char* key,
                 const std::optional<std::string>& value);
void write_field(serialize::OutputArchive& archive, const char* key,
                 const std::deque<ember::Tensor>& value);
void write_field(serialize::OutputArchive& archive, const char* key,
                 const std::optional<std::vector<ember::Tensor>>& value);
void read_field(serialize::InputArchive& archive, const char* key, std::optional<int64_t>& value);
void read_field(serialize::InputArchive& archive, const char* key,
                std::optional<std::string>& value);
void read_field(serialize::InputArchive& archive, const char* key,
                std::deque<ember::Tensor>& value);
void read_field(serialize::InputArchive& archive, const char* key,
                std::optional<std::vector<ember::Tensor>>& value);

template <class Object>
void write_fields(serialize::OutputArchive& archive, const Object& object) {
  std::apply([&](const auto&... f) { (write_field(archive, f.key, object.*(f.member)), ...); },
             Object::fields());
}
template <class Object>
void read_fields(serialize::InputArchive& archive, Object& object) {
  std::apply([&](const auto&... f) { (read_field(archive, f.key, object.*(f.member)), ...); },
             Object::fields());
}

/// Derived has lr() and a static fields() table whose entries map to Derived::EmberOptions.
template <class Derived>
class TypedOptions : public OptimizerCloneableOptions<Derived> {
 public:
  double get_lr() const override { return self().lr(); }
  void set_lr(const double lr) override { self().lr(lr); }
  void serialize(serialize::OutputArchive& archive) const override {
    write_fields(archive, self());
  }
  void serialize(serialize::InputArchive& archive) override { read_fields(archive, self()); }
  friend bool operator==(const Derived& a, const Derived& b) { return options_equal(a, b); }

 private:
  const Derived& self() const { return static_cast<const Derived&>(*this); }
  Derived& self() { return static_cast<Derived&>(*this); }
};

/// Derived has a static fields() table of StateFields.
template <class Derived>
class TypedParamState : public OptimizerCloneableParamState<Derived> {
 public:
  void serialize(serialize::OutputArchive& archive) const override {
    write_fields(archive, static_cast<const Derived&>(*this));
  }
  void serialize(serialize::InputArchive& archive) override {
    read_fields(archive, static_cast<Derived&>(*this));
  }
};

}  // namespace torch::optim::detail
