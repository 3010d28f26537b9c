// A multi-process harness for distributed tests: forks N children that each run body(rank),
// captures their output, bounds the whole run by a hard timeout, and kills and reaps every child
// when the test finishes or fails (the destructor), so no test leaves processes behind.
// The children share one process group; each also dies with its parent (PR_SET_PDEATHSIG).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace ember::test {

struct ChildExit {
  int rank = 0;
  int exit_code = -1;  // -1 when killed by a signal or never reaped
  int signal = 0;
  bool timed_out = false;  // still running at the harness's deadline (then SIGKILLed)
  std::string output;      // stdout and stderr together

  bool ok() const { return exit_code == 0; }
  /// "rank 1: exit 1: <output>" — for test failure messages.
  std::string describe() const;
};

class Children {
 public:
  /// Forks n children; child `rank` runs body(rank) and exits with its result (an exception:
  /// its message on stderr and exit 1).
  Children(int n, const std::function<int(int rank)>& body);
  ~Children();
  Children(const Children&) = delete;
  Children& operator=(const Children&) = delete;

  pid_t pid(int rank) const { return pids_[rank]; }
  /// Sends a signal to one child.
  void signal(int rank, int sig) const;
  /// Whether child `rank` exits within timeout (it is not reaped: wait() still reports it).
  bool exits_within(int rank, std::chrono::milliseconds timeout) const;
  /// Waits for every child up to timeout; the ones still running then are killed (timed_out).
  std::vector<ChildExit> wait(std::chrono::milliseconds timeout);

 private:
  std::vector<pid_t> pids_;
  std::vector<std::string> output_files_;
  std::vector<ChildExit> exits_;
  std::vector<bool> reaped_;
  pid_t group_ = 0;
};

/// Runs body on n ranks and returns how each exited.
std::vector<ChildExit> run_ranks(int n, const std::function<int(int rank)>& body,
                                 std::chrono::milliseconds timeout = std::chrono::seconds(20));

/// A summary of every child that did not exit 0 ("" when all did).
std::string failures(const std::vector<ChildExit>& exits);

}  // namespace ember::test
