// Failures are errors with names, on real processes: a rank SIGKILLed mid-all_reduce, a rank
// SIGSTOPped (hung), a rank that never arrives at rendezvous, a group used after an error, and the
// debug mode's collective mismatch and uneven participation. Messages are asserted, never timings
// (the measured delays are printed for the notes).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "distributed/dist_test_support.h"
#include "distributed/multiprocess.h"
#include "ember/distributed/process_group.h"
#include "test_support.h"

namespace ember::dist {
namespace {

using namespace std::chrono_literals;
using test::require;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// All-reduces until an error; prints it with when it came and what the next call says. The rank
// then lingers so the other survivors' errors come from the victim, not from this rank's exit.
int all_reduce_until_error(Store& store, int rank) {
  Tensor t = ones({1 << 16});
  all_reduce(t);
  store.set("looping/" + std::to_string(rank), "");
  try {
    for (;;) all_reduce(t);
  } catch (const Error& e) {
    std::cout << std::fixed << "ERROR " << e.what() << "\nAT " << test::now_ms() << "\n";
  }
  Tensor again = ones({1});
  std::cout << "NEXT " << test::message_of([&] { all_reduce(again); }) << std::endl;
  std::this_thread::sleep_for(300ms);
  return 0;
}

// The ms from `since` to the AT line of a rank's output.
double delay(const test::ChildExit& e, double since) {
  const auto at = e.output.find("AT ");
  return at == std::string::npos ? -1 : std::stod(e.output.substr(at + 3)) - since;
}

void wait_until_looping(TCPStore& store, int world) {
  std::vector<std::string> keys;
  for (int r = 0; r < world; ++r) keys.push_back("looping/" + std::to_string(r));
  store.wait(keys, 10s);
}

// Gloo over TCP (EMBER_SHM=0), and the shared-memory all_reduce that ranks on one host use by
// default (EMBER_SHM unset): the same failure semantics.
class Failures : public ::testing::TestWithParam<bool> {
 protected:
  void join(int rank, int world, uint16_t port, std::chrono::milliseconds timeout) {
    if (GetParam()) ::unsetenv("EMBER_SHM");
    else ::setenv("EMBER_SHM", "0", 1);
    test::join(rank, world, port, timeout);
  }
  // How a dead peer is described on this path.
  std::string died(int rank) {
    return "rank " + std::to_string(rank) +
           (GetParam() ? " exited (peer died?) — shared memory" : " closed the connection (peer died?)");
  }
};

INSTANTIATE_TEST_SUITE_P(Transports, Failures, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "SharedMemory" : "Gloo"; });

TEST_P(Failures, AKilledRankIsNamedByEverySurvivor) {
  TCPStore store("127.0.0.1", 0, {.is_master = true, .timeout = 20s});
  test::Children children(3, [&](int rank) {
    join(rank, 3, store.port(), 10s);
    TCPStore client("127.0.0.1", store.port(), {.timeout = 10s});
    return all_reduce_until_error(client, rank);
  });
  wait_until_looping(store, 3);
  const double killed_at = test::now_ms();
  children.signal(1, SIGKILL);
  const auto exits = children.wait(15s);
  for (int r : {0, 2}) {
    const auto& e = exits[static_cast<size_t>(r)];
    EXPECT_TRUE(e.ok()) << e.describe();
    EXPECT_TRUE(has(e.output, "ERROR [all_reduce #")) << e.output;
    EXPECT_TRUE(has(e.output, "] rank " + std::to_string(r) + ": " + died(1))) << e.output;
    EXPECT_TRUE(has(e.output, "NEXT [all_reduce #")) << e.output;
    EXPECT_TRUE(has(e.output, "the process group is unusable after an earlier error ([all_reduce #"))
        << e.output;
    std::cout << "rank " << r << " saw the SIGKILL after " << delay(e, killed_at) << " ms: "
              << e.output.substr(0, e.output.find('\n')) << "\n";
  }
  EXPECT_EQ(exits[1].signal, SIGKILL);
}

TEST_P(Failures, AStoppedRankIsATimeoutNamingIt) {
  TCPStore store("127.0.0.1", 0, {.is_master = true, .timeout = 20s});
  test::Children children(2, [&](int rank) {
    join(rank, 2, store.port(), 2s);
    TCPStore client("127.0.0.1", store.port(), {.timeout = 10s});
    return all_reduce_until_error(client, rank);
  });
  wait_until_looping(store, 2);
  const double stopped_at = test::now_ms();
  children.signal(1, SIGSTOP);
  // Rank 0 reports; rank 1 stays stopped until it is killed.
  EXPECT_TRUE(children.exits_within(0, 10s));
  children.signal(1, SIGKILL);
  const auto exits = children.wait(10s);
  const auto& e = exits[0];
  EXPECT_TRUE(e.ok()) << e.describe();
  EXPECT_TRUE(has(e.output, "] rank 0: timed out after 2 s waiting for rank 1")) << e.output;
  EXPECT_TRUE(has(e.output, "NEXT [all_reduce #")) << e.output;
  std::cout << "rank 0 timed out " << delay(e, stopped_at) << " ms after the SIGSTOP (timeout 2 s)\n";
}

// A rank blocked on a live peer when another rank dies is not woken by the death (Gloo reports
// only the sockets of the op in progress): its timeout names the rank that left, from the store.
// Rank 2 waits for a recv from rank 0, which lives but never sends, after rank 1 was SIGKILLed.
TEST(GlooFailures, ATimeoutNamesTheRankThatLeftMeanwhile) {
  TCPStore store("127.0.0.1", 0, {.is_master = true, .timeout = 20s});
  test::Children children(3, [&](int rank) {
    ::setenv("EMBER_SHM", "0", 1);
    test::join(rank, 3, store.port(), 2s);
    TCPStore client("127.0.0.1", store.port(), {.timeout = 10s});
    Tensor t = ones({4});
    all_reduce(t);  // every pair is connected
    client.set("looping/" + std::to_string(rank), "");
    if (rank != 2) {
      std::this_thread::sleep_for(20s);  // until the test kills it
      return 1;
    }
    client.get("killed");
    std::cout << test::message_of([&] { recv(t, 0); }) << std::endl;
    return 0;
  });
  wait_until_looping(store, 3);
  children.signal(1, SIGKILL);
  store.set("killed", "");
  EXPECT_TRUE(children.exits_within(2, 10s));
  children.signal(0, SIGKILL);
  const auto exits = children.wait(10s);
  EXPECT_TRUE(exits[2].ok()) << exits[2].describe();
  EXPECT_TRUE(has(exits[2].output, "] rank 2: rank 1 closed the connection (peer died?); timed "
                                   "out after 2 s waiting for rank 0 — gloo: "))
      << exits[2].output;
}

TEST(Rendezvous, ARankThatNeverArrivesIsNamed) {
  TCPStore store("127.0.0.1", 0, {.is_master = true, .timeout = 20s});
  const auto exits = test::run_ranks(2, [&](int rank) {
    // World of 3; rank 2 never starts.
    const std::string message = test::message_of([&] { test::join(rank, 3, store.port(), 1s); });
    std::cout << message << std::endl;
    require(has(message, "[init_process_group] rank " + std::to_string(rank) +
                             ": timed out after 1 s waiting for rank(s) 2 to join the group "
                             "(world_size 3)"),
            message);
    require(!is_initialized(), "no group after a failed rendezvous");
    return 0;
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(Rendezvous, MonitoredBarrierNamesTheRankThatDidNotCome) {
  TCPStore store("127.0.0.1", 0, {.is_master = true, .timeout = 20s});
  const auto exits = test::run_ranks(3, [&](int rank) {
    test::join(rank, 3, store.port(), 10s);
    if (rank == 2) {  // skips the barrier, stays alive until the others are done
      TCPStore client("127.0.0.1", store.port(), {.timeout = 10s});
      client.wait({"done/0", "done/1"});
      return 0;
    }
    const std::string message = test::message_of([] { monitored_barrier({}, 1s); });
    std::cout << message << std::endl;
    TCPStore client("127.0.0.1", store.port(), {.timeout = 10s});
    client.set("done/" + std::to_string(rank), "");
    require(has(message, "[monitored_barrier #1] rank " + std::to_string(rank) +
                             ": rank 2 did not reach the barrier within 1 s (checked by rank 0)"),
            message);
    return 0;
  });
  EXPECT_EQ(test::failures(exits), "");
}

// ── the debug mode ─────────────────────────────────────────────────────────────────────────

std::vector<test::ChildExit> debug_run(int world, const std::function<void(int)>& body) {
  TCPStore store("127.0.0.1", 0, {.is_master = true, .timeout = 20s});
  return test::run_ranks(world, [&](int rank) {
    ::setenv("EMBER_DISTRIBUTED_DEBUG", "DETAIL", 1);
    test::join(rank, world, store.port(), 2s);
    body(rank);
    return 0;
  });
}

TEST(DebugMode, MatchingCollectivesPass) {
  const auto exits = debug_run(3, [](int rank) {
    for (int i = 0; i < 5; ++i) {
      Tensor t = full({4}, rank);
      all_reduce(t);
      broadcast(t, 0);
    }
    barrier();
    destroy_process_group();
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(DebugMode, AShapeMismatchNamesBothSidesOnEveryRank) {
  const auto exits = debug_run(2, [](int rank) {
    Tensor ok = zeros({2});
    all_reduce(ok);
    Tensor t = zeros({rank == 0 ? 4 : 5});
    const std::string message = test::message_of([&] { all_reduce(t); });
    std::cout << message << std::endl;
    const std::string me = "rank " + std::to_string(rank), other = "rank " + std::to_string(1 - rank);
    require(has(message, "[all_reduce #2] " + me + ": collectives differ across ranks: " + me +
                             " called all_reduce(torch.float32 [" + (rank == 0 ? "4" : "5") +
                             "], SUM), " + other + " called all_reduce(torch.float32 [" +
                             (rank == 0 ? "5" : "4") + "], SUM)"),
            message);
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(DebugMode, ADifferentCollectiveIsNamed) {
  const auto exits = debug_run(2, [](int rank) {
    Tensor t = zeros({4});
    const std::string message =
        test::message_of([&] { rank == 0 ? all_reduce(t) : broadcast(t, 0); });
    std::cout << message << std::endl;
    require(has(message, "collectives differ across ranks"), message);
    require(has(message, "rank 0 called all_reduce(torch.float32 [4], SUM)"), message);
    require(has(message, "rank 1 called broadcast(torch.float32 [4], src 0)"), message);
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(DebugMode, ARankThatStopsEarlyIsNamed) {
  const auto exits = debug_run(2, [](int rank) {
    Tensor t = ones({3});
    for (int step = 0; step < (rank == 1 ? 2 : 3); ++step) {
      const std::string message = test::message_of([&] { all_reduce(t); });
      if (message != "<no error thrown>") {
        std::cout << message << std::endl;
        require(rank == 0 && step == 2, "only rank 0's third step fails: " + message);
        require(has(message, "[all_reduce #3] rank 0: collectives differ across ranks: rank 0 "
                             "called all_reduce(torch.float32 [3], SUM), rank 1 called "
                             "destroy_process_group() after #2 — uneven participation: rank 1 "
                             "stopped early"),
                message);
        return;
      }
    }
    require(rank == 1, "rank 0's third all_reduce must fail");
    destroy_process_group();
    std::this_thread::sleep_for(200ms);
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(DebugMode, ARankThatVanishesIsNamedWithItsLastCollective) {
  const auto exits = debug_run(2, [](int rank) {
    Tensor t = ones({3});
    all_reduce(t);
    if (rank == 1) {  // leaves without a word and stays quiet for longer than the timeout
      std::this_thread::sleep_for(3s);
      ::_exit(0);
    }
    const std::string message = test::message_of([&] { all_reduce(t); });
    std::cout << message << std::endl;
    require(has(message, "[all_reduce #2] rank 0: uneven participation: rank 1 (its last "
                         "collective: #1 all_reduce(torch.float32 [3], SUM)) did not call "
                         "collective #2 within 2 s"),
            message);
  });
  EXPECT_EQ(test::failures(exits), "");
}

}  // namespace
}  // namespace ember::dist
