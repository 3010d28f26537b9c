// ember-run's command line: torchrun's flags (both --nproc-per-node and --nproc_per_node
// spellings), then the program and its arguments, which are passed on untouched.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ember_run {

/// Which of a worker's streams a --redirects/--tee value covers (torchrun's Std: 0 none,
/// 1 stdout, 2 stderr, 3 both), for every local rank or per rank ("0:3,1:1").
class StreamSpec {
 public:
  static constexpr int kOut = 1, kErr = 2;
  /// Throws std::invalid_argument naming `flag` and what was expected.
  static StreamSpec parse(const std::string& text, const std::string& flag);
  int streams_for(int local_rank) const;

 private:
  int all_ = 0;
  std::vector<std::pair<int, int>> per_rank_;  // (local rank, streams)
};

struct Options {
  int nnodes = 1;
  int nproc_per_node = 1;
  int node_rank = 0;  // -1: assigned by the c10d rendezvous (--rdzv-backend c10d, no --node-rank)
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  bool standalone = false;
  int max_restarts = 0;
  double monitor_interval_s = 0.1;   // how often the store is checked for other nodes' news
  std::string rdzv_backend = "static";
  std::string rdzv_id = "none";
  double join_timeout_s = 600;       // --rdzv-conf join_timeout=, torchrun's default
  double stop_timeout_s = 10;        // SIGTERM, then SIGKILL after this long
  std::string role = "default";
  StreamSpec redirects, tee;
  std::optional<std::string> log_dir;
  std::vector<std::string> command;  // the program, then its arguments
};

/// Parses argv. Prints help/errors itself; returns nullopt with `exit_code` set when the
/// launcher should exit without running anything (--help: 0, a bad flag: 2).
std::optional<Options> parse_options(int argc, char** argv, int& exit_code);

}  // namespace ember_run
