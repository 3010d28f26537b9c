// Checks that go through the group's store so they can name ranks that Gloo cannot:
// monitored_barrier, and the debug mode (EMBER_DISTRIBUTED_DEBUG=DETAIL).
// Note [Collective fingerprints]: in the debug mode, before collective #n every rank publishes
// "debug/<n>/<rank>" = what it is about to call ("all_reduce(float32 [4], SUM)") and reads every
// other rank's. A different call is an error on every rank naming both; a rank that never
// publishes #n is named when the timeout expires, with its #n-1 (which it has not deleted). A rank that
// leaves (destroy_process_group) publishes that as its #n+1, so the others learn at once that it
// stopped. Rank r deletes its #n-1 key once it has read all of #n: by then every rank has
// finished comparing #n-1.
#include <algorithm>

#include "distributed/group.h"
#include "distributed/store_detail.h"
#include "ember/error.h"

namespace ember::dist {
namespace {

std::string key(const char* kind, int64_t seq, int rank) {
  return std::string(kind) + "/" + std::to_string(seq) + "/" + std::to_string(rank);
}

std::string fingerprint(const CollectiveCall& call) { return call.op + "(" + call.signature + ")"; }

}  // namespace

void check_fingerprints(ProcessGroup::Impl& g, const CollectiveCall& call, int64_t seq) {
  Store& store = *g.config.store;
  const int me = g.config.rank, n = g.config.size;
  const std::string mine = fingerprint(call);
  store.set(key("debug", seq, me), mine);
  std::vector<std::string> keys;
  for (int r = 0; r < n; ++r) keys.push_back(key("debug", seq, r));
  try {
    store.wait(keys, g.config.timeout);
  } catch (const Error&) {
    std::string missing;
    for (int r = 0; r < n; ++r) {
      if (store.check({keys[static_cast<size_t>(r)]})) continue;
      // A rank that did not publish #seq has not deleted its #seq-1 either (Note above).
      const std::string previous = key("debug", seq - 1, r);
      std::string last = "none before #";
      if (seq > 1 && store.check({previous}))
        last = "#" + std::to_string(seq - 1) + " " + store.get(previous);
      else
        last.append(std::to_string(seq - 1));
      missing += (missing.empty() ? "" : "; ") + g.rank_name(r) + " (its last collective: " +
                 last + ")";
    }
    throw Error(g.prefix(call.op, seq) + "uneven participation: " + missing +
                " did not call collective #" + std::to_string(seq) + " within " +
                detail::format_duration(g.config.timeout) +
                "; do all ranks call the same collectives the same number of times?");
  }
  for (int r = 0; r < n; ++r) {
    if (r == me) continue;
    const std::string theirs = store.get(keys[static_cast<size_t>(r)]);
    if (theirs == mine) continue;
    throw Error(g.prefix(call.op, seq) + "collectives differ across ranks: " + g.rank_name(me) +
                " called " + mine + ", " + g.rank_name(r) + " called " + theirs +
                (theirs.rfind("destroy_process_group", 0) == 0
                     ? " — uneven participation: " + g.rank_name(r) + " stopped early"
                     : ""));
  }
  if (seq > 1) store.delete_key(key("debug", seq - 1, me));
}

void announce_departure(ProcessGroup::Impl& g) {
  const int64_t done = g.sequence.load();
  try {
    g.config.store->set(key("debug", done + 1, g.config.rank),
                        "destroy_process_group() after #" + std::to_string(done));
  } catch (const Error&) {
    // The store may be gone already (its host left first); the others then time out instead.
  }
}

void monitored_barrier(const ProcessGroup& group, std::chrono::milliseconds timeout) {
  ProcessGroup::Impl& g = resolve_group(group, "monitored_barrier");
  const auto limit = timeout.count() > 0 ? timeout : g.config.timeout;
  g.run({"monitored_barrier", "", {0}}, false, [&g, limit](uint32_t tag) {
    Store& store = *g.config.store;
    const int64_t seq = tag;
    const std::string verdict_key = "monitored_barrier/" + std::to_string(seq) + "/verdict";
    if (g.config.rank != 0) {
      store.set(key("monitored_barrier", seq, g.config.rank), "");
      try {
        store.wait({verdict_key}, limit);
      } catch (const Error&) {
        throw Error(g.prefix("monitored_barrier", seq) + "timed out after " +
                    detail::format_duration(limit) + " waiting for " + g.rank_name(0) +
                    " to release the barrier");
      }
      const std::string verdict = store.get(verdict_key);
      if (verdict != "ok") throw Error(g.prefix("monitored_barrier", seq) + verdict);
      return;
    }
    // Rank 0 waits for each rank in turn until one shared deadline, then names all that are late.
    const auto deadline = std::chrono::steady_clock::now() + limit;
    std::vector<std::string> late;
    for (int r = 1; r < g.config.size; ++r) {
      const auto left = std::max(std::chrono::milliseconds(1),
                                 std::chrono::duration_cast<std::chrono::milliseconds>(
                                     deadline - std::chrono::steady_clock::now()));
      const std::string k = key("monitored_barrier", seq, r);
      try {
        if (late.empty()) store.wait({k}, left);
        else if (!store.check({k})) late.push_back(g.rank_name(r));
      } catch (const Error&) {
        late.push_back(g.rank_name(r));
      }
    }
    if (late.empty()) {
      store.set(verdict_key, "ok");
      return;
    }
    std::string names;
    for (const auto& name : late) names += (names.empty() ? "" : ", ") + name;
    const std::string verdict = names + " did not reach the barrier within " +
                                detail::format_duration(limit) + " (checked by " +
                                g.rank_name(0) + ")";
    store.set(verdict_key, verdict);
    throw Error(g.prefix("monitored_barrier", seq) + verdict);
  });
}

}  // namespace ember::dist
