// SchedulerSettings: a scheduler's own state_dict entries, listed once in PyTorch's order (its
// attributes' __dict__ order) and walked in either direction. Saving writes each field into a
// Dict under its PyTorch name, loading reads each back from one. A list is a chain of calls,
//
//   s("step_size", o_.step_size)("gamma", o_.gamma);
//
// written in a scheduler's settings() (ember/optim/lr_scheduler_base.h). Saving only reads the
// fields it is given: the list takes references so that one list serves both directions, and
// state_dict() (const) hands it its fields through a const_cast for that reason.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/value.h"

namespace ember::optim {

class SchedulerSettings {
 public:
  /// Saving into `out`.
  static SchedulerSettings into(Dict& out) { return SchedulerSettings(&out, nullptr); }
  /// Loading from `in`; a missing entry is an ember::Error naming it.
  static SchedulerSettings from(const Dict& in) { return SchedulerSettings(nullptr, &in); }
  /// Whether the entry takes part: always when saving, when `in` has it when loading (for an
  /// entry that older state dicts lack).
  bool has(const char* name) const;

  SchedulerSettings& operator()(const char* name, int64_t& field);
  SchedulerSettings& operator()(const char* name, double& field);
  SchedulerSettings& operator()(const char* name, bool& field);
  SchedulerSettings& operator()(const char* name, std::string& field);
  SchedulerSettings& operator()(const char* name, std::vector<double>& field);  // a list
  /// A multiset of ints saved as PyTorch's Counter (value -> count), as MultiStepLR's milestones.
  SchedulerSettings& counter(const char* name, std::vector<int64_t>& multiset);
  /// Written when saving, not read back: what PyTorch keeps and ember derives or fixes.
  SchedulerSettings& saved(const char* name, Value value);

 private:
  SchedulerSettings(Dict* out, const Dict* in) : out_(out), in_(in) {}
  const Value& entry(const char* name) const;
  Dict* out_;
  const Dict* in_;
};

}  // namespace ember::optim
