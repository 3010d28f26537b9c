// The Fashion-MNIST job (examples/fashion_mnist) on small slices of the installed dataset: one
// epoch on 2,000 images lowers the loss and writes every file; a run stopped after an epoch, or
// interrupted mid-epoch (the Ctrl-C path), and resumed ends bit for bit where a straight run
// ends (model, optimizer, scheduler, RNG states, metrics); a checkpoint of another configuration
// is refused.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <ember/data/mnist.h>
#include <ember/error.h>
#include <ember/serialize.h>
#include <nlohmann/json.hpp>

#include "test_support.h"
#include "trainer.h"

using namespace ember;
using fashion_mnist::TrainConfig;
using fashion_mnist::TrainIO;
using fashion_mnist::TrainResult;
namespace fs = std::filesystem;

namespace {

const fs::path& scratch() {
  static const struct Root {
    fs::path path = fs::temp_directory_path() / ("ember_train_test_" + std::to_string(getpid()));
    ~Root() { fs::remove_all(path); }
  } root;
  return root.path;
}

bool have_data() { return fs::is_directory(data::FashionMNIST::kDefaultRoot); }

#define REQUIRE_DATA()                                                                    \
  if (!have_data())                                                                       \
  GTEST_SKIP() << "dataset-fashion-mnist is not installed (scripts/bootstrap.sh installs it)"

// A small run: 8 batches of 32 per epoch, validation on 128 test images.
TrainConfig small(const std::string& name) {
  return TrainConfig{.epochs = 2, .batch_size = 32, .workers = 2, .seed = 7,
                     .output_dir = (scratch() / name).string(), .limit = 256, .val_limit = 128};
}

// Values equal exactly; tensors bit for bit. Wall-clock fields are the only ones allowed to vary.
void expect_same(const Value& a, const Value& b, const std::string& where) {
  ASSERT_EQ(a.kind(), b.kind()) << where;
  switch (a.kind()) {
    case Value::Kind::Tensor: {
      const Tensor x = a.to_tensor().contiguous(), y = b.to_tensor().contiguous();
      ASSERT_EQ(x.dtype(), y.dtype()) << where;
      ASSERT_EQ(x.sizes(), y.sizes()) << where;
      EXPECT_EQ(std::memcmp(x.data_ptr(), y.data_ptr(), size_t(x.nbytes())), 0)
          << where << " differs";
      break;
    }
    case Value::Kind::Dict: {
      const Dict &x = a.to_dict(), &y = b.to_dict();
      ASSERT_EQ(x.size(), y.size()) << where;
      auto it = y.begin();
      for (const auto& [k, v] : x) {
        std::ostringstream os;
        os << k;
        const std::string key = k.is_string() ? k.to_string() : os.str();
        ASSERT_TRUE(k == it->first) << where << ": key " << key;
        if (key != "seconds" && key != "images_per_second") {
          expect_same(v, it->second, where + "/" + key);
        }
        ++it;
      }
      break;
    }
    case Value::Kind::List:
    case Value::Kind::Tuple: {
      const auto& x = a.is_list() ? a.to_list() : a.to_tuple().items;
      const auto& y = b.is_list() ? b.to_list() : b.to_tuple().items;
      ASSERT_EQ(x.size(), y.size()) << where;
      for (size_t i = 0; i < x.size(); ++i) expect_same(x[i], y[i], where + "/" + std::to_string(i));
      break;
    }
    default: {
      EXPECT_TRUE(a == b) << where << ": " << a << " vs " << b;
    }
  }
}

Value checkpoint_of(const TrainConfig& c) { return load(c.output_dir + "/checkpoint.pt"); }

// The straight two-epoch run the resume tests compare against (trained once per process).
const Value& straight_run() {
  static const Value ck = [] {
    const TrainResult r = fashion_mnist::train(small("straight"));
    EXPECT_TRUE(r.finished);
    EXPECT_EQ(r.history.size(), 2u);
    return checkpoint_of(small("straight"));
  }();
  return ck;
}

}  // namespace

