#include "worker_group.h"

#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>
#include <type_traits>

#include "ember/distributed/elastic.h"
#include "worker_process.h"

extern char** environ;

namespace ember_run {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

void note(const std::string& text) {
  std::fprintf(stderr, "[ember-run] %s\n", text.c_str());
  std::fflush(stderr);
}

namespace {

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

}  // namespace

WorkerGroup::WorkerGroup(const Options& options, const fs::path& run_dir, int signal_fd)
    : options_(options), run_dir_(run_dir), signal_fd_(signal_fd), host_(host_name()) {}

// Never leaves a worker behind, whatever ended the launcher's loop.
WorkerGroup::~WorkerGroup() {
  kill_all(SIGKILL);
  reap_blocking();
}

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

}  // namespace ember_run
