// ProcessGroup over Gloo on real processes: every collective and dtype on 2 and 3 ranks against
// the same computation in one process, async Work, subgroups, the init methods, the launcher's
// store protocol (EMBER_RUN_HOSTS_STORE, TORCHELASTIC_RESTART_COUNT), and the errors of calls
// made before init_process_group.
#include "ember/distributed/process_group.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "distributed/device_communicator.h"
#include "distributed/dist_test_support.h"
#include "distributed/multiprocess.h"
#include "test_support.h"

namespace ember::dist {
namespace {

using namespace std::chrono_literals;
using test::on_ranks;
using test::require;
using test::require_close;

// Rank r's input: (r + 1) + i % 3, small integers that every dtype holds exactly.
Tensor input_of(int rank, int64_t n, Dtype dtype) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = (rank + 1) + i % 3;
  return from_vector(v).to(dtype);
}

// The reduction over `world` ranks' inputs, computed here, rounded to the dtype.
std::vector<double> expected_reduction(int world, int64_t n, Dtype dtype, ReduceOp op) {
  std::vector<double> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    double acc = op == ReduceOp::PRODUCT ? 1 : op == ReduceOp::MIN ? 1e9 : op == ReduceOp::MAX ? -1e9 : 0;
    for (int r = 0; r < world; ++r) {
      const double x = (r + 1) + i % 3;
      if (op == ReduceOp::SUM || op == ReduceOp::AVG) acc += x;
      if (op == ReduceOp::PRODUCT) acc *= x;
      if (op == ReduceOp::MIN) acc = std::min(acc, x);
      if (op == ReduceOp::MAX) acc = std::max(acc, x);
    }
    out[static_cast<size_t>(i)] = op == ReduceOp::AVG ? acc / world : acc;
  }
  return test::values(from_vector(out).to(dtype));
}

const std::vector<Dtype> kAllDtypes = {kFloat32, kFloat64, kFloat16, kBFloat16, kUInt8,
                                       kInt8,    kInt16,   kInt32,   kInt64};
const std::vector<ReduceOp> kAllOps = {ReduceOp::SUM, ReduceOp::AVG, ReduceOp::PRODUCT,
                                       ReduceOp::MIN, ReduceOp::MAX};

std::string label(Dtype dtype, ReduceOp op) {
  return std::string(dtype_name(dtype)) + " " + reduce_op_name(op);
}


class Collectives : public ::testing::TestWithParam<int> {};

void all_reduce_every_op_and_dtype(int world, int rank) {
  for (Dtype dtype : kAllDtypes)
      for (ReduceOp op : kAllOps) {
        if (op == ReduceOp::AVG && !is_floating_point(dtype)) continue;
        Tensor t = input_of(rank, 7, dtype).reshape({7});
        all_reduce(t, {.op = op});
        require_close(t, expected_reduction(world, 7, dtype, op), label(dtype, op));
      }
  // A large one, split into Gloo's ring chunks (or the shared-memory chunks).
  Tensor big = input_of(rank, 100003, kFloat32);
  all_reduce(big);
  require_close(big, expected_reduction(world, 100003, kFloat32, ReduceOp::SUM), "big");
}

TEST_P(Collectives, AllReduceEveryOpAndDtype) {  // through Gloo over TCP
  const int world = GetParam();
  const auto exits = on_ranks(world, [world](int rank) { all_reduce_every_op_and_dtype(world, rank); },
                              {{"EMBER_SHM", "0"}});
  EXPECT_EQ(test::failures(exits), "");
}

