// The stores: the same semantics on HashStore, FileStore, TCPStore and PrefixStore; timeouts
// that name their keys; TCPStore and FileStore shared by real processes; Gloo's rendezvous
// through our store (the adapter).
#include "ember/distributed/store.h"

#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/transport/tcp/device.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <thread>

#include "distributed/gloo_store.h"
#include "distributed/multiprocess.h"
#include "test_support.h"

namespace ember::dist {
namespace {

using namespace std::chrono_literals;
using test::message_of;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("ember-" + name + "-" + std::to_string(::getpid())))
      .string();
}

struct StoreKind {
  std::string name;
  std::function<std::shared_ptr<Store>()> make;
};

void PrintTo(const StoreKind& kind, std::ostream* os) { *os << kind.name; }

class StoreSemantics : public ::testing::TestWithParam<StoreKind> {
 protected:
  void SetUp() override { store_ = GetParam().make(); }
  void TearDown() override { std::filesystem::remove(temp_path("semantics")); }
  std::shared_ptr<Store> store_;
};

TEST_P(StoreSemantics, SetGetAddCheckDelete) {
  Store& s = *store_;
  s.set("a", "1");
  s.set("bytes", std::string("x\0y", 3));
  EXPECT_EQ(s.get("a"), "1");
  EXPECT_EQ(s.get("bytes"), std::string("x\0y", 3));
  s.set("a", "2");
  EXPECT_EQ(s.get("a"), "2");
  EXPECT_EQ(s.add("counter", 5), 5);
  EXPECT_EQ(s.add("counter", -2), 3);
  EXPECT_EQ(s.get("counter"), "3");
  EXPECT_TRUE(s.check({"a", "counter"}));
  EXPECT_FALSE(s.check({"a", "missing"}));
  EXPECT_EQ(s.num_keys(), 3);
  EXPECT_TRUE(s.delete_key("a"));
  EXPECT_FALSE(s.delete_key("a"));
  EXPECT_FALSE(s.check({"a"}));
  EXPECT_EQ(s.num_keys(), 2);
  s.wait({"counter", "bytes"}, 10ms);
}

TEST_P(StoreSemantics, CompareSetFollowsC10d) {
  Store& s = *store_;
  EXPECT_EQ(s.compare_set("k", "x", "y"), "x");  // absent, expected given: nothing set
  EXPECT_FALSE(s.check({"k"}));
  EXPECT_EQ(s.compare_set("k", "", "first"), "first");  // absent, expected empty: set
  EXPECT_EQ(s.compare_set("k", "wrong", "second"), "first");
  EXPECT_EQ(s.compare_set("k", "first", "second"), "second");
  EXPECT_EQ(s.get("k"), "second");
}

TEST_P(StoreSemantics, TimeoutsNameTheKeys) {
  Store& s = *store_;
  s.set("present", "");
  s.set_timeout(50ms);
  const std::string waited = message_of([&] { s.wait({"present", "gone", "late"}, 60ms); });
  EXPECT_NE(waited.find("timed out after 60 ms waiting for key(s)"), std::string::npos) << waited;
  EXPECT_NE(waited.find("gone'"), std::string::npos) << waited;
  EXPECT_NE(waited.find("late'"), std::string::npos) << waited;
  EXPECT_EQ(waited.find("present'"), std::string::npos) << "only the missing keys: " << waited;
  const std::string got = message_of([&] { s.get("nothing"); });
  EXPECT_NE(got.find("timed out after 50 ms waiting for key(s)"), std::string::npos) << got;
  EXPECT_NE(got.find("nothing'"), std::string::npos) << got;
  // The store still works after a timeout (TCPStore reconnects: Note [TCPStore timeouts]).
  s.set("after", "ok");
  EXPECT_EQ(s.get("after"), "ok");
}

TEST_P(StoreSemantics, AddOnTextIsAnError) {
  store_->set("text", "abc");
  const std::string message = message_of([&] { store_->add("text", 1); });
  EXPECT_NE(message.find("add] key '"), std::string::npos) << message;
  EXPECT_NE(message.find("holds 'abc', which is not an integer"), std::string::npos) << message;
  EXPECT_EQ(store_->add("n", 1), 1);  // still usable
}

