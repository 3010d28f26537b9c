// One worker process: started with fork+exec in its own process group (so stopping it also stops
// whatever it started), killed with the launcher (PR_SET_PDEATHSIG), and reaped by the agent.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace ember_run {

/// Where one of a worker's output streams goes.
struct StreamTarget {
  enum Kind { kInherit, kFile, kPipe } kind = kInherit;
  std::string path;  // kFile
  int pipe_write_fd = -1;  // kPipe: the write end, given to the worker as its stream
};

struct WorkerLaunch {
  std::vector<std::string> argv;  // argv[0] is found on PATH as execvp would
  std::vector<std::string> env;   // "KEY=value", the whole environment
  StreamTarget out, err;
};

/// Starts the worker. Throws std::runtime_error naming the program when it cannot be executed
/// (not found, not executable), which the agent reports without restarting.
pid_t start_worker(const WorkerLaunch& launch);

/// "SIGTERM".
std::string signal_name(int sig);

/// "exitcode 3", "Signal 9 (SIGKILL)" from a waitpid status.
std::string describe_status(int wait_status);

}  // namespace ember_run
