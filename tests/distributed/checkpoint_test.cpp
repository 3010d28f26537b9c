// Distributed checkpoints on real processes over loopback: save on 4 ranks, load on 2, on 1 and
// into an unsharded model (model and optimizer state, replicated tensors and plain values); a
// rank that dies mid-save leaves the previous checkpoint loadable and the new one refused; shape
// mismatches and hostile metadata are refused by message.
#include <ember/distributed/checkpoint.h>
#include <ember/ember.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "distributed/checkpoint_test_support.h"
#include "serialize/checkpoint_helpers.h"

namespace ember {
namespace {

using namespace std::chrono_literals;
using test::on_ranks;
using test::require_equal;
namespace fs = std::filesystem;

struct Net : nn::Module {
  nn::Linear fc1, fc2;
  Net()
      : fc1(register_module("fc1", nn::Linear(6, 10))),
        fc2(register_module("fc2", nn::Linear(10, 3))) {}
  Tensor forward(const Tensor& x) { return fc2(relu(fc1(x))); }
};

// The model and optimizer every test saves: deterministic, the same in every process.
struct Trained {
  int seeded = (manual_seed(0), 0);  // first: the members below draw from the seeded generator
  std::shared_ptr<Net> net = std::make_shared<Net>();
  optim::AdamW opt{net->parameters(), {.lr = 0.01}};
  Tensor input = randn({4, 6});
  Trained() {
    for (int step = 0; step < 2; ++step) {
      opt.zero_grad();
      net->forward(input).pow(2).mean().backward();
      opt.step();
    }
  }
};

// Every model tensor and every optimizer moment sharded along dim 0 over `world` ranks; the
// optimizer's steps and param_groups, an epoch and a replicated tensor in the tree.
dcp::State sharded_state(const Trained& t, int rank, int world, bool zero) {
  auto value = [&](const Tensor& x) { return zero ? zeros_like(x) : x; };
  dcp::State s;
  for (const auto& [name, p] : t.net->named_parameters())
    s.sharded.push_back({"model." + name, dcp::shard_dim0(value(p.detach()), rank, world)});
  const Value opt = t.opt.state_dict();
  Dict tree_state;
  for (auto& [id, per_param] : opt["state"].to_dict()) {
    Dict kept;
    for (auto& [key, v] : per_param.to_dict()) {
      const std::string fqn =
          "optimizer.state." + std::to_string(id.to_int()) + "." + key.to_string();
      if (v.is_tensor() && v.to_tensor().dim() >= 1)
        s.sharded.push_back({fqn, dcp::shard_dim0(value(v.to_tensor()), rank, world)});
      else
        kept.insert(key, v.is_tensor() ? Value(value(v.to_tensor())) : v);
    }
    tree_state.insert(id, kept);
  }
  s.tree = Dict{{"optimizer", Dict{{"state", tree_state},
                                   {"param_groups", zero ? Value(List{}) : opt["param_groups"]}}},
                {"epoch", zero ? 0 : 5},
                {"replicated", value(arange(0, 12).to(kFloat32).view({3, 4}))}};
  return s;
}

TEST(DistributedCheckpoint, SavedOnFourRanksLoadsOnTwoOnOneAndIntoAnUnshardedModel) {
  test::ScratchDir tmp;
  const std::string dir = tmp / "step_10";
  auto exits = on_ranks(4, [&](int rank) {
    Trained t;
    dcp::save(sharded_state(t, rank, 4, false), dir);
  });
  ASSERT_EQ(test::failures(exits), "");
  EXPECT_TRUE(fs::exists(dir + "/.metadata"));
  for (int r = 0; r < 4; ++r)
    EXPECT_TRUE(fs::exists(dir + "/__" + std::to_string(r) + "_0.distcp")) << r;

  // 2 ranks, sharded: each new shard reads two old chunks.
  exits = on_ranks(2, [&](int rank) {
    const Trained want;
    dcp::State s = sharded_state(want, rank, 2, true);
    dcp::load(s, dir);
    const dcp::State expected = sharded_state(want, rank, 2, false);
    for (size_t i = 0; i < s.sharded.size(); ++i)
      require_equal(s.sharded[i].second.local, expected.sharded[i].second.local,
                    s.sharded[i].first);
    test::require(s.tree["epoch"].to_int() == 5, "epoch");
    require_equal(s.tree["replicated"].to_tensor(), expected.tree["replicated"].to_tensor(),
                  "replicated");
    require_equal(s.tree["optimizer"]["state"][0]["step"].to_tensor(),
                  expected.tree["optimizer"]["state"][0]["step"].to_tensor(), "step");
  });
  ASSERT_EQ(test::failures(exits), "");

  // 1 rank, into a fresh unsharded model and optimizer (whose state is still empty): the
  // loaded model computes exactly what the saved one did, and the next step agrees too.
  exits = test::run_ranks(1, [&](int) {
    Trained want;
    manual_seed(123);
    auto net = std::make_shared<Net>();
    optim::AdamW opt(net->parameters(), {.lr = 0.01});
    Value state = Dict{{"model", net->state_dict()}, {"optimizer", opt.state_dict()}};
    dcp::load(state, dir);
    net->load_state_dict(state["model"].to_state_dict());
    opt.load_state_dict(state["optimizer"]);
    require_equal(net->forward(want.input), want.net->forward(want.input), "outputs");
    for (auto* t : {&want.opt, &opt}) {
      t->zero_grad();
    }
    want.net->forward(want.input).pow(2).mean().backward();
    want.opt.step();
    net->forward(want.input).pow(2).mean().backward();
    opt.step();
    require_equal(net->fc1->weight, want.net->fc1->weight, "fc1.weight after one more step");
    return 0;
  });
  ASSERT_EQ(test::failures(exits), "");
}

TEST(DistributedCheckpoint, ARankThatDiesMidSaveLeavesThePreviousCheckpointAndTheNewOneIsRefused) {
  test::ScratchDir tmp;
  const std::string good = tmp / "step_1", partial = tmp / "step_2";
  auto exits = on_ranks(
      2,
      [&](int rank) {
        Trained t;
        dcp::save(sharded_state(t, rank, 2, false), good);
        if (rank == 1) ::kill(::getpid(), SIGKILL);  // dies before its part of the next save
        try {
          dcp::save(sharded_state(t, rank, 2, false), partial);
          test::require(false, "the save without rank 1 returned");
        } catch (const Error& e) {
          test::require(std::string(e.what()).find("rank 0") != std::string::npos, e.what());
        }
      },
      3s);
  ASSERT_EQ(exits.size(), 2u);
  EXPECT_TRUE(exits[0].ok()) << exits[0].describe();
  EXPECT_EQ(exits[1].signal, SIGKILL);
  EXPECT_FALSE(fs::exists(partial + "/.metadata"));

  try {
    Value v = Dict{{"epoch", 0}};
    dcp::load(v, partial);
    FAIL() << "an incomplete checkpoint loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("incomplete"), std::string::npos) << e.what();
  }
  const Trained want;
  dcp::State s = sharded_state(want, 0, 1, true);
  dcp::load(s, good);
  EXPECT_EQ(s.tree["epoch"].to_int(), 5);
  EXPECT_EQ(test::values(s.sharded[0].second.local), test::values(want.net->fc1->weight));
}

TEST(DistributedCheckpoint, AShapeMismatchIsRefusedNamingTheKeyAndBothShapes) {
  test::ScratchDir tmp;
  const std::string dir = tmp / "ck";
  dcp::save(Value(Dict{{"w", zeros({8, 3})}, {"b", ones({3})}}), dir);
  Value wrong = Dict{{"w", zeros({6, 3})}};
  try {
    dcp::load(wrong, dir);
    FAIL() << "loaded an 8x3 checkpoint into 6x3";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("'w'"), std::string::npos) << m;
    EXPECT_NE(m.find("[8, 3]"), std::string::npos) << m;
    EXPECT_NE(m.find("[6, 3]"), std::string::npos) << m;
  }
  Value missing = Dict{{"c", zeros({3})}};
  EXPECT_THROW(dcp::load(missing, dir), Error);
  Value right = Dict{{"b", zeros({3})}};
  dcp::load(right, dir);
  EXPECT_EQ(test::values(right["b"].to_tensor()), (std::vector<double>{1, 1, 1}));
}

// API.md's `dcp::load(state, dir)` with the Dict a program builds for save(), and with a plain
// StateDict: filled in place, the caller's containers intact after a refused load.
TEST(DistributedCheckpoint, LoadTakesTheDictAndTheStateDictAProgramBuilds) {
  test::ScratchDir tmp;
  const std::string dir = tmp / "ck";
  StateDict sd;
  sd.insert("w", arange(6, {.dtype = kFloat32}).reshape({2, 3}));
  Dict saved{{"model", sd}, {"step", 7}};
  dcp::save(saved, dir);

  StateDict fresh;
  fresh.insert("w", zeros({2, 3}));
  const Tensor w = fresh["w"];
  Dict state{{"model", fresh}, {"step", 0}};
  dcp::load(state, dir);
  EXPECT_EQ(state.at("step").to_int(), 7);
  EXPECT_EQ(test::values(w), (std::vector<double>{0, 1, 2, 3, 4, 5}));  // in place
  Dict wrong{{"model", Dict{{"w", zeros({3, 3})}}}};
  EXPECT_THROW(dcp::load(wrong, dir), Error);
  EXPECT_EQ(wrong.size(), 1u);  // still the caller's dict
  EXPECT_TRUE(wrong.at("model").to_dict().contains("w"));

  test::ScratchDir tmp2;
  const std::string flat = tmp2 / "flat";
  dcp::save(Value(sd), flat);
  StateDict plain;
  plain.insert("w", zeros({2, 3}));
  dcp::load(plain, flat);
  EXPECT_EQ(test::values(plain["w"]), (std::vector<double>{0, 1, 2, 3, 4, 5}));
}

TEST(DistributedCheckpoint, HostileMetadataIsRefusedWithoutRunningAnything) {
  using namespace std::string_literals;  // the pickles hold NUL bytes
  test::ScratchDir tmp;
  const std::string dir = tmp / "evil";
  dcp::save(Value(Dict{{"w", ones({2})}}), dir);
  const std::string deep = std::string(40, ']') + std::string(39, 'a');  // lists in lists
  const std::vector<std::pair<std::string, std::string>> cases = {
      // os.system("touch"), as a hostile pickle would call it.
      {"cos\nsystem\nX\x05\x00\x00\x00touch\x85R"s, "'os.system' is not allowed"},
      // An allowed callable on arguments it never has in a checkpoint.
      {"cbuiltins\ngetattr\ncbuiltins\ngetattr\nX\x01\x00\x00\x00x\x86R"s,
       "getattr is allowed only on MEM_FORMAT_ENCODING"},
      // NEWOBJ of a class that is not a record.
      {"ctorch\nSize\n)\x81", "'torch.Size' is not a record class"},
      {deep, "nested deeper than"},
  };
  for (const auto& [body, message] : cases) {
    const std::string pickle = "\x80\x02" + body + ".";
    std::ofstream(dir + "/.metadata", std::ios::binary | std::ios::trunc) << pickle;
    Value v = Dict{{"w", zeros({2})}};
    try {
      dcp::load(v, dir);
      ADD_FAILURE() << "hostile metadata loaded: " << message;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
}

TEST(DistributedCheckpoint, ADtypeMismatchAndDamagedMetadataAreRefused) {
  test::ScratchDir tmp;
  const std::string dir = tmp / "ck";
  dcp::save(Value(Dict{{"w", ones({2, 2})}}), dir);
  Value half = Dict{{"w", zeros({2, 2}, {.dtype = kFloat16})}};
  try {
    dcp::load(half, dir);
    FAIL() << "loaded float32 into float16";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("dtype float32 but the target has dtype float16"),
              std::string::npos)
        << e.what();
  }

  // A storage path that leaves the directory, and a truncated file.
  const std::string metadata = dir + "/.metadata";
  std::ifstream in(metadata, std::ios::binary);
  const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto load_with = [&](const std::string& bytes) {
    std::ofstream(metadata, std::ios::binary | std::ios::trunc) << bytes;
    Value v = Dict{{"w", zeros({2, 2})}};
    try {
      dcp::load(v, dir);
      return std::string("loaded");
    } catch (const Error& e) {
      return std::string(e.what());
    }
  };
  std::string escaped = good;
  const size_t at = escaped.find("__0_0.distcp");
  ASSERT_NE(at, std::string::npos);
  escaped.replace(at, 12, "../etc/x.bin");  // same length: the pickle stays well formed
  EXPECT_NE(load_with(escaped).find("is not a file name inside the checkpoint directory"),
            std::string::npos);
  EXPECT_NE(load_with(good.substr(0, good.size() / 2)).find("truncated"), std::string::npos);
  EXPECT_EQ(load_with(good), "loaded");
}

}  // namespace
}  // namespace ember