TEST_P(StoreSemantics, WaitWakesWhenAnotherThreadSets) {
  std::shared_ptr<Store> store = store_;
  std::thread setter([store] {
    std::this_thread::sleep_for(20ms);
    store->set("later", "v");
  });
  store_->wait({"later"}, 10s);
  setter.join();
  EXPECT_EQ(store_->get("later"), "v");
}

// One TCPStore hosting the server, and a second client of it, as the "other thread": the client
// that waits holds its own connection.
std::shared_ptr<Store> tcp_pair() {
  struct Pair : Store {
    std::shared_ptr<TCPStore> master = std::make_shared<TCPStore>(
        "127.0.0.1", 0, TCPStoreOptions{.is_master = true, .timeout = 10s});
    TCPStore client{"127.0.0.1", master->port(), {.timeout = 10s}};
    void set(const std::string& k, const std::string& v) override { master->set(k, v); }
    std::string get(const std::string& k) override {
      client.set_timeout(timeout());
      return client.get(k);
    }
    int64_t add(const std::string& k, int64_t d) override { return master->add(k, d); }
    std::string compare_set(const std::string& k, const std::string& e,
                            const std::string& d) override {
      return client.compare_set(k, e, d);
    }
    bool check(const std::vector<std::string>& k) override { return client.check(k); }
    bool delete_key(const std::string& k) override { return client.delete_key(k); }
    int64_t num_keys() override { return master->num_keys(); }
    void wait_for(const std::vector<std::string>& k, std::chrono::milliseconds t) override {
      client.wait(k, t);
    }
  };
  return std::make_shared<Pair>();
}

INSTANTIATE_TEST_SUITE_P(
    Stores, StoreSemantics,
    ::testing::Values(
        StoreKind{"HashStore", [] { return std::make_shared<HashStore>(10s); }},
        StoreKind{"FileStore",
                  [] {
                    std::filesystem::remove(temp_path("semantics"));
                    return std::make_shared<FileStore>(temp_path("semantics"), 10s);
                  }},
        StoreKind{"TCPStore", tcp_pair},
        StoreKind{"PrefixStore",
                  [] {
                    return std::make_shared<PrefixStore>("job",
                                                         std::make_shared<HashStore>(10s));
                  }}),
    [](const auto& info) { return info.param.name; });

TEST(PrefixStore, PutsItsKeysUnderThePrefix) {
  auto base = std::make_shared<HashStore>(50ms);
  PrefixStore attempt0("attempt_0", base), attempt1("attempt_1", base);
  attempt0.set("rank_0", "a");
  EXPECT_EQ(base->get("attempt_0/rank_0"), "a");
  EXPECT_FALSE(attempt1.check({"rank_0"}));
  const std::string message = message_of([&] { attempt1.wait({"rank_0"}, 20ms); });
  EXPECT_NE(message.find("'attempt_1/rank_0'"), std::string::npos) << message;
}

// ── real processes ─────────────────────────────────────────────────────────────────────────

// Each of n ranks counts itself in, publishes its key, reads every other rank's and leaves.
int rendezvous_body(Store& store, int rank, int n) {
  store.add("arrived", 1);
  store.set("rank_" + std::to_string(rank), "hello from " + std::to_string(rank));
  for (int peer = 0; peer < n; ++peer)
    if (store.get("rank_" + std::to_string(peer)) != "hello from " + std::to_string(peer))
      return 2;
  store.wait({"go"});
  return 0;
}

TEST(TCPStore, ProcessesRendezvousThroughAServerInTheParent) {
  TCPStore server("127.0.0.1", 0, {.is_master = true, .timeout = 10s});
  test::Children children(3, [&](int rank) {
    TCPStore store("127.0.0.1", server.port(), {.timeout = 10s});
    return rendezvous_body(store, rank, 3);
  });
  server.wait({"rank_0", "rank_1", "rank_2"}, 10s);
  EXPECT_EQ(server.get("arrived"), "3");
  server.set("go", "");
  const auto exits = children.wait(20s);
  EXPECT_EQ(test::failures(exits), "");
}