TEST_P(Collectives, SharedMemoryAllReduceEveryOpAndDtype) {
  const int world = GetParam();
  const auto exits = on_ranks(world, [world](int rank) {
    all_reduce_every_op_and_dtype(world, rank);
    Tensor whole = input_of(rank, world * 3, kFloat32), mine = zeros({3});
    reduce_scatter_tensor(mine, whole);  // also through shared memory
    const auto sum = expected_reduction(world, world * 3, kFloat32, ReduceOp::SUM);
    require_close(mine, {sum.begin() + rank * 3, sum.begin() + rank * 3 + 3}, "reduce_scatter");
    // all_gather, reduce_scatter and broadcast too, between all-reduces: 40000 elements a rank
    // go through several chunks.
    for (Dtype dtype : {kFloat32, kBFloat16}) {
      const int64_t n = 40000;
      Tensor part = zeros({n}, {.dtype = dtype});
      const Tensor parts = input_of(rank, world * n, dtype);
      reduce_scatter_tensor(part, parts, {.op = ReduceOp::AVG});
      const auto avg = expected_reduction(world, world * n, dtype, ReduceOp::AVG);
      require_close(part, {avg.begin() + rank * n, avg.begin() + (rank + 1) * n},
                    std::string("reduce_scatter_tensor AVG ") + dtype_name(dtype));
      require_close(parts, test::values(input_of(rank, world * n, dtype)),
                    "reduce_scatter_tensor leaves its input alone");
      Tensor gathered = zeros({world * n}, {.dtype = dtype});
      all_gather_into_tensor(gathered, input_of(rank, n, dtype));
      for (int r = 0; r < world; ++r)
        require_close(gathered.narrow(0, r * n, n).contiguous(), test::values(input_of(r, n, dtype)),
                      std::string("all_gather_into_tensor ") + dtype_name(dtype));
      Tensor t = full({7}, double(rank + 1));
      all_reduce(t);
      require_close(t, std::vector<double>(7, world * (world + 1) / 2.0), "all_reduce after it");
      // broadcast from the last rank, through several chunks, then an empty one.
      Tensor b = input_of(rank, n, dtype);
      broadcast(b, world - 1);
      require_close(b, test::values(input_of(world - 1, n, dtype)),
                    std::string("broadcast ") + dtype_name(dtype));
      Tensor nothing = zeros({0}, {.dtype = dtype});
      broadcast(nothing, 0);
    }
  }, {{"EMBER_SHM", "1"}, {"EMBER_SHM_CHUNK_BYTES", "65536"}});  // several chunks for the big ones
  EXPECT_EQ(test::failures(exits), "");
}

// A segment no /dev/shm can hold (3 TiB): tmpfs refuses the reservation at once.
constexpr const char* kUnreservableChunk = "1099511627776";

TEST(SharedMemory, WhenItCannotBeReservedEveryRankFallsBackToTcp) {
  const auto exits = on_ranks(2, [](int rank) {
    Tensor t = full({5}, static_cast<double>(rank + 1));
    all_reduce(t);
    require_close(t, {3, 3, 3, 3, 3}, "all_reduce after the fallback");
  }, {{"EMBER_SHM_CHUNK_BYTES", kUnreservableChunk}});  // EMBER_SHM unset: shared memory if it can
  EXPECT_EQ(test::failures(exits), "");
}

