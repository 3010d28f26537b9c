// What the distributed tests' ranks share: joining a group whose store the test process hosts
// (as ember-run does: EMBER_RUN_HOSTS_STORE=1), checks that fail the rank with a message, and
// tensors as doubles for comparison.
#pragma once

#include <ember/creation.h>
#include <ember/distributed/process_group.h>
#include <ember/distributed/store.h>
#include <ember/tensor.h>
#include <stdlib.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "distributed/multiprocess.h"

namespace ember::test {

/// Joins the default group of `world` ranks through the store at 127.0.0.1:port.
inline void join(int rank, int world, uint16_t port,
                 std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  ::setenv("EMBER_RUN_HOSTS_STORE", "1", 1);
  dist::init_process_group({.init_method = "tcp://127.0.0.1:" + std::to_string(port),
                            .timeout = timeout, .world_size = world, .rank = rank});
}

/// Environment variables a rank sets before it joins.
using Environment = std::vector<std::pair<const char*, const char*>>;

/// The debug mode (EMBER_DISTRIBUTED_DEBUG=DETAIL), for on_ranks.
inline const Environment kDebugMode = {{"EMBER_DISTRIBUTED_DEBUG", "DETAIL"}};

/// Runs body on `world` forked ranks that join one group through a store hosted in this process
/// (each with `environment` set first, its collectives timing out after `timeout`) and leave it.
inline std::vector<ChildExit> on_ranks(int world, const std::function<void(int rank)>& body,
                                       const Environment& environment = {},
                                       std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  dist::TCPStore store("127.0.0.1", 0, {.is_master = true, .timeout = std::chrono::seconds(20)});
  return run_ranks(world, [&](int rank) {
    for (const auto& [name, value] : environment) ::setenv(name, value, 1);
    join(rank, world, store.port(), timeout);
    body(rank);
    dist::destroy_process_group();
    return 0;
  });
}

inline std::vector<ChildExit> on_ranks(int world, const std::function<void(int rank)>& body,
                                       std::chrono::milliseconds timeout) {
  return on_ranks(world, body, {}, timeout);
}

/// Fails the rank (its exit code and output tell the test) unless cond holds.
inline void require(bool cond, const std::string& what) {
  if (!cond) throw std::runtime_error("check failed: " + what);
}

inline std::vector<double> values(const Tensor& t) { return t.to(kFloat64).tolist<double>(); }

inline std::string show(const std::vector<double>& v) {
  std::ostringstream os;
  for (double x : v) os << x << " ";
  return os.str();
}

/// Equal within a relative tolerance fit for the dtype.
inline void require_close(const Tensor& got, const std::vector<double>& expected,
                          const std::string& what) {
  const auto v = values(got);
  const double tolerance = itemsize(got.dtype()) == 2 && is_floating_point(got.dtype()) ? 1e-2
                           : got.dtype() == kFloat32                                   ? 1e-5
                                                                                       : 1e-12;
  bool ok = v.size() == expected.size();
  for (size_t i = 0; ok && i < v.size(); ++i)
    ok = std::abs(v[i] - expected[i]) <= tolerance * std::max(1.0, std::abs(expected[i]));
  require(ok, what + ": got " + show(v) + "expected " + show(expected));
}

/// Milliseconds on the machine-wide monotonic clock (comparable across processes).
inline double now_ms() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace ember::test
