#include "agent.h"

#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

#include "failure_report.h"
#include "output_relay.h"
#include "worker_process.h"

extern char** environ;

namespace ember_run {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

sigset_t agent_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
  return set;
}

void note(const std::string& text) {
  std::fprintf(stderr, "[ember-run] %s\n", text.c_str());
  std::fflush(stderr);
}

// "0.5 s", "10 s".
std::string seconds(double s) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g s", s);
  return buffer;
}

std::string host_name() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
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

struct Worker {
  int local_rank = 0, rank = 0;
  pid_t pid = -1;
  bool running = false;
  int wait_status = 0;
  std::string error_file;
  std::vector<std::unique_ptr<OutputRelay>> relays;
};

enum class Outcome { kSucceeded, kFailed, kRemoteFailure, kSignalled, kStopRequested };

// One attempt's workers on this node.
class WorkerGroup {
 public:
  WorkerGroup(const Options& options, const fs::path& run_dir, int signal_fd)
      : options_(options), run_dir_(run_dir), signal_fd_(signal_fd), host_(host_name()) {}
  ~WorkerGroup() { kill_all(SIGKILL); reap_blocking(); }

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
  fs::path run_dir_;
  int signal_fd_;
  std::string host_;
  std::vector<Worker> workers_;
  std::vector<WorkerFailure> failures_;
  bool stopping_ = false;
  int signal_ = 0;
};

std::vector<std::string> WorkerGroup::worker_environment(int attempt, const Assignment& a,
                                                          const Worker& w, int store_port) const {
  std::map<std::string, std::string> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const auto eq = text.find('=');
    if (eq != std::string::npos) env[text.substr(0, eq)] = text.substr(eq + 1);
  }
  const auto set = [&](const std::string& key, auto value) {
    if constexpr (std::is_arithmetic_v<decltype(value)>) {
      env[key] = std::to_string(value);
    } else {
      env[key] = value;
    }
  };
  // torchrun 1.13's contract (local_elastic_agent.py: _start_workers), measured in
  // pytorch-1.13-probes/torchrun_out2.txt; one role, so ROLE_RANK = RANK.
  set("LOCAL_RANK", w.local_rank);
  set("RANK", w.rank);
  set("GROUP_RANK", options_.node_rank);
  set("ROLE_RANK", w.rank);
  set("ROLE_NAME", options_.role);
  set("LOCAL_WORLD_SIZE", options_.nproc_per_node);
  set("WORLD_SIZE", a.world_size);
  set("GROUP_WORLD_SIZE", options_.nnodes);
  set("ROLE_WORLD_SIZE", a.world_size);
  set("MASTER_ADDR", options_.master_addr);
  set("MASTER_PORT", store_port);
  set("TORCHELASTIC_RESTART_COUNT", attempt);
  set("TORCHELASTIC_MAX_RESTARTS", options_.max_restarts);
  set("TORCHELASTIC_RUN_ID", options_.rdzv_id);
  set("TORCHELASTIC_USE_AGENT_STORE", std::string("True"));
  set("TORCHELASTIC_ERROR_FILE", w.error_file);
  // The launcher hosts the TCPStore: init_process_group(env://) connects as a client on every
  // rank and namespaces its keys per attempt (TORCHELASTIC_RESTART_COUNT).
  set("EMBER_RUN_HOSTS_STORE", std::string("1"));
  if (!env.count("NCCL_ASYNC_ERROR_HANDLING")) set("NCCL_ASYNC_ERROR_HANDLING", std::string("1"));
  if (!env.count("OMP_NUM_THREADS") && options_.nproc_per_node > 1) {
    set("OMP_NUM_THREADS", std::string("1"));
  }
  std::vector<std::string> out;
  for (const auto& [key, value] : env) out.push_back(key + "=" + value);
  return out;
}

void WorkerGroup::start(int attempt, const Assignment& assignment, int store_port) {
  workers_.clear();
  failures_.clear();
  stopping_ = false;
  // torchrun removes and recreates attempt_<k> before each attempt.
  const fs::path attempt_dir = run_dir_ / ("attempt_" + std::to_string(attempt));
  fs::remove_all(attempt_dir);
  workers_.resize(static_cast<std::size_t>(options_.nproc_per_node));
  for (int local = 0; local < options_.nproc_per_node; ++local) {
    Worker& w = workers_[static_cast<std::size_t>(local)];
    w.local_rank = local;
    w.rank = assignment.rank_base + local;
    const fs::path dir = attempt_dir / std::to_string(local);
    fs::create_directories(dir);
    w.error_file = (dir / "error.json").string();
    WorkerLaunch launch;
    launch.argv = options_.command;
    launch.env = worker_environment(attempt, assignment, w, store_port);
    const int redirected = options_.redirects.streams_for(local);
    const int teed = options_.tee.streams_for(local);
    const std::string prefix = "[" + options_.role + std::to_string(w.rank) + "]:";
    for (int stream : {StreamSpec::kOut, StreamSpec::kErr}) {
      StreamTarget& target = stream == StreamSpec::kOut ? launch.out : launch.err;
      const std::string log = (dir / (stream == StreamSpec::kOut ? "stdout.log" : "stderr.log")).string();
      if (teed & stream) {
        w.relays.push_back(std::make_unique<OutputRelay>(prefix, stream == StreamSpec::kOut ? 1 : 2, log));
        target = {StreamTarget::kPipe, "", w.relays.back()->write_fd()};
      } else if (redirected & stream) {
        target = {StreamTarget::kFile, log, -1};
      }
    }
    w.pid = start_worker(launch);  // throws when the program cannot run at all
    w.running = true;
    for (auto& relay : w.relays) relay->close_write_end();
  }
}

