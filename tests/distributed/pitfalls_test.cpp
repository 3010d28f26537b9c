// The reference's seven DDP pitfalls, those not tested next to their feature, on real
// processes: (3) every rank saving to one path never leaves a torn file (each save writes its
// own temporary file and renames it; the DDP program still saves on rank 0 only), (4) a rank
// reading while rank 0 writes sees the old or the new checkpoint, never half of one, and after
// the barrier the new one, (6) uneven batches: a DistributedSampler gives every rank the same
// number of batches, and a rank that runs out early is an error naming it (debug mode) with
// DDP's hint instead of a hang, (7) map_location on CPU is a no-op. The others: (1)
// data_sampler_test's ForgettingSetEpochWarnsOnRank0TheSecondEpoch, (2) ddp_test's
// StateDictHasTheModulePrefix..., (5) sync_batchnorm_test's ARankSkippingTheForward...
#include <gtest/gtest.h>

#include <filesystem>

#include "distributed/dist_test_support.h"
#include "distributed/multiprocess.h"
#include "ember/ember.h"
#include "test_support.h"

namespace ember {
namespace {

using namespace std::chrono_literals;
using test::on_ranks;
using test::require;
namespace fs = std::filesystem;

struct ScratchDir {
  fs::path path = fs::temp_directory_path() / ("ember-pitfalls-" + std::to_string(::getpid()));
  ScratchDir() { fs::create_directories(path); }
  ~ScratchDir() { fs::remove_all(path); }
};

// A checkpoint whose every element says who wrote it and when: a torn file cannot pass.
Dict checkpoint_of(int rank, int version) {
  return Dict{{"epoch", version}, {"writer", rank},
              {"model", StateDict{{"w", full({256, 256}, rank * 1000.0 + version)}}}};
}

// Loads `path` and checks it is one whole checkpoint; returns its version.
int64_t check_whole(const std::string& path) {
  const Value ck = load(path, {.map_location = kCPU});
  const Tensor w = ck["model"].to_state_dict().at("w");
  const double expected = double(ck["writer"].to_int() * 1000 + ck["epoch"].to_int());
  require(w.eq(expected).all().item<bool>(), "a checkpoint mixes two saves");
  return ck["epoch"].to_int();
}

TEST(DdpPitfalls, EveryRankSavingToOnePathWhileOthersReadNeverTearsTheFile) {
  ScratchDir scratch;
  const std::string path = (scratch.path / "checkpoint.pt").string();
  auto exits = on_ranks(2, [&](int rank) {
    if (rank == 0) save(checkpoint_of(0, 0), path);
    dist::barrier();
    for (int version = 1; version <= 10; ++version) {
      // Both ranks at once (pitfall 3); without fsync, which atomicity does not need.
      save(checkpoint_of(rank, version), path, {.sync = false});
      check_whole(path);                          // while the other writes: pitfall 4
    }
    dist::barrier();
    // The reference's order: rank 0 writes, then the barrier, then everyone reads.
    if (rank == 0) save(checkpoint_of(0, 99), path);
    dist::barrier();
    require(check_whole(path) == 99, "after the barrier every rank reads rank 0's checkpoint");
  });
  EXPECT_EQ(test::failures(exits), "");
  for (const auto& entry : fs::directory_iterator(scratch.path))
    EXPECT_EQ(entry.path().filename(), "checkpoint.pt") << "a temporary file was left behind";
}

TEST(DdpPitfalls, ARankOutOfBatchesEarlyIsAnErrorNamingItNotAHang) {
  auto exits = on_ranks(
      2,
      [](int rank) {
        manual_seed(0);
        auto model = nn::Sequential(nn::Linear(4, 4), nn::Linear(4, 2));
        auto ddp = nn::parallel::DistributedDataParallel(model);
        const std::string message = test::message_of([&] {
          for (int batch = 0; batch < (rank == 0 ? 2 : 3); ++batch)  // hand-sharded, unevenly
            ddp(ones({2, 4})).sum().backward();
          dist::barrier();  // the end of the epoch
        });
        if (rank == 1) {
          require(message.find("[DistributedDataParallel] rank 1: the gradient all_reduce of "
                               "bucket 0 failed") != std::string::npos,
                  message);
          require(message.find("rank 0 called barrier()") != std::string::npos, message);
          require(message.find("uneven inputs") != std::string::npos, message);
        } else {
          require(message.find("rank 1 called all_reduce(") != std::string::npos, message);
        }
      },
      test::kDebugMode, 2s);
  EXPECT_EQ(test::failures(exits), "");
}

// The tests below compute in the test process itself: after the forking ones, since a child
// forked after OpenMP started its threads here would hang in its first parallel region.
TEST(DdpPitfalls, ADistributedSamplerGivesEveryRankTheSameNumberOfBatchesWithoutDropLast) {
  data::TensorDataset dataset(arange(10).to(kFloat32), arange(10));
  for (int64_t rank = 0; rank < 3; ++rank) {
    auto sampler = std::make_shared<data::DistributedSampler>(
        dataset, data::DistributedSamplerOptions{.num_replicas = 3, .rank = rank});
    data::DataLoader<> loader(std::make_shared<data::TensorDataset>(dataset),
                              {.batch_size = 3, .sampler = sampler});
    int64_t batches = 0, samples = 0;
    for (auto& [x, y] : loader) {
      ++batches;
      samples += x.size(0);
    }
    EXPECT_EQ(batches, 2) << "rank " << rank;  // 10 samples padded to 12: 4 per rank
    EXPECT_EQ(samples, 4) << "rank " << rank;
  }
}

TEST(DdpPitfalls, MapLocationOnCpuIsANoOp) {
  ScratchDir scratch;
  const std::string path = (scratch.path / "ck.pt").string();
  save(checkpoint_of(0, 3), path);
  const Tensor plain = load(path)["model"].to_state_dict().at("w");
  const Tensor mapped = load(path, {.map_location = kCPU})["model"].to_state_dict().at("w");
  EXPECT_TRUE(mapped.device().is_cpu());
  EXPECT_TRUE(mapped.equal(plain));
}

}  // namespace
}  // namespace ember
