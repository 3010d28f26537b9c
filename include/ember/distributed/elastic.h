// The worker side of ember-run's failure reports: PyTorch's @record in C++.
//
//   int main(int argc, char** argv) {
//     return ember::dist::elastic::record([&] { return train(argc, argv); });
//   }
//
// An exception that escapes `train` (ember::Error or any std::exception) is written to the file
// the launcher names in $TORCHELASTIC_ERROR_FILE, in torchelastic's JSON layout, and record()
// returns 1; the launcher then prints the message in its failure summary. record() also installs
// a terminate handler, so an exception escaping another thread (std::terminate) is written too
// before the process aborts. Outside a launcher (no TORCHELASTIC_ERROR_FILE) the message is only
// printed to stderr, as it would be without record().
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace ember::dist::elastic {

/// Runs `main`; on an uncaught exception writes the error file, prints the message to stderr
/// and returns 1. Returns what `main` returns otherwise.
int record(const std::function<int()>& main);

/// Installs (once) the std::terminate handler that writes the current exception, if any, to the
/// error file before aborting. record() calls it; call it yourself if you do not use record().
void install_terminate_handler();

/// Writes `message` (e.g. "ember::Error: [all_reduce #3] rank 0: ...") to $TORCHELASTIC_ERROR_FILE
/// as torchelastic does: {"message": {"message": ..., "extraInfo": {"py_callstack": ...,
/// "timestamp": "<unix seconds>"}}}. `details` goes to py_callstack (torchelastic's traceback
/// field). Does nothing when the variable is unset; never throws. Returns whether it wrote.
bool write_error_file(const std::string& message, const std::string& details = "");

/// What a worker wrote with write_error_file(), as ember-run reads it back.
struct ErrorRecord {
  std::string message;
  std::string details;   // extraInfo.py_callstack
  long long timestamp = 0;  // unix seconds; 0 when absent
};

/// Reads an error file written by write_error_file() or by PyTorch's @record. nullopt when the
/// file does not exist or is not in that layout.
std::optional<ErrorRecord> read_error_file(const std::string& path);

}  // namespace ember::dist::elastic