TEST(FashionMNISTJob, OneEpochOn2000ImagesLowersTheLossAndWritesItsFiles) {
  REQUIRE_DATA();
  TrainConfig c{.epochs = 1, .workers = 2, .seed = 1,
                .output_dir = (scratch() / "smoke").string(), .limit = 2000, .val_limit = 500};
  std::ostringstream log;
  const TrainResult r = fashion_mnist::train(c, {.out = &log});
  ASSERT_TRUE(r.finished);
  ASSERT_EQ(r.history.size(), 1u);
  const auto& m = r.history[0];
  // An untrained 10-way classifier sits near ln 10 = 2.30; one epoch must leave it well below.
  EXPECT_LT(m.train_loss, r.first_loss);
  EXPECT_LT(m.train_loss, 0.75 * std::log(10.0));
  EXPECT_LT(m.val_loss, 0.5 * std::log(10.0));
  EXPECT_GT(m.accuracy, 0.6);
  EXPECT_DOUBLE_EQ(m.lr, 0.0);  // cosine over one epoch ends at eta_min
  EXPECT_GT(m.images_per_second, 0);
  EXPECT_NE(log.str().find("Epoch 0 | Train: "), std::string::npos) << log.str();

  // model.pt is a plain state_dict with the reference CNN's keys.
  const StateDict sd = load(r.weights_path).to_state_dict();
  EXPECT_EQ(sd.size(), 18u);  // 2 conv (w, b) + 2 BN (w, b, mean, var, count) + 2 linear (w, b)
  EXPECT_EQ(sd["0.weight"].sizes(), (std::vector<int64_t>{32, 1, 3, 3}));
  EXPECT_EQ(sd["9.weight"].sizes(), (std::vector<int64_t>{128, 3136}));
  EXPECT_EQ(sd["1.num_batches_tracked"].item<int64_t>(), 16);  // ceil(2000 / 128) steps

  std::ifstream csv(r.metrics_path);
  std::string header, row, extra;
  std::getline(csv, header);
  std::getline(csv, row);
  EXPECT_EQ(header.rfind("epoch,train_loss,val_loss,val_accuracy,lr", 0), 0u) << header;
  EXPECT_EQ(row.rfind("0,", 0), 0u) << row;
  EXPECT_FALSE(std::getline(csv, extra));

  const auto summary = nlohmann::json::parse(std::ifstream(r.summary_path));
  EXPECT_EQ(summary["model"], "cnn");
  EXPECT_EQ(summary["finished"], true);
  EXPECT_DOUBLE_EQ(summary["test_accuracy"].get<double>(), m.accuracy);
  EXPECT_EQ(summary["epochs"].size(), 1u);
}

TEST(FashionMNISTJob, StopAfterAnEpochThenResumeIsBitForBitTheStraightRun) {
  REQUIRE_DATA();
  const Value& straight = straight_run();
  TrainConfig c = small("two_halves");
  c.stop_after = 1;
  const TrainResult first = fashion_mnist::train(c);
  EXPECT_FALSE(first.finished);
  EXPECT_EQ(first.history.size(), 1u);
  c.stop_after = 0;
  c.resume = true;
  const TrainResult second = fashion_mnist::train(c);
  EXPECT_TRUE(second.finished);
  ASSERT_EQ(second.history.size(), 2u);
  expect_same(checkpoint_of(c), straight, "checkpoint");
  expect_same(load(second.weights_path), load(small("straight").output_dir + "/model.pt"),
              "model.pt");
}

TEST(FashionMNISTJob, InterruptedMidEpochThenResumedIsBitForBitTheStraightRun) {
  REQUIRE_DATA();
  const Value& straight = straight_run();
  TrainConfig c = small("interrupted");
  std::atomic<bool> stop{false};
  // Ctrl-C arrives during the third step of the second epoch.
  const TrainResult first = fashion_mnist::train(
      c, {.stop = &stop, .on_step = [&](int64_t epoch, int64_t batch) {
            if (epoch == 1 && batch == 3) stop = true;
          }});
  EXPECT_TRUE(first.interrupted);
  EXPECT_EQ(first.history.size(), 1u);
  EXPECT_EQ(checkpoint_of(c)["batch"].to_int(), 3);
  c.resume = true;
  const TrainResult second = fashion_mnist::train(c);
  EXPECT_TRUE(second.finished);
  expect_same(checkpoint_of(c), straight, "checkpoint");
}

