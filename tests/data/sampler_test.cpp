// Samplers and random_split against PyTorch 1.13 (golden/data.json from golden/gen_data.py): the
// same seed gives the same order. Plus DistributedSampler's partition (disjoint, covering, padded
// to equal counts) and BatchSampler's drop_last.
#include <gtest/gtest.h>

#include <ember/creation.h>
#include <ember/data.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "test_support.h"

using namespace ember;
using namespace ember::data;
using json = nlohmann::json;
using Ints = std::vector<int64_t>;

namespace {

const json& golden() {
  static const json j = test::load_golden("data.json");
  return j;
}

Ints ints(const json& j) { return j.get<Ints>(); }

TEST(RandomSampler, SameOrderAsPyTorchAcrossPasses) {
  const json& g = golden()["random"];
  Generator gen(g["seed"].get<uint64_t>());
  RandomSampler s(g["n"].get<int64_t>(), {.generator = &gen});
  EXPECT_EQ(s.size(), 10);
  EXPECT_EQ(s.indices(), ints(g["epochs"][0]));
  EXPECT_EQ(s.indices(), ints(g["epochs"][1]));  // the stream continues: a new order
}

TEST(RandomSampler, ReplacementAndNumSamples) {
  const json& r = golden()["random_replacement"];
  Generator g1(r["seed"].get<uint64_t>());
  RandomSampler s1(10, {.replacement = true, .num_samples = 50, .generator = &g1});
  EXPECT_EQ(s1.size(), 50);
  EXPECT_EQ(s1.indices(), ints(r["order"]));

  const json& m = golden()["random_num_samples"];
  Generator g2(m["seed"].get<uint64_t>());
  RandomSampler s2(10, {.num_samples = 25, .generator = &g2});
  EXPECT_EQ(s2.indices(), ints(m["order"]));
}

TEST(RandomSampler, LargeDatasetAndGlobalGenerator) {
  const json& l = golden()["random_large"];
  Generator g(l["seed"].get<uint64_t>());
  Ints order = RandomSampler(l["n"].get<int64_t>(), {.generator = &g}).indices();
  order.resize(50);
  EXPECT_EQ(order, ints(l["head"]));

  // No generator: a seed drawn from the default generator seeds a private one.
  manual_seed(golden()["random_global"]["manual_seed"].get<uint64_t>());
  EXPECT_EQ(RandomSampler(10).indices(), ints(golden()["random_global"]["order"]));
}

TEST(RandomSampler, RejectsNonPositiveNumSamples) {
  EXPECT_ERROR(RandomSampler(0), "[RandomSampler] num_samples should be a positive");
}

TEST(SubsetRandomSampler, SameOrderAsPyTorch) {
  const json& s = golden()["subset_random"];
  Generator g(s["seed"].get<uint64_t>());
  SubsetRandomSampler sampler(ints(s["indices"]), &g);
  EXPECT_EQ(sampler.indices(), ints(s["order"]));
}

TEST(WeightedRandomSampler, SameDrawsAsTorchMultinomial) {
  const json& w = golden()["weighted"];
  const auto weights = w["weights"].get<std::vector<double>>();
  Generator g1(7), g2(7), g3(8);
  EXPECT_EQ(WeightedRandomSampler(weights, 20, true, &g1).indices(), ints(w["replacement"]));
  EXPECT_EQ(WeightedRandomSampler(weights, 4, false, &g2).indices(), ints(w["no_replacement"]));
  EXPECT_EQ(WeightedRandomSampler(weights, 1, true, &g3).indices(), ints(w["one"]));
  EXPECT_THROW(WeightedRandomSampler(weights, 7, false), Error);  // more than the categories
  EXPECT_THROW(WeightedRandomSampler({1.0, -1.0}, 1), Error);
  EXPECT_THROW(WeightedRandomSampler({0.0, 0.0}, 1), Error);
}

TEST(WeightedRandomSampler, NoReplacementNeverRepeatsAndSkipsZeroWeights) {
  Generator g(3);
  WeightedRandomSampler s({1, 0, 2, 3, 0, 1}, 4, false, &g);
  for (int pass = 0; pass < 20; ++pass) {
    Ints idx = s.indices();
    std::set<int64_t> seen(idx.begin(), idx.end());
    EXPECT_EQ(seen.size(), 4u);
    EXPECT_EQ(seen.count(1) + seen.count(4), 0u);
  }
}

TEST(BatchSampler, DropLast) {
  const json& b = golden()["batch"];
  BatchSampler keep(SequentialSampler(10), 3, false), drop(SequentialSampler(10), 3, true);
  EXPECT_EQ(keep.size(), 4);
  EXPECT_EQ(drop.size(), 3);
  EXPECT_EQ(keep.batches(), b["keep"].get<std::vector<Ints>>());
  EXPECT_EQ(drop.batches(), b["drop"].get<std::vector<Ints>>());
  EXPECT_THROW(BatchSampler(SequentialSampler(10), 0), Error);
}

TEST(DistributedSampler, SameShardsAsPyTorchWithPaddingAndEpochs) {
  for (const json& c : golden()["distributed"]) {
    const int64_t n = c["n"], replicas = c["num_replicas"];
    SCOPED_TRACE(c.dump().substr(0, 90));
    for (int64_t rank = 0; rank < replicas; ++rank) {
      DistributedSampler s(n, {.num_replicas = replicas, .rank = rank, .shuffle = c["shuffle"],
                               .seed = c["seed"], .drop_last = c["drop_last"]});
      EXPECT_EQ(s.size(), c["num_samples"].get<int64_t>());
      for (int64_t epoch = 0; epoch < 2; ++epoch) {
        s.set_epoch(epoch);
        EXPECT_EQ(s.indices(), ints(c["ranks"][rank][epoch])) << "rank " << rank;
      }
    }
  }
}

TEST(DistributedSampler, PartitionIsDisjointCoveringAndEqual) {
  for (int64_t n : {1, 7, 10, 12, 100}) {
    for (int64_t replicas : {1, 2, 3, 4, 8}) {
      for (bool drop_last : {false, true}) {
        std::vector<int64_t> all;
        std::set<size_t> counts;
        for (int64_t rank = 0; rank < replicas; ++rank) {
          DistributedSampler s(n, {.num_replicas = replicas, .rank = rank, .drop_last = drop_last});
          s.set_epoch(3);
          Ints idx = s.indices();
          EXPECT_EQ(int64_t(idx.size()), s.size());
          counts.insert(idx.size());
          all.insert(all.end(), idx.begin(), idx.end());
        }
        EXPECT_EQ(counts.size(), 1u);  // every rank the same count
        std::set<int64_t> distinct(all.begin(), all.end());
        if (!drop_last) {
          EXPECT_EQ(int64_t(distinct.size()), n);  // covering
          // Padding repeats exactly total - n entries.
          EXPECT_EQ(int64_t(all.size()), (n + replicas - 1) / replicas * replicas);
        } else {
          EXPECT_EQ(distinct.size(), all.size());  // disjoint: nothing repeated
          EXPECT_GE(int64_t(all.size()), n - replicas + 1);
        }
      }
    }
  }
}

TEST(DistributedSampler, SetEpochChangesTheOrderForAllRanksAlike) {
  DistributedSampler a(100, {.num_replicas = 2, .rank = 0}), b(100, {.num_replicas = 2, .rank = 1});
  const Ints a0 = a.indices(), b0 = b.indices();
  a.set_epoch(1);
  b.set_epoch(1);
  const Ints a1 = a.indices(), b1 = b.indices();
  EXPECT_NE(a0, a1);
  EXPECT_NE(b0, b1);
  // Same epoch, same order: shards of one permutation never overlap.
  std::set<int64_t> s(a1.begin(), a1.end());
  for (int64_t i : b1) EXPECT_EQ(s.count(i), 0u);
  a.set_epoch(0);
  EXPECT_EQ(a.indices(), a0);
}

TEST(DistributedSampler, Errors) {
  EXPECT_THROW(DistributedSampler(10, {.num_replicas = 2, .rank = 2}), Error);
  EXPECT_THROW(DistributedSampler(10, {}), Error);
}

TEST(RandomSplit, SameSubsetsAsPyTorch) {
  TensorDataset ds(arange(11));
  const json& r = golden()["random_split"];
  Generator g(r["seed"].get<uint64_t>());
  auto parts = random_split(TensorDataset(arange(10)), {3, 7}, &g);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].indices(), ints(r["subsets"][0]));
  EXPECT_EQ(parts[1].indices(), ints(r["subsets"][1]));
  EXPECT_EQ(parts[1].get(0).data.item<int64_t>(), r["subsets"][1][0].get<int64_t>());

  const json& f = golden()["random_split_fractions"];
  Generator g2(f["seed"].get<uint64_t>());
  auto fr = random_split(ds, f["fractions"].get<std::vector<double>>(), &g2);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(fr[i].indices(), ints(f["subsets"][i]));
  EXPECT_THROW(random_split(ds, {3, 7}), Error);  // sums to 10, not 11
}