TEST(SharedMemory, RequiredButUnavailableIsAnErrorOnEveryRankSayingWhy) {
  TCPStore store("127.0.0.1", 0, {.is_master = true, .timeout = 20s});
  const auto exits = test::run_ranks(2, [&](int rank) {
    ::setenv("EMBER_SHM", "1", 1);
    ::setenv("EMBER_SHM_CHUNK_BYTES", kUnreservableChunk, 1);
    const std::string message = test::message_of([&] { test::join(rank, 2, store.port()); });
    require(message.find("EMBER_SHM=1, but no shared memory: rank 0: cannot reserve") !=
                std::string::npos, "the refusal names rank 0 and the reservation: " + message);
    return 0;
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(SharedMemory, AnUnknownSettingIsAnError) {
  TCPStore store("127.0.0.1", 0, {.is_master = true, .timeout = 20s});
  ::setenv("EMBER_SHM", "yes", 1);
  const std::string message = test::message_of([&] { test::join(0, 1, store.port()); });
  ::unsetenv("EMBER_SHM");
  EXPECT_NE(message.find("EMBER_SHM=yes: expected 0 (TCP only), 1 (shared memory required) or "
                         "unset"), std::string::npos) << message;
}

void rooted_and_gathering_collectives(int world, int rank) {
  for (Dtype dtype : {kFloat32, kBFloat16, kInt64}) {
    const std::string d = dtype_name(dtype);
    Tensor b = input_of(rank, 5, dtype);
    broadcast(b, world - 1);
    require_close(b, test::values(input_of(world - 1, 5, dtype)), "broadcast " + d);

    Tensor r = input_of(rank, 5, dtype);
    reduce(r, 1, {.op = ReduceOp::MAX});
    require_close(r,
                  rank == 1 ? expected_reduction(world, 5, dtype, ReduceOp::MAX)
                            : test::values(input_of(rank, 5, dtype)),
                  "reduce " + d);

    std::vector<Tensor> gathered;
    for (int i = 0; i < world; ++i) gathered.push_back(zeros({2, 2}, {.dtype = dtype}));
    all_gather(gathered, input_of(rank, 4, dtype).reshape({2, 2}));
    for (int i = 0; i < world; ++i)
      require_close(gathered[static_cast<size_t>(i)], test::values(input_of(i, 4, dtype)),
                    "all_gather " + d);
    Tensor flat = zeros({world * 4}, {.dtype = dtype});
    all_gather_into_tensor(flat, input_of(rank, 4, dtype));
    for (int i = 0; i < world; ++i)
      require_close(flat.narrow(0, i * 4, 4).contiguous(), test::values(input_of(i, 4, dtype)),
                    "all_gather_into_tensor " + d);

    // reduce_scatter: rank r keeps chunk r of the sum of every rank's (world * 3) input.
    Tensor whole = input_of(rank, world * 3, dtype);
    Tensor mine = zeros({3}, {.dtype = dtype});
    reduce_scatter_tensor(mine, whole);
    const auto sum = expected_reduction(world, world * 3, dtype, ReduceOp::SUM);
    require_close(mine, {sum.begin() + rank * 3, sum.begin() + rank * 3 + 3},
                  "reduce_scatter_tensor " + d);
    Tensor mine2 = zeros({3}, {.dtype = dtype});
    reduce_scatter(mine2, whole.split(3));
    require_close(mine2, test::values(mine), "reduce_scatter " + d);

    std::vector<Tensor> to_root;
    for (int i = 0; i < world; ++i) to_root.push_back(zeros({4}, {.dtype = dtype}));
    gather(input_of(rank, 4, dtype), to_root, 0);
    if (rank == 0)
      for (int i = 0; i < world; ++i)
        require_close(to_root[static_cast<size_t>(i)], test::values(input_of(i, 4, dtype)),
                      "gather " + d);

    std::vector<Tensor> pieces;
    for (int i = 0; i < world; ++i) pieces.push_back(full({3}, 10 * i + rank, {.dtype = dtype}));
    Tensor piece = zeros({3}, {.dtype = dtype});
    scatter(piece, pieces, world - 1);
    require_close(piece, std::vector<double>(3, 10 * rank + world - 1), "scatter " + d);
  }
}

TEST_P(Collectives, RootedAndGatheringCollectives) {  // broadcast through shared memory
  const int world = GetParam();
  const auto exits =
      on_ranks(world, [world](int rank) { rooted_and_gathering_collectives(world, rank); });
  EXPECT_EQ(test::failures(exits), "");
}

TEST_P(Collectives, RootedAndGatheringCollectivesOverTcp) {
  const int world = GetParam();
  const auto exits =
      on_ranks(world, [world](int rank) { rooted_and_gathering_collectives(world, rank); },
               {{"EMBER_SHM", "0"}});
  EXPECT_EQ(test::failures(exits), "");
}

TEST_P(Collectives, AllToAllBarrierAndPointToPoint) {
  const int world = GetParam();
  const auto exits = on_ranks(world, [world](int rank) {
    // all_to_all with a different size per pair: rank r sends i + 1 copies of 100 r + i to i.
    std::vector<Tensor> inputs, outputs;
    for (int i = 0; i < world; ++i) {
      inputs.push_back(full({i + 1}, 100 * rank + i, {.dtype = kInt32}));
      outputs.push_back(zeros({rank + 1}, {.dtype = kInt32}));
    }
    all_to_all(outputs, inputs);
    for (int i = 0; i < world; ++i)
      require_close(outputs[static_cast<size_t>(i)],
                    std::vector<double>(static_cast<size_t>(rank + 1), 100 * i + rank),
                    "all_to_all from rank " + std::to_string(i));
    Tensor single_in = arange(world * 2, {.dtype = kFloat32}) + 10.0f * static_cast<float>(rank);
    Tensor single_out = zeros({world * 2});
    all_to_all_single(single_out, single_in);
    std::vector<double> expected;
    for (int i = 0; i < world; ++i)
      for (int j = 0; j < 2; ++j) expected.push_back(10 * i + rank * 2 + j);
    require_close(single_out, expected, "all_to_all_single");

    barrier();
    monitored_barrier({}, 5s);

    // A ring of sends: blocking on even ranks, isend/irecv on odd ones.
    const int next = (rank + 1) % world, previous = (rank + world - 1) % world;
    Tensor out = full({6}, rank, {.dtype = kFloat64});
    Tensor in = zeros({6}, {.dtype = kFloat64});
    Work s = isend(out, next, {}, 7);
    if (rank % 2 == 0) {
      recv(in, previous, {}, 7);
    } else {
      Work r = irecv(in, previous, {}, 7);
      r.wait();
      require(r.is_completed() && r.is_success(), "irecv completed");
    }
    s.wait();
    require_close(in, std::vector<double>(6, previous), "ring of sends");
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST_P(Collectives, AsyncWorkCompletesInOrder) {
  const int world = GetParam();
  const auto exits = on_ranks(world, [world](int rank) {
    std::vector<Tensor> tensors;
    std::vector<Work> works;
    for (int k = 0; k < 8; ++k) {
      tensors.push_back(full({1000}, rank + k, {.dtype = kFloat32}));
      works.push_back(all_reduce(tensors.back(), {.async_op = true}));
    }
    Tensor g = zeros({world});
    Work gathered = all_gather_into_tensor(g, full({1}, rank, {.dtype = kFloat32}), {.async_op = true});
    works.back().wait();  // the group runs its calls in order: the earlier ones are done too
    for (int k = 0; k < 8; ++k) {
      require(works[static_cast<size_t>(k)].is_completed(), "earlier work completed");
      const double sum = world * (world - 1) / 2.0 + world * k;
      require_close(tensors[static_cast<size_t>(k)], std::vector<double>(1000, sum), "async");
    }
    gathered.wait();
    require(gathered.is_success(), "gather succeeded");
    std::vector<double> ranks;
    for (int i = 0; i < world; ++i) ranks.push_back(i);
    require_close(g, ranks, "async all_gather");
  });
  EXPECT_EQ(test::failures(exits), "");
}

INSTANTIATE_TEST_SUITE_P(Ranks, Collectives, ::testing::Values(2, 3),
                         [](const auto& info) { return std::to_string(info.param) + "ranks"; });

TEST(ProcessGroup, SubgroupsRunTheirOwnCollectives) {
  const auto exits = on_ranks(3, [](int rank) {
    ProcessGroup outer = new_group({0, 2});
    ProcessGroup pair = new_group({2, 1});  // group rank 0 is global rank 2
    require(get_world_size() == 3 && get_rank() == rank, "default group");
    if (rank != 1) {
      require(outer.size() == 2 && outer.rank() == (rank == 0 ? 0 : 1), "outer group rank");
      Tensor t = full({3}, rank + 1);
      all_reduce(t, {.group = outer});
      require_close(t, std::vector<double>(3, 4), "outer all_reduce");
    } else {
      require(outer.rank() == -1 && !outer.is_member(), "rank 1 is not in the outer group");
      Tensor t = zeros({1});
      const std::string message = test::message_of([&] { all_reduce(t, {.group = outer}); });
      require(message.find("[all_reduce] this process is not a member of group 1 (ranks 0, 2)") !=
                  std::string::npos,
              message);
    }
    if (rank != 0) {
      Tensor t = full({2}, rank);
      broadcast(t, 0, {.group = pair});  // from group rank 0 = global rank 2
      require_close(t, {2, 2}, "pair broadcast");
    }
    Tensor all = full({1}, 1);
    all_reduce(all);
    require_close(all, {3}, "default group still works");
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(ProcessGroup, EnvInitWithRankZeroHostingTheStore) {
  uint16_t port;
  {
    TCPStore probe("127.0.0.1", 0, {.is_master = true, .timeout = 1s});
    port = probe.port();  // free a moment ago; rank 0 binds it again
  }
  const auto exits = test::run_ranks(2, [port](int rank) {
    ::unsetenv("EMBER_RUN_HOSTS_STORE");
    ::setenv("MASTER_ADDR", "127.0.0.1", 1);
    ::setenv("MASTER_PORT", std::to_string(port).c_str(), 1);
    ::setenv("RANK", std::to_string(rank).c_str(), 1);
    ::setenv("WORLD_SIZE", "2", 1);
    init_process_group({.backend = "gloo", .timeout = 10s});
    require(is_initialized() && get_rank() == rank && get_world_size() == 2, "env:// ranks");
    Tensor t = full({4}, rank + 1);
    all_reduce(t);
    require_close(t, std::vector<double>(4, 3), "env:// all_reduce");
    barrier();
    destroy_process_group();
    require(!is_initialized(), "destroyed");
    return 0;
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(ProcessGroup, FileInit) {
  const std::string path = "/tmp/ember-file-init-" + std::to_string(::getpid());
  std::filesystem::remove(path);
  const auto exits = test::run_ranks(2, [&](int rank) {
    init_process_group({.init_method = "file://" + path, .timeout = 10s, .world_size = 2,
                        .rank = rank});
    Tensor t = full({2}, rank + 1, {.dtype = kInt64});
    all_reduce(t, {.op = ReduceOp::PRODUCT});
    require_close(t, {2, 2}, "file:// all_reduce");
    barrier();
    destroy_process_group();
    return 0;
  });
  std::filesystem::remove(path);
  EXPECT_EQ(test::failures(exits), "");
}

TEST(ProcessGroup, RestartCountNamespacesTheRendezvous) {
  TCPStore store("127.0.0.1", 0, {.is_master = true, .timeout = 10s});
  for (const char* attempt : {"0", "1"}) {
    const auto exits = test::run_ranks(2, [&](int rank) {
      ::setenv("TORCHELASTIC_RESTART_COUNT", attempt, 1);
      test::join(rank, 2, store.port());
      Tensor t = full({1}, 1);
      all_reduce(t);
      require_close(t, {2}, "all_reduce");
      destroy_process_group();
      return 0;
    });
    EXPECT_EQ(test::failures(exits), "") << "attempt " << attempt;
    EXPECT_TRUE(store.check({std::string("attempt_") + attempt + "/default_pg/joined/1"}));
  }
}

// ── calls that are refused before anything moves ──────────────────────────────────────────

TEST(ProcessGroup, CollectiveWithoutInitSaysToCallIt) {
  ASSERT_FALSE(is_initialized());
  Tensor t = zeros({2});
  const std::string message = test::message_of([&] { all_reduce(t); });
  EXPECT_NE(message.find("[all_reduce] the default process group is not initialized; call "
                         "dist::init_process_group() first"),
            std::string::npos)
      << message;
  EXPECT_NE(test::message_of([] { get_rank(); }).find("[get_rank] the default process group"),
            std::string::npos);
  EXPECT_NE(test::message_of([] { barrier(); }).find("[barrier] the default process group"),
            std::string::npos);
}

TEST(ProcessGroup, NcclAndUnknownBackendsAreClearErrors) {
  // A CUDA build with NCCL registers "nccl" (tests/cuda/nccl_test.cpp runs it).
  if (!find_device_backend("nccl")) {
    const std::string nccl = test::message_of([] { init_process_group({.backend = "nccl"}); });
    EXPECT_NE(nccl.find("[init_process_group] backend 'nccl' needs ember built with CUDA "
                        "(-DEMBER_CUDA=ON) and NCCL"),
              std::string::npos)
        << nccl;
  }
  const std::string other = test::message_of([] { init_process_group({.backend = "mpi"}); });
  EXPECT_NE(other.find("unknown backend 'mpi'"), std::string::npos) << other;
  EXPECT_FALSE(is_initialized());
}

TEST(ProcessGroup, EnvInitNamesTheMissingVariable) {
  const auto exits = test::run_ranks(1, [](int) {
    ::unsetenv("RANK");
    ::setenv("WORLD_SIZE", "2", 1);
    std::string message = test::message_of([] { init_process_group(); });
    require(message.find("[init_process_group] RANK is not set") != std::string::npos, message);
    ::setenv("RANK", "0", 1);
    ::unsetenv("MASTER_ADDR");
    message = test::message_of([] { init_process_group(); });
    require(message.find("[init_process_group] MASTER_ADDR is not set") != std::string::npos,
            message);
    ::setenv("RANK", "5", 1);
    message = test::message_of([] { init_process_group(); });
    require(message.find("rank 5 is outside the world of 2 ranks") != std::string::npos, message);
    return 0;
  });
  EXPECT_EQ(test::failures(exits), "");
}

TEST(ProcessGroup, BadArgumentsNameTheOp) {
  const auto exits = on_ranks(2, [](int rank) {
    Tensor strided = zeros({4, 4}).t();
    std::string message = test::message_of([&] { all_reduce(strided); });
    require(message.find("[all_reduce] the tensor must be contiguous") != std::string::npos,
            message);
    Tensor ints = zeros({2}, {.dtype = kInt32});
    message = test::message_of([&] { all_reduce(ints, {.op = ReduceOp::AVG}); });
    require(message.find("[all_reduce] ReduceOp::AVG needs a floating-point tensor, got torch.int32") !=
                std::string::npos,
            message);
    Tensor t = zeros({2});
    message = test::message_of([&] { broadcast(t, 2); });
    require(message.find("[broadcast] src 2 is not a rank of the group (size 2)") !=
                std::string::npos,
            message);
    std::vector<Tensor> one{zeros({2})};
    message = test::message_of([&] { all_gather(one, t); });
    require(message.find("[all_gather] expects 2 outputs (one per rank), got 1") !=
                std::string::npos,
            message);
    message = test::message_of([&] { send(t, rank); });
    require(message.find("cannot send to itself") != std::string::npos, message);
    // Refused calls moved nothing: the group still works.
    all_reduce(t);
  });
  EXPECT_EQ(test::failures(exits), "");
}

}  // namespace
}  // namespace ember::dist
