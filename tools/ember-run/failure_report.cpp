#include "failure_report.h"

#include <sys/wait.h>

#include <algorithm>
#include <ctime>
#include <sstream>

#include "worker_process.h"

namespace ember_run {
namespace {

// torchrun's "2026-12-03_11:31:56" (datetime.isoformat(sep="_") to the second).
std::string format_time(std::chrono::system_clock::time_point time) {
  const std::time_t t = std::chrono::system_clock::to_time_t(time);
  std::tm local{};
  localtime_r(&t, &local);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d_%H:%M:%S", &local);
  return buffer;
}

std::string exitcode_field(const WorkerFailure& f) {
  // torchrun's convention: a signal is a negative exit code.
  const int code = WIFSIGNALED(f.wait_status) ? -WTERMSIG(f.wait_status) : WEXITSTATUS(f.wait_status);
  return std::to_string(code) + " (pid: " + std::to_string(f.pid) + ")";
}

void indent_lines(std::ostringstream& out, const std::string& text, const std::string& indent) {
  std::istringstream lines(text);
  std::string line;
  bool first = true;
  while (std::getline(lines, line)) {
    out << (first ? "" : indent) << line << '\n';
    first = false;
  }
  if (first) out << '\n';
}

void format_failure(std::ostringstream& out, int index, const WorkerFailure& f) {
  out << "[" << index << "]:\n"
      << "  time      : " << format_time(f.time) << '\n'
      << "  host      : " << f.host << '\n'
      << "  rank      : " << f.rank << " (local_rank: " << f.local_rank << ")\n"
      << "  exitcode  : " << exitcode_field(f) << '\n'
      << "  error_file: " << (f.error ? f.error_file : "<N/A>") << '\n'
      << "  message   : ";
  indent_lines(out, failure_message(f), "              ");
  if (f.error && !f.error->details.empty() && f.error->details != f.error->message) {
    out << "  traceback : ";
    indent_lines(out, f.error->details, "    ");
  }
}

}  // namespace

std::string failure_message(const WorkerFailure& f) {
  if (f.error) return f.error->message;
  if (WIFSIGNALED(f.wait_status)) {
    return describe_status(f.wait_status) + " received by PID " + std::to_string(f.pid);
  }
  return describe_status(f.wait_status) +
         " without an error file (wrap main in ember::dist::elastic::record() to report the "
         "exception)";
}

std::string one_line(const WorkerFailure& f) {
  std::string message = failure_message(f);
  std::replace(message.begin(), message.end(), '\n', ' ');
  return "rank " + std::to_string(f.rank) + " (local_rank " + std::to_string(f.local_rank) +
         ", host " + f.host + ", pid " + std::to_string(f.pid) + "): " +
         describe_status(f.wait_status) + ": " + message;
}

std::string format_summary(const std::string& program, const std::string& headline,
                           const std::vector<WorkerFailure>& local_failures,
                           const std::optional<std::string>& remote_root_cause) {
  std::ostringstream failures, root;
  failures << "Failures:\n";
  const std::size_t first_other = remote_root_cause ? 0 : 1;
  if (local_failures.size() <= first_other) failures << "  <NO_OTHER_FAILURES>\n";
  for (std::size_t i = first_other; i < local_failures.size(); ++i) {
    format_failure(failures, static_cast<int>(i - first_other + 1), local_failures[i]);
  }
  root << "Root Cause (first observed failure):\n";
  if (remote_root_cause) {
    root << "[0]: on another node: " << *remote_root_cause << '\n';
  } else if (!local_failures.empty()) {
    format_failure(root, 0, local_failures.front());
  }
  // torchrun's borders: as wide as the widest line, at most 60.
  const std::string title = program + " FAILED: " + headline;
  std::size_t width = title.size();
  std::istringstream lines(failures.str() + root.str());
  for (std::string line; std::getline(lines, line);) width = std::max(width, line.size());
  width = std::min<std::size_t>(width, 60);
  const std::string heavy(width, '='), light(width, '-');
  std::ostringstream out;
  out << heavy << '\n' << title << '\n' << light << '\n'
      << failures.str() << light << '\n' << root.str() << heavy << '\n';
  return out.str();
}

}  // namespace ember_run
