// One attempt's workers on this node: started with torchrun's environment, watched through a
// signalfd (SIGCHLD, SIGINT, SIGTERM, SIGHUP) and their output relays, stopped by process group.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "failure_report.h"
#include "launcher_rendezvous.h"
#include "options.h"
#include "output_relay.h"

namespace ember_run {

/// "[ember-run] <text>" on stderr: the launcher's own messages.
void note(const std::string& text);

/// One worker process as the group tracks it.
struct Worker {
  int local_rank = 0, rank = 0;
  pid_t pid = -1;
  bool running = false;
  int wait_status = 0;
  std::string error_file;
  std::vector<std::unique_ptr<OutputRelay>> relays;
};

/// How watch() ended.
enum class Outcome { kSucceeded, kFailed, kRemoteFailure, kSignalled, kStopRequested };

class WorkerGroup {
 public:
  /// Workers' logs and error files go under run_dir/attempt_<k>/<local_rank>/; `signal_fd` is
  /// the agent's signalfd.
  WorkerGroup(const Options& options, const std::filesystem::path& run_dir, int signal_fd);
  ~WorkerGroup();

  void start(int attempt, const Assignment& assignment, int store_port);
  /// Watches until the group succeeds, a worker fails, a signal arrives or another node reports
  /// news through the rendezvous.
  Outcome watch(int attempt, LauncherRendezvous& rendezvous);
  /// After a failure: up to --monitor-interval for the other workers to exit by themselves.
  /// Ranks of a collective job fail within milliseconds of a dead peer, and their messages
  /// (which op, which peer) make the summary say what the others saw, as torchrun's does.
  void settle();
  /// Sends `sig` to every running worker's process group, waits up to --stop-timeout, then
  /// SIGKILLs what is left. A second SIGINT/SIGTERM meanwhile makes it SIGKILL at once.
  void stop(int sig);

  int signal_received() const { return signal_; }
  const std::vector<WorkerFailure>& failures() const { return failures_; }

 private:
  std::vector<std::string> worker_environment(int attempt, const Assignment& assignment,
                                              const Worker& worker, int store_port) const;
  void on_exit(pid_t pid, int wait_status);
  void reap();
  void reap_blocking();
  void kill_all(int sig);
  bool any_running() const;
  /// Polls the signalfd and the relays for up to `timeout_ms` (-1: forever); handles SIGCHLD.
  void poll_once(int timeout_ms);

  const Options& options_;
  std::filesystem::path run_dir_;
  int signal_fd_;
  std::string host_;
  std::vector<Worker> workers_;
  std::vector<WorkerFailure> failures_;
  bool stopping_ = false;
  int signal_ = 0;
};

}  // namespace ember_run
