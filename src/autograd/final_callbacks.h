// Callbacks that run when the backward pass running on this thread finishes (PyTorch's
// Variable._execution_engine.queue_callback): DDP's reducer waits for its gradient buckets there.
#pragma once

#include <functional>

namespace ember::autograd {

/// Queues `callback` to run on this thread once the backward pass now running has finished, in
/// the order queued (a callback may queue another). Only from a hook that backward runs; an
/// ember::Error elsewhere. Skipped when the pass fails.
void queue_callback(std::function<void()> callback);

/// Whether a backward pass runs on this thread now (a forward then is a recompute, as
/// activation checkpointing's: FSDP keeps its parameters for the backward that follows).
bool is_running_backward();

}  // namespace ember::autograd
