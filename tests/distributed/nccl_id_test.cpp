// The NCCL bootstrap's id exchange (src/distributed/nccl_id.cpp) over a real TCPStore: every rank
// of a group gets rank 0's 128 bytes, each communicator its own key and id, and a missing rank 0
// or a malformed id is an error that names the rank and the key.
#include "distributed/nccl_id.h"

#include <ember/distributed/store.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "test_support.h"

namespace ember::dist {
namespace {

using namespace std::chrono_literals;

std::string fake_id(char fill) { return std::string(kNcclUniqueIdBytes, fill); }

TEST(NcclId, EveryRankGetsRankZerosIdThroughTheTcpStore) {
  constexpr int kRanks = 4;
  TCPStore server("127.0.0.1", 0, {.is_master = true, .timeout = 10s});
  std::vector<std::string> got(kRanks);
  std::vector<std::thread> ranks;
  for (int rank = kRanks - 1; rank >= 0; --rank) {  // rank 0 last: the others wait for it
    ranks.emplace_back([&, rank] {
      TCPStore client("127.0.0.1", server.port(), {.timeout = 10s});
      PrefixStore group("default_pg", std::shared_ptr<Store>(&client, [](Store*) {}));
      int made = 0;
      got[size_t(rank)] = exchange_nccl_unique_id(group, rank, 0, [&] {
        ++made;
        return fake_id('a');
      });
      EXPECT_EQ(made, rank == 0 ? 1 : 0) << "only rank 0 makes the id";
    });
  }
  for (auto& t : ranks) t.join();
  for (int rank = 0; rank < kRanks; ++rank) EXPECT_EQ(got[size_t(rank)], fake_id('a')) << rank;
  EXPECT_EQ(server.get("default_pg/0"), fake_id('a'));
}

TEST(NcclId, EachCommunicatorHasItsOwnKeyAndId) {
  HashStore store(5s);
  exchange_nccl_unique_id(store, 0, 0, [] { return fake_id('a'); });
  exchange_nccl_unique_id(store, 0, 1, [] { return fake_id('b'); });
  EXPECT_EQ(exchange_nccl_unique_id(store, 1, 0, [] { return fake_id('x'); }), fake_id('a'));
  EXPECT_EQ(exchange_nccl_unique_id(store, 1, 1, [] { return fake_id('x'); }), fake_id('b'));
}

TEST(NcclId, AMissingRankZeroOrAMalformedIdNamesTheRankAndKey) {
  HashStore store(100ms);
  EXPECT_ERROR(exchange_nccl_unique_id(store, 2, 7, [] { return fake_id('x'); }),
               "[nccl] rank 2 is setting up an NCCL communicator and retrieving ncclUniqueId from "
               "rank 0 via the store by key '7', but store.get('7') got error: ");
  EXPECT_ERROR(exchange_nccl_unique_id(store, 0, 3, [] { return std::string("short"); }),
               "[nccl] rank 0: an ncclUniqueId has 128 bytes, got 5 for key '3'");
  store.set("4", "short");
  EXPECT_ERROR(exchange_nccl_unique_id(store, 1, 4, [] { return fake_id('x'); }),
               "[nccl] rank 1: invalid size for ncclUniqueId under key '4': expected 128 bytes, "
               "got 5");
}

}  // namespace
}  // namespace ember::dist
