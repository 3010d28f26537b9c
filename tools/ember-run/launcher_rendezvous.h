// How the ember-run launchers of one job agree, through the TCPStore that node 0's launcher
// hosts (the store the workers' init_process_group uses too, under other keys):
//   - join(k): before attempt k every node publishes its worker count; each waits for all nodes
//     (--rdzv-conf join_timeout) and computes its first global rank. A node that never comes is
//     named in the timeout.
//   - report_failure(k)/failure(k): the first failure of attempt k wins a compare_set, so every
//     node restarts for the same attempt and names the same root cause.
//   - finish(k): the exit barrier. A node whose workers all succeeded waits for the others; a
//     failure elsewhere meanwhile sends it into the next attempt with them.
//   - request_stop(): a signal on one node stops every node instead of restarting them.
//   - leave(): node 0 keeps the store up until the others have read their last news.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "options.h"

namespace ember::dist {
class Store;
class TCPStore;
}  // namespace ember::dist

namespace ember_run {

/// Thrown by a wait on other nodes when SIGINT/SIGTERM/SIGHUP arrives meanwhile.
struct Interrupted {
  int signal;
};

struct Assignment {
  int rank_base = 0;   // global rank of this node's local rank 0
  int world_size = 0;  // workers on all nodes
};

class LauncherRendezvous {
 public:
  /// Node 0 starts the store server at master_addr:master_port (port 0: a free one); the others
  /// connect to it, retrying until join_timeout. Without a node rank (c10d), the launcher that
  /// can listen there hosts it, and node ranks follow the order of joining. Throws
  /// std::runtime_error saying why not.
  explicit LauncherRendezvous(const Options& options);
  ~LauncherRendezvous();

  int port() const { return port_; }
  /// --node-rank, or (c10d without it) the rank this launcher got in the order of joining.
  int node_rank() const { return node_rank_; }
  Assignment join(int attempt);
  /// Records this node's failure line unless another came first; returns the root cause's line
  /// and whether it is ours.
  std::pair<std::string, bool> report_failure(int attempt, const std::string& line);
  std::optional<std::string> failure(int attempt);
  void request_stop(const std::string& why);
  std::optional<std::string> stop_requested();
  enum class Finish { kAllSucceeded, kFailedElsewhere, kStopped };
  /// The exit barrier after this node's workers succeeded in `attempt`: waits for every node's,
  /// or a failure elsewhere (then the caller restarts or gives up like the others), or a stop.
  Finish finish(int attempt);
  /// Says this launcher is done with the store. The host (node 0 unless c10d chose), waits up to
  /// `grace_s` for the others to say so too.
  void leave(double grace_s);

 private:
  std::string key(int attempt, const std::string& name) const;
  std::unique_ptr<ember::dist::TCPStore> connect(bool host);

  const Options& options_;
  std::unique_ptr<ember::dist::TCPStore> store_;
  int port_ = 0;
  int node_rank_;
  bool hosts_store_ = false;
};

}  // namespace ember_run
