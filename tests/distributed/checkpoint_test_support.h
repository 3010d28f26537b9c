// What the distributed checkpoint tests share: running a body on ranks joined through a store
// hosted by the test process, and exact tensor comparison inside a rank.
#pragma once

#include <ember/distributed/store.h>

#include <functional>

#include "distributed/dist_test_support.h"
#include "distributed/multiprocess.h"

namespace ember::test {

inline std::vector<int64_t> dims(const Tensor& t) { return {t.sizes().begin(), t.sizes().end()}; }

/// Fails the rank unless got has want's shape and exactly its values.
inline void require_equal(const Tensor& got, const Tensor& want, const std::string& what) {
  require(dims(got) == dims(want), what + ": shape");
  require(values(got) == values(want),
          what + ": got " + show(values(got)) + "want " + show(values(want)));
}

/// Runs body(rank) on `world` ranks of one default group; each leaves the group at the end.
inline std::vector<ChildExit> on_ranks(
    int world, const std::function<void(int)>& body,
    std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  dist::TCPStore store("127.0.0.1", 0, {.is_master = true, .timeout = std::chrono::seconds(20)});
  return run_ranks(world, [&](int rank) {
    join(rank, world, store.port(), timeout);
    body(rank);
    dist::destroy_process_group();
    return 0;
  });
}

}  // namespace ember::test
