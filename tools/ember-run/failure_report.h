// What ember-run says when workers fail: torchrun's ChildFailedError summary (root cause first
// observed, then the other failures), with the message each worker wrote to its error file.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "ember/distributed/elastic.h"

namespace ember_run {

struct WorkerFailure {
  int rank = 0, local_rank = 0;
  pid_t pid = 0;
  int wait_status = 0;
  std::chrono::system_clock::time_point time;
  std::string host;
  std::string error_file;  // empty when the worker wrote none
  std::optional<ember::dist::elastic::ErrorRecord> error;
};

/// The failure's message: the error file's, or "Signal 9 (SIGKILL) received by PID 123", or
/// "exitcode 3 (no error file: ...)".
std::string failure_message(const WorkerFailure& failure);

/// One line for other nodes (through the store) and for the restart log:
/// "rank 1 (local_rank 1, host h, pid 123): exitcode 1: ember::Error: [op] ...".
std::string one_line(const WorkerFailure& failure);

/// The summary block, torchrun's layout. `remote_root_cause` is another node's one_line() when
/// the first failure of the attempt happened there.
std::string format_summary(const std::string& program, const std::string& headline,
                           const std::vector<WorkerFailure>& local_failures,
                           const std::optional<std::string>& remote_root_cause);

}  // namespace ember_run
