// The multi-process test harness (multiprocess.h).
#include "distributed/multiprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

namespace ember::test {

std::string ChildExit::describe() const {
  std::ostringstream os;
  os << "rank " << rank << ": ";
  if (timed_out) os << "timed out (killed)";
  else if (signal) os << "killed by signal " << signal;
  else os << "exit " << exit_code;
  os << "\n" << output;
  return os.str();
}

Children::Children(int n, const std::function<int(int rank)>& body)
    : exits_(static_cast<size_t>(n)), reaped_(static_cast<size_t>(n), false) {
  std::fflush(nullptr);  // the children must not write the parent's buffered output again
  for (int rank = 0; rank < n; ++rank) {
    char path[] = "/tmp/ember-test-child-XXXXXX";
    const int out = ::mkstemp(path);
    output_files_.push_back(path);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      ::setpgid(0, group_);
      ::dup2(out, 1);
      ::dup2(out, 2);
      ::close(out);
      int code = 1;
      try {
        code = body(rank);
      } catch (const std::exception& e) {
        std::cerr << e.what() << std::endl;
      } catch (...) {
        std::cerr << "unknown exception" << std::endl;
      }
      std::cout.flush();
      std::cerr.flush();
      std::fflush(nullptr);
      ::_exit(code);
    }
    ::close(out);
    if (pid < 0) {
      std::perror("fork");
      break;
    }
    ::setpgid(pid, group_);  // also here, so the group exists whichever side runs first
    if (group_ == 0) group_ = pid;
    pids_.push_back(pid);
    exits_[static_cast<size_t>(rank)].rank = rank;
  }
}

Children::~Children() {
  if (group_ > 0) ::kill(-group_, SIGKILL);
  for (size_t i = 0; i < pids_.size(); ++i) {
    ::kill(pids_[i], SIGKILL);  // also the ones that left the group
    if (!reaped_[i]) ::waitpid(pids_[i], nullptr, 0);
  }
  for (const auto& path : output_files_) ::unlink(path.c_str());
}

void Children::signal(int rank, int sig) const { ::kill(pids_[static_cast<size_t>(rank)], sig); }

bool Children::exits_within(int rank, std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    siginfo_t info{};
    if (::waitid(P_PID, static_cast<id_t>(pids_[static_cast<size_t>(rank)]), &info,
                 WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid != 0)
      return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

std::vector<ChildExit> Children::wait(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  size_t left = 0;
  for (bool r : reaped_) left += r ? 0 : 1;
  while (left > 0) {
    for (size_t i = 0; i < pids_.size(); ++i) {
      if (reaped_[i]) continue;
      int status = 0;
      if (::waitpid(pids_[i], &status, WNOHANG) != pids_[i]) continue;
      reaped_[i] = true;
      --left;
      if (WIFEXITED(status)) exits_[i].exit_code = WEXITSTATUS(status);
      if (WIFSIGNALED(status)) exits_[i].signal = WTERMSIG(status);
    }
    if (left == 0) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      for (size_t i = 0; i < pids_.size(); ++i) {
        if (reaped_[i]) continue;
        ::kill(pids_[i], SIGKILL);
        ::waitpid(pids_[i], nullptr, 0);
        reaped_[i] = true;
        exits_[i].timed_out = true;
        exits_[i].signal = SIGKILL;
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  for (size_t i = 0; i < pids_.size(); ++i) {
    std::ifstream in(output_files_[i]);
    std::stringstream text;
    text << in.rdbuf();
    exits_[i].output = text.str();
  }
  return exits_;
}

std::vector<ChildExit> run_ranks(int n, const std::function<int(int rank)>& body,
                                 std::chrono::milliseconds timeout) {
  Children children(n, body);
  return children.wait(timeout);
}

std::string failures(const std::vector<ChildExit>& exits) {
  std::string out;
  for (const auto& e : exits)
    if (!e.ok()) out += e.describe() + "\n";
  return out;
}

}  // namespace ember::test
