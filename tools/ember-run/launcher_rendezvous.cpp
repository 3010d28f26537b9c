#include "launcher_rendezvous.h"

#include <signal.h>

#include <algorithm>
#include <stdexcept>
#include <thread>

#include "ember/distributed/store.h"

namespace ember_run {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// How often a launcher looks at the store while it waits for other nodes: check() is one round
// trip, and a short period keeps a restart's rendezvous well under a second.
constexpr milliseconds kPollPeriod{5};

milliseconds to_ms(double seconds) { return milliseconds(static_cast<int64_t>(seconds * 1000)); }

// SIGINT/SIGTERM/SIGHUP are blocked (the agent takes them from its signalfd), so a wait here
// would not notice Ctrl-C: look at the pending set instead.
void throw_if_interrupted() {
  sigset_t pending;
  sigpending(&pending);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    if (sigismember(&pending, sig)) throw Interrupted{sig};
  }
}

std::string list(const std::vector<int>& nodes) {
  std::string out;
  for (int n : nodes) out += (out.empty() ? "" : ", ") + std::to_string(n);
  return out;
}

}  // namespace

std::unique_ptr<ember::dist::TCPStore> LauncherRendezvous::connect(bool host) {
  return std::make_unique<ember::dist::TCPStore>(
      options_.master_addr, static_cast<uint16_t>(options_.master_port),
      ember::dist::TCPStoreOptions{.is_master = host, .timeout = to_ms(options_.join_timeout_s)});
}

LauncherRendezvous::LauncherRendezvous(const Options& options)
    : options_(options), node_rank_(options.node_rank) {
  const std::string where = options.master_addr + ":" + std::to_string(options.master_port);
  if (node_rank_ >= 0) {
    hosts_store_ = node_rank_ == 0;
    try {
      store_ = connect(hosts_store_);
    } catch (const std::exception& e) {
      throw std::runtime_error(
          (hosts_store_ ? "cannot host the rendezvous store at " + where
                        : "cannot reach node 0's rendezvous store at " + where) +
          ": " + e.what());
    }
  } else {
    // c10d without --node-rank: the launcher that can listen at the endpoint hosts the store
    // (the address is its own and nobody listens yet); the others connect to it.
    try {
      store_ = connect(true);
      hosts_store_ = true;
    } catch (const std::exception& host_error) {
      try {
        store_ = connect(false);
      } catch (const std::exception& e) {
        throw std::runtime_error("cannot host the rendezvous store at " + where + " (" +
                                 host_error.what() + ") nor reach it (" + e.what() + ")");
      }
    }
  }
  port_ = store_->port();
  const std::string who = node_rank_ >= 0 ? "node " + std::to_string(node_rank_) : "this launcher";
  // Every launcher of the job must agree on what the job is: the host says, the others compare.
  const std::string job = options.rdzv_id + " nnodes=" + std::to_string(options.nnodes);
  const std::string stored = hosts_store_ ? store_->compare_set("ember-run/job", "", job)
                                          : store_->get("ember-run/job");
  if (stored != job) {
    throw std::runtime_error(who + " was started for job '" +
                             job + "' but the store at " + where + " belongs to job '" + stored +
                             "': give every launcher the same --rdzv-id and --nnodes");
  }
  store_->add("ember-run/members", 1);  // whom the host waits for in leave()
  if (node_rank_ < 0) {
    node_rank_ = static_cast<int>(store_->add("ember-run/next_node_rank", 1) - 1);
    if (node_rank_ >= options.nnodes) {
      throw std::runtime_error("more launchers than --nnodes " + std::to_string(options.nnodes) +
                               " joined job '" + options.rdzv_id + "' at " + where);
    }
  }
}

LauncherRendezvous::~LauncherRendezvous() = default;

std::string LauncherRendezvous::key(int attempt, const std::string& name) const {
  return "ember-run/attempt_" + std::to_string(attempt) + "/" + name;
}

Assignment LauncherRendezvous::join(int attempt) {
  const auto node_key = [&](int node) { return key(attempt, "node_" + std::to_string(node)); };
  store_->set(node_key(node_rank_), std::to_string(options_.nproc_per_node));
  std::vector<std::string> keys;
  for (int node = 0; node < options_.nnodes; ++node) keys.push_back(node_key(node));
  const auto deadline = Clock::now() + to_ms(options_.join_timeout_s);
  while (!store_->check(keys)) {
    throw_if_interrupted();
    if (Clock::now() >= deadline) {
      std::vector<int> missing, joined;
      for (int node = 0; node < options_.nnodes; ++node) {
        (store_->check({node_key(node)}) ? joined : missing).push_back(node);
      }
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%g", options_.join_timeout_s);
      throw std::runtime_error("rendezvous of attempt " + std::to_string(attempt) +
                               " timed out after " + seconds + " s: node(s) " + list(missing) +
                               " of --nnodes " + std::to_string(options_.nnodes) +
                               " never joined (joined: " + list(joined) + ")");
    }
    std::this_thread::sleep_for(kPollPeriod);
  }
  Assignment assignment;
  for (int node = 0; node < options_.nnodes; ++node) {
    const int workers = std::stoi(store_->get(node_key(node)));
    if (node < node_rank_) assignment.rank_base += workers;
    assignment.world_size += workers;
  }
  return assignment;
}

std::pair<std::string, bool> LauncherRendezvous::report_failure(int attempt,
                                                                const std::string& line) {
  const std::string root = store_->compare_set(key(attempt, "failed"), "", line);
  return {root, root == line};
}

std::optional<std::string> LauncherRendezvous::failure(int attempt) {
  const std::string failed = key(attempt, "failed");
  if (!store_->check({failed})) return std::nullopt;
  return store_->get(failed);
}

void LauncherRendezvous::request_stop(const std::string& why) {
  store_->compare_set("ember-run/stop", "", why);
}

std::optional<std::string> LauncherRendezvous::stop_requested() {
  if (!store_->check({"ember-run/stop"})) return std::nullopt;
  return store_->get("ember-run/stop");
}

LauncherRendezvous::Finish LauncherRendezvous::finish(int attempt) {
  const std::string done = key(attempt, "done");
  if (store_->add(done, 1) >= options_.nnodes) return Finish::kAllSucceeded;
  const auto deadline = Clock::now() + to_ms(options_.join_timeout_s);
  for (;;) {
    throw_if_interrupted();
    if (failure(attempt)) return Finish::kFailedElsewhere;
    if (stop_requested()) return Finish::kStopped;
    if (store_->add(done, 0) >= options_.nnodes) return Finish::kAllSucceeded;
    if (Clock::now() >= deadline) {
      throw std::runtime_error("this node's workers succeeded, but the other nodes did not finish "
                               "attempt " + std::to_string(attempt) + " within --rdzv-conf "
                               "join_timeout");
    }
    std::this_thread::sleep_for(milliseconds(std::max<int64_t>(
        kPollPeriod.count(), to_ms(options_.monitor_interval_s).count())));
  }
}

void LauncherRendezvous::leave(double grace_s) {
  try {
    const int64_t left = store_->add("ember-run/left", 1);
    if (!hosts_store_) return;
    // The host's store dies with it: give the other launchers time to read their last news.
    const auto deadline = Clock::now() + to_ms(grace_s);
    for (int64_t n = left; n < store_->add("ember-run/members", 0) && Clock::now() < deadline;
         n = store_->add("ember-run/left", 0)) {
      std::this_thread::sleep_for(kPollPeriod);
    }
  } catch (const std::exception&) {
    // Leaving is best effort: the job's outcome is already decided.
  }
}

}  // namespace ember_run
