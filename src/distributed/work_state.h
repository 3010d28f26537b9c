// What a Work shares with the thread that completes it.
#pragma once

#include <condition_variable>
#include <exception>
#include <mutex>

#include "ember/distributed/process_group.h"

namespace ember::dist {

struct Work::State {
  std::mutex mutex;
  std::condition_variable done_changed;
  bool done = false;
  std::exception_ptr error;

  void finish(std::exception_ptr e = nullptr) {
    {
      std::lock_guard lock(mutex);
      done = true;
      error = e;
    }
    done_changed.notify_all();
  }
};

}  // namespace ember::dist
