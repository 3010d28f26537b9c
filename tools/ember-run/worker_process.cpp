#include "worker_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace ember_run {
namespace {

// execvp's search, done before fork: between fork and exec only async-signal-safe calls are
// allowed (the launcher has a store thread), and PATH lookup allocates.
std::string resolve_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t colon = std::min(dirs.find(':', start), dirs.size());
    std::string dir = dirs.substr(start, colon - start);
    start = colon + 1;
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return name;  // exec fails with ENOENT and says so
}

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const std::string& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// In the child: only async-signal-safe calls. Returns -1 with errno set on failure.
int redirect(const StreamTarget& target, int fd) {
  switch (target.kind) {
    case StreamTarget::kInherit:
      return 0;
    case StreamTarget::kPipe:
      return dup2(target.pipe_write_fd, fd) < 0 ? -1 : 0;
    case StreamTarget::kFile: {
      const int file = open(target.path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (file < 0 || dup2(file, fd) < 0) return -1;
      return 0;  // the O_CLOEXEC original closes at exec; the dup2 copy stays
    }
  }
  return 0;
}

[[noreturn]] void child_fail(int report_fd, const char* step) {
  const int error = errno;
  // The parent reads "<errno> <step>" from the pipe; a write error changes nothing here.
  char buffer[96];
  int n = 0;
  for (int e = error, digits = 1000000; digits > 0; digits /= 10) {
    if (e / digits || n || digits == 1) buffer[n++] = static_cast<char>('0' + (e / digits) % 10);
  }
  buffer[n++] = ' ';
  for (const char* p = step; *p && n < static_cast<int>(sizeof buffer); ++p) buffer[n++] = *p;
  ssize_t ignored = write(report_fd, buffer, static_cast<std::size_t>(n));
  (void)ignored;
  _exit(127);
}

}  // namespace

pid_t start_worker(const WorkerLaunch& launch) {
  const std::string program = resolve_program(launch.argv.at(0));
  std::vector<char*> argv = c_strings(launch.argv);
  std::vector<char*> envp = c_strings(launch.env);
  // exec failures come back through this pipe; it closes on a successful exec (O_CLOEXEC).
  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + strerror(errno));
  const pid_t launcher = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(report[0]);
    close(report[1]);
    throw std::runtime_error(std::string("fork: ") + strerror(errno));
  }
  if (pid == 0) {
    setpgid(0, 0);
    // Dies with the launcher even when the launcher is SIGKILLed and cannot stop it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != launcher) _exit(127);  // the launcher died before prctl took effect
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);  // the launcher blocks these for its signalfd
    for (int sig : {SIGINT, SIGTERM, SIGCHLD, SIGPIPE}) signal(sig, SIG_DFL);
    const int devnull = open("/dev/null", O_RDONLY);
    // Workers are not in the terminal's foreground group: reading it would stop them (SIGTTIN).
    if (devnull < 0 || dup2(devnull, 0) < 0) child_fail(report[1], "stdin");
    if (redirect(launch.out, 1) != 0) child_fail(report[1], launch.out.path.c_str());
    if (redirect(launch.err, 2) != 0) child_fail(report[1], launch.err.path.c_str());
    execve(program.c_str(), argv.data(), envp.data());
    child_fail(report[1], "exec");
  }
  close(report[1]);
  char buffer[128];
  ssize_t n;
  do {
    n = read(report[0], buffer, sizeof buffer - 1);
  } while (n < 0 && errno == EINTR);
  close(report[0]);
  if (n > 0) {
    buffer[n] = '\0';
    int status;
    waitpid(pid, &status, 0);
    const int error = std::atoi(buffer);
    const char* step = std::strchr(buffer, ' ');
    const std::string what = step && std::strcmp(step + 1, "exec") != 0
                                 ? std::string(" (opening ") + (step + 1) + ")"
                                 : std::string();
    throw std::runtime_error("cannot run '" + launch.argv[0] + "'" + what + ": " + strerror(error));
  }
  return pid;
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

std::string describe_status(int wait_status) {
  if (WIFEXITED(wait_status)) return "exitcode " + std::to_string(WEXITSTATUS(wait_status));
  if (WIFSIGNALED(wait_status)) {
    const int sig = WTERMSIG(wait_status);
    return "Signal " + std::to_string(sig) + " (" + signal_name(sig) + ")";
  }
  return "status " + std::to_string(wait_status);
}

}  // namespace ember_run