TEST(ConcatDataset, IndexesAcrossParts) {
  auto a = std::make_shared<TensorDataset>(arange(3));
  auto b = std::make_shared<TensorDataset>(arange(10, 14));
  ConcatDataset<Example> c({a, b});
  EXPECT_EQ(c.size(), 7);
  EXPECT_EQ(c.get(2).data.item<int64_t>(), 2);
  EXPECT_EQ(c.get(3).data.item<int64_t>(), 10);
  EXPECT_EQ(c.get(-1).data.item<int64_t>(), 13);
  EXPECT_THROW(c.get(7), Error);
}

// The reference's pitfall 1: without set_epoch every epoch repeats the shuffle; rank 0 says so
// once, the second time a pass starts with the same epoch.
TEST(DistributedSampler, ForgettingSetEpochWarnsOnRank0TheSecondEpoch) {
  auto warnings_of = [](int64_t rank, bool call_set_epoch) {
    DistributedSampler s(10, {.num_replicas = 2, .rank = rank});
    testing::internal::CaptureStderr();
    for (int64_t epoch = 0; epoch < 3; ++epoch) {
      if (call_set_epoch) s.set_epoch(epoch);
      s.indices();
    }
    return testing::internal::GetCapturedStderr();
  };
  const std::string forgot = warnings_of(0, false);
  EXPECT_NE(forgot.find("call sampler.set_epoch(epoch) at the start of every epoch"),
            std::string::npos)
      << forgot;
  EXPECT_EQ(forgot.find("warning", forgot.find("warning") + 1), std::string::npos)
      << "warned more than once: " << forgot;
  EXPECT_EQ(warnings_of(0, true), "");
  EXPECT_EQ(warnings_of(1, false), "");  // the other ranks stay quiet
}

}  // namespace
