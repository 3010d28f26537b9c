// Distributed checkpoints shared with PyTorch 1.13's torch.distributed._shard.checkpoint, both
// ways: checkpoints 1.13 saved on 2 ranks (tests/golden/dcp, from gen_dcp.py; a file per item
// and a file per rank) load in ember on 1 and 3 ranks, and a checkpoint ember saves on 2 ranks
// loads in 1.13 in one process and on 2 ranks resharded (when /usr/bin/python3 has torch).
#include <ember/distributed/checkpoint.h>
#include <ember/ember.h>
#include <gtest/gtest.h>

#include <cstdio>

#include "distributed/checkpoint_test_support.h"
#include "golden_dir.h"
#include "serialize/checkpoint_helpers.h"

namespace ember {
namespace {

using test::json;

// What gen_dcp.py saves as "w".
Tensor full_w() { return arange(0, 24).to(kFloat32).view({8, 3}); }

class Torch113Checkpoint : public ::testing::TestWithParam<const char*> {};

TEST_P(Torch113Checkpoint, LoadsInOneProcessWithEveryValue) {
  const std::string dir = test::golden_path(std::string("dcp/") + GetParam());
  Value state = Dict{{"w", zeros({8, 3})}, {"b", zeros({3})}, {"step", Value()}, {"cfg", Value()}};
  dcp::load(state, dir);
  EXPECT_EQ(test::values(state["w"].to_tensor()), test::values(full_w()));
  EXPECT_EQ(test::values(state["b"].to_tensor()), (std::vector<double>{1.5, 2.5, 3.5}));
  EXPECT_EQ(state["step"].to_int(), 7);
  EXPECT_EQ(state["cfg"]["lr"].to_double(), 0.5);
}

TEST_P(Torch113Checkpoint, LoadsOnThreeRanksAcrossTheSavedChunks) {
  const std::string dir = test::golden_path(std::string("dcp/") + GetParam());
  // 1.13 saved rows 0-3 and 4-7; three ranks want rows 0-2, 3-5 and 6-7.
  const auto exits = test::on_ranks(3, [&](int rank) {
    dcp::State s;
    s.sharded.push_back({"w", dcp::shard_dim0(zeros({8, 3}), rank, 3)});
    s.tree = Dict{{"b", zeros({3})}};
    dcp::load(s, dir);
    test::require_equal(s.sharded[0].second.local, dcp::shard_dim0(full_w(), rank, 3).local, "w");
    test::require_close(s.tree["b"].to_tensor(), {1.5, 2.5, 3.5}, "b");
  });
  EXPECT_EQ(test::failures(exits), "");
}

INSTANTIATE_TEST_SUITE_P(Layouts, Torch113Checkpoint,
                         ::testing::Values("torch113_files", "torch113_per_rank"));

TEST(DistributedCheckpointInterop, PyTorch113LoadsWhatEmberSavedOnTwoRanks) {
  if (!test::have_torch())
    GTEST_SKIP() << "python3-torch is not installed (apt install python3-torch)";
  test::ScratchDir tmp;
  const std::string dir = tmp / "ember";
  const auto exits = test::on_ranks(2, [&](int rank) {
    dcp::State s;
    s.sharded.push_back({"w", dcp::shard_dim0(full_w(), rank, 2)});
    s.tree = Dict{{"b", tensor({1.5, 2.5, 3.5})}, {"step", 7}, {"lrs", List{0.5, 0.25}}};
    dcp::save(s, dir);
  });
  ASSERT_EQ(test::failures(exits), "");

  const std::string cmd =
      "/usr/bin/python3 " + test::golden_path("gen_dcp.py") + " --load '" + dir + "' 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_TRUE(p);
  std::string out;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof(buf), p)) out.append(buf, n);
  ASSERT_EQ(::pclose(p), 0) << out;
  const json got = json::parse(out);

  // One process: the two saved chunks make the whole tensor.
  EXPECT_EQ(got["one"]["w"].get<std::vector<double>>(), test::values(full_w().flatten()));
  EXPECT_EQ(got["one"]["b"].get<std::vector<double>>(), (std::vector<double>{1.5, 2.5, 3.5}));
  EXPECT_EQ(got["one"]["step"], 7);
  EXPECT_EQ(got["one"]["lrs"], json::parse("[0.5, 0.25]"));
  // Two ranks, chunked on dim 1 (columns 0-1 and 2): each reads a part of both saved chunks.
  ASSERT_EQ(got["two"].size(), 2u);
  for (const json& r : got["two"]) {
    const auto offsets = r["offsets"].get<std::vector<int64_t>>();
    const auto sizes = r["sizes"].get<std::vector<int64_t>>();
    const Tensor want = full_w().narrow(1, offsets[1], sizes[1]);
    EXPECT_EQ(r["values"].get<std::vector<double>>(), test::values(want.flatten()))
        << "rank " << r["rank"];
    EXPECT_EQ(r["step"], 7);
  }
}

}  // namespace
}  // namespace ember
