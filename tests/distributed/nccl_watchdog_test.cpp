// The NCCL watchdog's decisions (src/distributed/nccl_watchdog.cpp) over a fake communicator and a
// hand-moved clock, so that they run in every build: finished collectives retire, the oldest
// unfinished one past the timeout aborts the communicator once with an error naming op, sequence
// number and rank, an asynchronous NCCL error does the same at once, and nothing happens after.
#include "distributed/nccl_watchdog.h"

#include <gtest/gtest.h>

#include <string>

namespace ember::dist {
namespace {

using namespace std::chrono_literals;
using Clock = NcclWatchdog::Clock;

struct FakeCommunicator final : WatchedCommunicator {
  std::string error;
  int aborts = 0;
  std::string async_error() override { return error; }
  void abort() override { ++aborts; }
};

NcclWatchdog::Prefix rank_prefix(int rank) {
  return [rank](const std::string& op, int64_t seq) {
    return "[" + op + " #" + std::to_string(seq) + "] rank " + std::to_string(rank) + ": ";
  };
}

TEST(NcclWatchdog, FinishedCollectivesRetireAndNothingIsAborted) {
  FakeCommunicator comm;
  NcclWatchdog w(comm, 1000ms, rank_prefix(0));
  const Clock::time_point t0{};
  bool first = false, second = false;
  w.started(1, "all_reduce", [&] { return first; }, t0);
  w.started(2, "broadcast", [&] { return second; }, t0 + 10ms);
  EXPECT_FALSE(w.poll(t0 + 500ms));
  EXPECT_EQ(w.in_flight(), 2u);
  second = true;  // seen late, before the first: still retired
  EXPECT_FALSE(w.poll(t0 + 600ms));
  EXPECT_EQ(w.in_flight(), 1u);
  first = true;
  EXPECT_FALSE(w.poll(t0 + 5000ms)) << "finished before the look: no timeout";
  EXPECT_EQ(w.in_flight(), 0u);
  EXPECT_FALSE(w.aborted());
  EXPECT_EQ(comm.aborts, 0);
}

TEST(NcclWatchdog, TheOldestUnfinishedCollectivePastTheTimeoutAbortsOnce) {
  FakeCommunicator comm;
  NcclWatchdog w(comm, 1000ms, rank_prefix(3));
  const Clock::time_point t0{};
  w.started(7, "all_gather", [] { return false; }, t0);
  w.started(8, "reduce_scatter", [] { return false; }, t0 + 400ms);
  EXPECT_FALSE(w.poll(t0 + 1000ms)) << "at the timeout, not past it";
  const auto error = w.poll(t0 + 1001ms);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->rfind("[all_gather #7] rank 3: timed out after 1 s (NCCL watchdog", 0), 0u)
      << *error;
  EXPECT_TRUE(w.aborted());
  EXPECT_EQ(w.error(), *error);
  EXPECT_EQ(comm.aborts, 1);
  EXPECT_FALSE(w.poll(t0 + 9000ms)) << "one abort, one error";
  EXPECT_EQ(comm.aborts, 1);
}

TEST(NcclWatchdog, AnAsyncErrorAbortsAtOnceNamingTheStoppedCollective) {
  FakeCommunicator comm;
  NcclWatchdog w(comm, 60000ms, rank_prefix(1));
  const Clock::time_point t0{};
  bool done = false;
  w.started(4, "all_reduce", [&] { return done; }, t0);
  w.started(5, "broadcast", [] { return false; }, t0);
  EXPECT_FALSE(w.poll(t0 + 1ms));
  done = true;
  comm.error = "unhandled system error (remote process exited)";
  const auto error = w.poll(t0 + 2ms);
  ASSERT_TRUE(error);
  EXPECT_EQ(*error, "[broadcast #5] rank 1: NCCL error: unhandled system error (remote process "
                    "exited) (the communicator was aborted)");
  EXPECT_EQ(comm.aborts, 1);
  EXPECT_FALSE(w.poll(t0 + 3ms));
  EXPECT_EQ(comm.aborts, 1);
}

TEST(NcclWatchdog, AnAsyncErrorWithNothingInFlightStillAborts) {
  FakeCommunicator comm;
  NcclWatchdog w(comm, 1000ms, rank_prefix(2));
  comm.error = "invalid usage";
  const auto error = w.poll(Clock::time_point{});
  ASSERT_TRUE(error);
  EXPECT_EQ(*error, "[nccl #0] rank 2: NCCL error: invalid usage (the communicator was aborted)");
  EXPECT_EQ(comm.aborts, 1);
}

}  // namespace
}  // namespace ember::dist