TEST(TCPStore, RankZeroHostsTheServerForTheOthers) {
  // The port is chosen by rank 0 and handed to the others through a FileStore.
  const std::string path = temp_path("port");
  std::filesystem::remove(path);
  const auto exits = test::run_ranks(2, [&](int rank) {
    FileStore ports(path, 10s);
    std::unique_ptr<TCPStore> store;
    if (rank == 0) {
      store = std::make_unique<TCPStore>("127.0.0.1", 0,
                                         TCPStoreOptions{.is_master = true, .timeout = 10s});
      ports.set("port", std::to_string(store->port()));
    } else {
      store = std::make_unique<TCPStore>(
          "127.0.0.1", static_cast<uint16_t>(std::stoi(ports.get("port"))),
          TCPStoreOptions{.timeout = 10s});
    }
    if (rank == 1) store->set("go", "");
    const int code = rendezvous_body(*store, rank, 2);
    store->add("done", 1);
    if (rank == 0) store->wait({"done"}), ports.wait({"bye"}, 10s);
    else ports.set("bye", "");
    return code;
  });
  std::filesystem::remove(path);
  EXPECT_EQ(test::failures(exits), "");
}

TEST(FileStore, ProcessesRendezvousThroughAFile) {
  const std::string path = temp_path("rendezvous");
  std::filesystem::remove(path);
  const auto exits = test::run_ranks(3, [&](int rank) {
    FileStore store(path, 10s);
    if (rank == 2) store.set("go", "");
    const int code = rendezvous_body(store, rank, 3);
    return code != 0 ? code : store.add("arrived", 0) == 3 ? 0 : 3;
  });
  EXPECT_EQ(test::failures(exits), "");
  FileStore after(path, 1s);
  EXPECT_EQ(after.add("arrived", 0), 3);
  std::filesystem::remove(path);
}

TEST(TCPStore, ConnectingToNoServerTimesOutNamingTheAddress) {
  // A port that was just free: bind one, close it, connect to it.
  uint16_t port;
  {
    TCPStore probe("127.0.0.1", 0, {.is_master = true, .timeout = 1s});
    port = probe.port();
  }
  const std::string message =
      message_of([&] { TCPStore("127.0.0.1", port, {.timeout = 200ms}); });
  EXPECT_NE(message.find("[TCPStore] could not connect to the store at 127.0.0.1:" +
                         std::to_string(port) + " within 200 ms"),
            std::string::npos)
      << message;
}

TEST(TCPStore, AClientSeesTheServerGo) {
  auto server = std::make_unique<TCPStore>("127.0.0.1", 0,
                                           TCPStoreOptions{.is_master = true, .timeout = 5s});
  TCPStore client("127.0.0.1", server->port(), {.timeout = 5s});
  client.set("k", "v");
  std::thread stopper([&] {
    std::this_thread::sleep_for(30ms);
    server.reset();
  });
  const std::string message = message_of([&] { client.wait({"never"}); });
  stopper.join();
  EXPECT_NE(message.find("[TCPStore.wait] lost the connection to the store (store at 127.0.0.1:"),
            std::string::npos)
      << message;
}

TEST(TCPStore, ABusyPortIsAClearError) {
  TCPStore first("127.0.0.1", 0, {.is_master = true, .timeout = 1s});
  const std::string message = message_of(
      [&] { TCPStore("127.0.0.1", first.port(), {.is_master = true, .timeout = 1s}); });
  EXPECT_NE(message.find("[TCPStore] cannot listen on 127.0.0.1:" + std::to_string(first.port())),
            std::string::npos)
      << message;
}

// Gloo's connectFullMesh publishes and reads its addresses through our store (GlooStore).
TEST(GlooStore, GlooRendezvousRunsOnOurStore) {
  auto store = std::make_shared<HashStore>(10s);
  std::vector<float> results(2);
  auto rank_body = [&](int rank) {
    GlooStore gloo_store(std::make_shared<PrefixStore>("gloo", store));
    gloo::transport::tcp::attr attr;
    attr.hostname = "127.0.0.1";
    auto device = gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, 2);
    context->setTimeout(10s);
    context->connectFullMesh(gloo_store, device);
    float value = static_cast<float>(rank + 1);
    gloo::AllreduceOptions options(context);
    options.setOutput(&value, 1);
    options.setReduceFunction(
        static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
    gloo::allreduce(options);
    results[static_cast<size_t>(rank)] = value;
  };
  std::thread other(rank_body, 1);
  rank_body(0);
  other.join();
  EXPECT_EQ(results[0], 3.0f);
  EXPECT_EQ(results[1], 3.0f);
  EXPECT_TRUE(store->check({"gloo/0", "gloo/1"}));
}

}  // namespace
}  // namespace ember::dist
