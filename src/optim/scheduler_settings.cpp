// SchedulerSettings (scheduler_settings.h): each kind of entry written to or read from a state
// dict, with the Value kinds PyTorch's pickles hold (int, float, bool, str, list, Counter).
#include "optim/scheduler_settings.h"

#include "optim/scheduler_values.h"

namespace ember::optim {

using namespace scheduler_detail;

bool SchedulerSettings::has(const char* name) const {
  return out_ != nullptr || in_->contains(Value(name));
}

const Value& SchedulerSettings::entry(const char* name) const { return key(*in_, name); }

SchedulerSettings& SchedulerSettings::operator()(const char* name, int64_t& field) {
  if (out_) out_->insert(Value(name), Value(field));
  else field = entry(name).to_int();
  return *this;
}

SchedulerSettings& SchedulerSettings::operator()(const char* name, double& field) {
  if (out_) out_->insert(Value(name), Value(field));
  else field = entry(name).to_double();
  return *this;
}

SchedulerSettings& SchedulerSettings::operator()(const char* name, bool& field) {
  if (out_) out_->insert(Value(name), Value(field));
  else field = entry(name).to_bool();
  return *this;
}

SchedulerSettings& SchedulerSettings::operator()(const char* name, std::string& field) {
  if (out_) out_->insert(Value(name), Value(field));
  else field = entry(name).to_string();
  return *this;
}

SchedulerSettings& SchedulerSettings::operator()(const char* name, std::vector<double>& field) {
  if (out_) out_->insert(Value(name), Value(to_list(field)));
  else field = doubles(entry(name));
  return *this;
}

SchedulerSettings& SchedulerSettings::counter(const char* name, std::vector<int64_t>& multiset) {
  if (out_) {
    Dict counts;  // PyTorch's Counter (value -> count): a dict of ints is its pickled shape
    for (int64_t m : multiset) {
      const Value k(m);
      counts.insert(k, Value(counts.contains(k) ? counts.at(k).to_int() + 1 : int64_t(1)));
    }
    out_->insert(Value(name), Value(std::move(counts)));
  } else {
    multiset.clear();
    for (const auto& [k, n] : entry(name).to_dict())
      for (int64_t i = 0; i < n.to_int(); ++i) multiset.push_back(k.to_int());
  }
  return *this;
}

SchedulerSettings& SchedulerSettings::saved(const char* name, Value value) {
  if (out_) out_->insert(Value(name), std::move(value));
  return *this;
}

}  // namespace ember::optim
