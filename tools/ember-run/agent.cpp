#include "agent.h"

#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>

#include "failure_report.h"
#include "worker_group.h"
#include "worker_process.h"

namespace ember_run {
namespace fs = std::filesystem;

namespace {

sigset_t agent_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
  return set;
}

std::string random_suffix() {
  static const char letters[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device device;
  std::string out;
  for (int i = 0; i < 8; ++i) out += letters[device() % (sizeof letters - 1)];
  return out;
}

// <log_dir>/<run_id>_<random>: torchrun's layout, a fresh directory per run.
fs::path make_run_dir(const fs::path& log_root, const std::string& run_id) {
  fs::create_directories(log_root);
  for (;;) {
    fs::path dir = log_root / (run_id + "_" + random_suffix());
    if (fs::create_directory(dir)) return dir;
  }
}
std::string attempts_left(int attempt, int max_restarts) {
  return std::to_string(max_restarts - attempt) + "/" + std::to_string(max_restarts) +
         " attempts left";
}

// A signal on this node ends the job on every node (rather than restarting it there).
void stop_other_nodes(LauncherRendezvous& rendezvous, const Options& options, int sig) {
  rendezvous.request_stop("node " + std::to_string(options.node_rank) + " received " +
                          signal_name(sig));
}

// Attempt after attempt until success, a failure with no restarts left, or a signal.
int run_attempts(const Options& options, LauncherRendezvous& rendezvous, WorkerGroup& group,
                 const std::string& program) {
  for (int attempt = 0;; ++attempt) {
    const Assignment assignment = rendezvous.join(attempt);
    group.start(attempt, assignment, rendezvous.port());
    Outcome outcome = group.watch(attempt, rendezvous);
    if (outcome == Outcome::kSucceeded) {
      const auto finish = rendezvous.finish(attempt);
      if (finish == LauncherRendezvous::Finish::kAllSucceeded) return 0;
      outcome = finish == LauncherRendezvous::Finish::kStopped ? Outcome::kStopRequested
                                                               : Outcome::kRemoteFailure;
    }
    if (outcome == Outcome::kSignalled) {
      const int sig = group.signal_received();
      note("received " + signal_name(sig) + ": forwarding it to the workers");
      stop_other_nodes(rendezvous, options, sig);
      group.stop(sig);
      return 128 + sig;
    }
    if (outcome == Outcome::kStopRequested) {
      note("stopping: " + rendezvous.stop_requested().value_or("another node stopped"));
      group.stop(SIGTERM);
      return 1;
    }
    // A failure here or on another node: agree on the root cause, stop the rest, report.
    std::optional<std::string> remote_root;
    if (outcome == Outcome::kFailed) {
      auto [root, ours] = rendezvous.report_failure(attempt, one_line(group.failures().front()));
      if (!ours) remote_root = root;
    } else {
      remote_root = rendezvous.failure(attempt);
    }
    group.settle();
    group.stop(SIGTERM);
    const bool restart = attempt < options.max_restarts && group.signal_received() == 0;
    const std::string headline =
        "attempt " + std::to_string(attempt) +
        (restart ? ", " + attempts_left(attempt, options.max_restarts) + "; restarting the worker group"
                 : ", no restarts left");
    std::fputs(format_summary(program, headline, group.failures(), remote_root).c_str(), stderr);
    std::fflush(stderr);
    if (const int sig = group.signal_received(); sig != 0) {
      // Ctrl-C while the failed group was being stopped: no restart.
      note("received " + signal_name(sig) + " while stopping the workers: not restarting");
      stop_other_nodes(rendezvous, options, sig);
      return 128 + sig;
    }
    if (!restart) return 1;
  }
}

}  // namespace

void block_agent_signals() {
  sigset_t set = agent_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

int run_agent(const Options& options, LauncherRendezvous& rendezvous) {
  sigset_t set = agent_signals();
  const int signal_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (signal_fd < 0) throw std::runtime_error(std::string("signalfd: ") + strerror(errno));
  // Without --log-dir the error files live in a temporary directory, removed at the end.
  const bool temporary_logs = !options.log_dir;
  const fs::path log_root = options.log_dir ? fs::path(*options.log_dir)
                                            : fs::temp_directory_path() / ("ember-run-" + random_suffix());
  const fs::path run_dir = make_run_dir(log_root, options.rdzv_id);
  const std::string program = fs::path(options.command.front()).filename().string();
  if (!std::getenv("OMP_NUM_THREADS") && options.nproc_per_node > 1) {
    note("OMP_NUM_THREADS=1 for each worker (set OMP_NUM_THREADS to tune)");
  }
  int status = 1;
  {
    WorkerGroup group(options, run_dir, signal_fd);
    try {
      status = run_attempts(options, rendezvous, group, program);
    } catch (const Interrupted& interrupted) {
      // A signal while waiting on other nodes, with no workers running.
      note("received " + signal_name(interrupted.signal) + " while waiting for the other nodes");
      stop_other_nodes(rendezvous, options, interrupted.signal);
      status = 128 + interrupted.signal;
    } catch (const std::exception& e) {
      // Lost the store (node 0 gone), a rendezvous timeout, a program that cannot start: stop
      // what runs, with the usual grace, then say why.
      group.stop(SIGTERM);
      note(std::string("error: ") + e.what());
      status = 1;
    }
  }
  rendezvous.leave(options.stop_timeout_s + 5);
  close(signal_fd);
  if (temporary_logs) {
    std::error_code ignored;
    fs::remove_all(log_root, ignored);
  }
  return status;
}

}  // namespace ember_run