TEST(FashionMNISTJob, ResumeRefusesACheckpointOfAnotherConfiguration) {
  REQUIRE_DATA();
  straight_run();
  TrainConfig c = small("straight");
  c.resume = true;
  c.batch_size = 64;
  EXPECT_ERROR(fashion_mnist::train(c), "[fashion-mnist] cannot resume");
  EXPECT_ERROR(fashion_mnist::train(c), "it was trained with --batch-size 32, this run has 64");
  TrainConfig missing = small("nothing_here");
  missing.resume = true;
  EXPECT_ERROR(fashion_mnist::train(missing), "--resume: no checkpoint at");
}

// --amp: one epoch under bfloat16 autocast lowers the loss like the float32 epoch (and is not the
// float32 run: autocast really changed the arithmetic); float16 runs with a GradScaler whose
// state is in the checkpoint; --resume keeps the checkpoint's --amp and refuses another.
static TrainConfig amp_run(const std::string& name, const std::string& amp) {
  return TrainConfig{.epochs = 1, .batch_size = 64, .workers = 2, .seed = 3,
                     .output_dir = (scratch() / name).string(), .limit = 384, .val_limit = 128,
                     .amp = amp};
}

TEST(FashionMNISTJob, AmpEpochLowersTheLossLikeFloat32) {
  REQUIRE_DATA();
  const TrainResult f32 = fashion_mnist::train(amp_run("amp_none", "none"));
  for (const std::string amp : {"bf16", "fp16"}) {
    SCOPED_TRACE(amp);
    const TrainResult r = fashion_mnist::train(amp_run("amp_" + amp, amp));
    ASSERT_TRUE(r.finished);
    const double loss = r.history[0].train_loss, ref = f32.history[0].train_loss;
    EXPECT_LT(loss, r.first_loss);
    EXPECT_LT(loss, 0.8 * std::log(10.0));
    EXPECT_NEAR(loss, ref, 0.15 * ref);
    EXPECT_NE(loss, ref);  // reduced-precision arithmetic ran
    EXPECT_GT(r.history[0].accuracy, f32.history[0].accuracy - 0.1);
    const Value ck = checkpoint_of(amp_run("amp_" + amp, amp));
    EXPECT_EQ(ck["run"]["amp"].to_string(), amp);
    const auto summary = nlohmann::json::parse(std::ifstream(r.summary_path));
    EXPECT_EQ(summary["config"]["amp"], amp);
    if (amp == "fp16") {
      EXPECT_TRUE(ck["scaler"].to_dict().contains(Value("scale")));
      EXPECT_TRUE(ck["scaler"].to_dict().contains(Value("_growth_tracker")));
    } else {
      EXPECT_TRUE(ck["scaler"].to_dict().empty());  // disabled: PyTorch's {}
    }
  }
}

TEST(FashionMNISTJob, ResumeKeepsTheCheckpointsAmp) {
  REQUIRE_DATA();
  TrainConfig c = amp_run("amp_resume", "bf16");
  c.epochs = 2;
  c.stop_after = 1;
  EXPECT_FALSE(fashion_mnist::train(c).finished);
  TrainConfig again = c;
  again.stop_after = 0;
  again.resume = true;
  again.amp = "none";
  EXPECT_ERROR(fashion_mnist::train(again), "it was trained with --amp 'bf16', this run has 'none'");
  again.amp = "";  // not given: the checkpoint's
  const TrainResult r = fashion_mnist::train(again);
  EXPECT_TRUE(r.finished);
  EXPECT_EQ(checkpoint_of(c)["run"]["amp"].to_string(), "bf16");
  const auto summary = nlohmann::json::parse(std::ifstream(r.summary_path));
  EXPECT_EQ(summary["config"]["amp"], "bf16");
}
