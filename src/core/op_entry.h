// The op-entry scope (DESIGN.md §7): every public op passes one OpScope carrying its name and
// tensor inputs before its kernel runs. It checks that the inputs agree on one device, and it is
// the only place where the two hooks attach:
//   - an OpObserver (the profiler): told of every op's entry (name, inputs) and exit;
//   - an AutocastPolicy (mixed precision): per op, casts its floating inputs (Note [Autocast]).
// With neither installed the scope costs one relaxed atomic load and the device comparison.
//
//   Tensor mm(const Tensor& a, const Tensor& b) {
//     autograd::Recorder rec("mm", {&a, &b});        // a Recorder holds the op's OpScope;
//     if (rec.autocast()) return mm(rec.cast(0), rec.cast(1));   // ops that record nothing
//     ...                                                          // use OpScope directly
#pragma once

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

#include "ember/tensor.h"

namespace ember {

/// One op call as an observer sees it at entry. Valid only during on_enter.
struct OpCall {
  const char* name;                      // the public op's name: "add", "add_", "linear", ...
  std::span<const Tensor* const> inputs;  // tensor inputs in argument order (entries may be
                                          // null or undefined: optional arguments)
};

/// The profiler's hook. Calls nest like the ops (an op that calls ops encloses their pairs) and
/// come on the thread that runs the op, so an observer must be thread-safe. on_exit runs also
/// when the op throws.
class OpObserver {
 public:
  virtual ~OpObserver() = default;
  virtual void on_enter(const OpCall& call) = 0;
  /// `name` is the pointer on_enter received.
  virtual void on_exit(const char* name) = 0;
};

/// Installs the observer for every thread (nullptr removes it); returns the previous one. The
/// caller keeps it alive while installed (and until ops running on other threads have left).
OpObserver* set_op_observer(OpObserver* observer);

/// What autocast does with an op's floating inputs (PyTorch's autocast categories).
enum class CastPolicy : uint8_t {
  kUntouched,       // leave them
  kLowerPrecision,  // float32 (not float64) inputs -> the policy's lower_precision_dtype
  kFloat32,         // float16/bfloat16 inputs -> float32
  kPromote,         // every floating input -> the widest floating dtype among them
};

/// The mixed-precision hook, installed per thread (PyTorch's autocast state is thread-local).
class AutocastPolicy {
 public:
  virtual ~AutocastPolicy() = default;
  /// The cast for op `name` whose tensor inputs are on `device`.
  virtual CastPolicy policy(const char* name, Device device) const = 0;
  /// The dtype kLowerPrecision casts to on `device` (float16 or bfloat16).
  virtual Dtype lower_precision_dtype(Device device) const = 0;
  /// One input cast to `dtype` (called with autocast suspended). Mixed precision overrides it to
  /// cast a weight once per region (PyTorch's cached_cast).
  virtual Tensor cast(const Tensor& input, Dtype dtype) const { return input.to(dtype); }
};

/// Installs `policy` for the calling thread (nullptr removes it); returns the previous one.
const AutocastPolicy* set_autocast_policy(const AutocastPolicy* policy);

namespace op_entry_detail {
// Non-zero while an observer or any thread's autocast policy is installed.
extern std::atomic<uint32_t> hooks_active;
}  // namespace op_entry_detail

/// `[op] expected all tensors on one device, got A and B` unless every defined tensor in
/// `inputs` is on one device (a 0-d CPU tensor, a wrapped scalar, goes with any).
void check_same_device(const char* op, std::span<const Tensor* const> inputs);

// Note [Autocast]: casting an op's inputs means running the op again on the cast tensors, so the
// op opts in with one line after its scope: `if (scope.autocast()) return op(scope.cast(0), ...)`.
// autocast() asks the policy; when it casts, ops nested inside the redispatched call are not
// autocast again (nor are the casts), as in PyTorch. An op without that line is never autocast.
// A scope directly inside a scope of the same name is the same op and takes no hooks: the
// redispatched call, a wrapper (Tensor::sum -> sum), a composite whose Recorder comes after an
// OpScope at its entry. So observers see each op once.
class OpScope {
 public:
  OpScope(const char* op, std::initializer_list<const Tensor*> inputs) {
    check_devices(op, std::span(inputs.begin(), inputs.size()));
    if (op_entry_detail::hooks_active.load(std::memory_order_relaxed) != 0) [[unlikely]]
      enter(op, std::span(inputs.begin(), inputs.size()));
  }
  OpScope(const char* op, std::span<const Tensor> inputs);
  /// Ops without tensor inputs (creation).
  explicit OpScope(const char* op) {
    if (op_entry_detail::hooks_active.load(std::memory_order_relaxed) != 0) [[unlikely]]
      enter(op, {});
  }
  /// In-place ops: `self` followed by the other inputs.
  OpScope(const char* op, const Tensor& self, std::initializer_list<const Tensor*> others);
  ~OpScope() {
    if (hooked_) [[unlikely]]
      leave();
  }
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;

  /// True when the thread's autocast policy cast this op's inputs: the op then returns its own
  /// result on cast(i) (Note [Autocast]).
  bool autocast() {
    if (!autocast_) [[likely]]
      return false;
    return apply_autocast();
  }
  /// Input i after autocast (the input itself when it was not cast).
  const Tensor& cast(size_t i) const;

 private:
  struct Autocast;
  // All-CPU inputs are the common case: only another device takes the full check.
  static void check_devices(const char* op, std::span<const Tensor* const> inputs) {
    for (const Tensor* t : inputs)
      if (t && t->defined() && !t->is_cpu()) [[unlikely]]
        return check_same_device(op, inputs);
  }
  void enter(const char* op, std::span<const Tensor* const> inputs);
  void leave();
  bool apply_autocast();

  const char* name_ = nullptr;
  const char* enclosing_ = nullptr;   // the innermost hooked scope's name before this one
  bool hooked_ = false;               // enter() ran: leave() has something to undo
  OpObserver* observer_ = nullptr;    // told of this op's entry
  Autocast* autocast_ = nullptr;  // owned; only while a policy may cast this op (implies hooked_)
};

}  // namespace ember
