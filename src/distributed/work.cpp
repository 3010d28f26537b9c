// Work: waiting for an operation that runs on a group's thread.
#include "distributed/work_state.h"

namespace ember::dist {

void Work::wait() const {
  if (!state_) return;
  std::unique_lock lock(state_->mutex);
  state_->done_changed.wait(lock, [&] { return state_->done; });
  if (state_->error) std::rethrow_exception(state_->error);
}

bool Work::is_completed() const {
  if (!state_) return true;
  std::lock_guard lock(state_->mutex);
  return state_->done;
}

bool Work::is_success() const {
  if (!state_) return true;
  std::lock_guard lock(state_->mutex);
  return state_->done && !state_->error;
}

}  // namespace ember::dist