void WorkerGroup::on_exit(pid_t pid, int wait_status) {
  for (Worker& w : workers_) {
    if (w.pid != pid || !w.running) continue;
    w.running = false;
    w.wait_status = wait_status;
    for (auto& relay : w.relays) relay->drain();
    const bool failed = !(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0);
    // Workers that exit after the launcher told them to stop are not failures of their own.
    if (!failed || stopping_) return;
    WorkerFailure f;
    f.rank = w.rank;
    f.local_rank = w.local_rank;
    f.pid = pid;
    f.wait_status = wait_status;
    f.time = std::chrono::system_clock::now();
    f.host = host_;
    f.error = ember::dist::elastic::read_error_file(w.error_file);
    if (f.error) f.error_file = w.error_file;
    failures_.push_back(std::move(f));
    return;
  }
}

void WorkerGroup::reap() {
  for (;;) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    on_exit(pid, status);
  }
}

void WorkerGroup::reap_blocking() {
  for (Worker& w : workers_) {
    if (!w.running) continue;
    int status = 0;
    while (waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
    }
    on_exit(w.pid, status);
  }
}

void WorkerGroup::kill_all(int sig) {
  // The whole process group: also what the worker started. A group outlives its leader, so
  // even exited workers' groups get it (ESRCH when empty).
  for (const Worker& w : workers_) {
    if (w.pid > 0) kill(-w.pid, sig);
  }
}

bool WorkerGroup::any_running() const {
  for (const Worker& w : workers_) {
    if (w.running) return true;
  }
  return false;
}

void WorkerGroup::poll_once(int timeout_ms) {
  std::vector<pollfd> fds{{signal_fd_, POLLIN, 0}};
  std::vector<OutputRelay*> relays;
  for (Worker& w : workers_) {
    for (auto& relay : w.relays) {
      if (relay->at_end()) continue;
      fds.push_back({relay->read_fd(), POLLIN, 0});
      relays.push_back(relay.get());
    }
  }
  if (poll(fds.data(), fds.size(), timeout_ms) < 0) {
    if (errno == EINTR) return;
    throw std::runtime_error(std::string("poll: ") + strerror(errno));
  }
  for (std::size_t i = 1; i < fds.size(); ++i) {
    if (fds[i].revents != 0) relays[i - 1]->pump();
  }
  if (fds[0].revents & POLLIN) {
    signalfd_siginfo info;
    while (read(signal_fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
      if (info.ssi_signo != SIGCHLD) {
        // A second signal while stopping: no more grace.
        if (signal_ != 0) kill_all(SIGKILL);
        signal_ = static_cast<int>(info.ssi_signo);
      }
    }
  }
  reap();  // SIGCHLD coalesces: always look
}

Outcome WorkerGroup::watch(int attempt, LauncherRendezvous& rendezvous) {
  const bool other_nodes = options_.nnodes > 1;
  const int interval_ms = static_cast<int>(options_.monitor_interval_s * 1000);
  for (;;) {
    if (signal_ != 0) return Outcome::kSignalled;
    if (!failures_.empty()) return Outcome::kFailed;
    if (!any_running()) return Outcome::kSucceeded;
    poll_once(other_nodes ? interval_ms : -1);
    if (other_nodes && signal_ == 0 && failures_.empty()) {
      if (rendezvous.stop_requested()) return Outcome::kStopRequested;
      if (rendezvous.failure(attempt)) return Outcome::kRemoteFailure;
    }
  }
}

void WorkerGroup::settle() {
  const auto deadline = Clock::now() + std::chrono::duration<double>(options_.monitor_interval_s);
  while (any_running() && signal_ == 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return;
    poll_once(static_cast<int>(left.count()) + 1);
  }
}

void WorkerGroup::stop(int sig) {
  stopping_ = true;
  kill_all(sig);
  const auto deadline = Clock::now() + std::chrono::duration<double>(options_.stop_timeout_s);
  while (any_running()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      for (const Worker& w : workers_) {
        if (w.running) note("rank " + std::to_string(w.rank) + " (pid " + std::to_string(w.pid) +
                            ") did not exit within " + seconds(options_.stop_timeout_s) +
                            " of " + signal_name(sig) + "; sending SIGKILL");
      }
      kill_all(SIGKILL);
      reap_blocking();
      break;
    }
    const int before = signal_;
    poll_once(static_cast<int>(left.count()) + 1);
    if (signal_ != before && before != 0) break;  // poll_once already sent SIGKILL
  }
  reap_blocking();
  kill_all(SIGKILL);  // stragglers the workers left in their groups
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
