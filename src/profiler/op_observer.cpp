// The profiler's observer on the op-entry scope (src/core/op_entry.h): installed while a
// profile records, it opens an op range at each op's entry and closes it at its exit. The
// scope tells on_exit only the name, so each thread keeps the stack of its open op handles
// (calls nest like the ops). The observer is a static object: ops still running on another
// thread when a recording stops may call on_exit after it is removed.
#include "profiler/op_observer.h"

#include <vector>

#include "core/op_entry.h"
#include "profiler/recorder.h"

namespace ember::profiler::detail {
namespace {

thread_local std::vector<uint64_t> t_open_ops;

class ProfilerObserver final : public OpObserver {
 public:
  void on_enter(const OpCall& call) override {
    t_open_ops.push_back(begin_op(call.name, call.inputs.data(), call.inputs.size()));
  }
  void on_exit(const char*) override {
    if (t_open_ops.empty()) return;  // entered before this thread's first recorded op
    end_range(t_open_ops.back());
    t_open_ops.pop_back();
  }
};

ProfilerObserver g_observer;

}  // namespace

void install_op_observer(bool on) { set_op_observer(on ? &g_observer : nullptr); }

}  // namespace ember::profiler::detail
