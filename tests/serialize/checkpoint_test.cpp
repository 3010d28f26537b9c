// Checkpoints interoperate with PyTorch both ways: files torch.save wrote (PyTorch 1.13,
// tests/golden/checkpoints from gen_checkpoints.py) load with every tensor's dtype, shape,
// strides, offset, values and storage sharing; files ember writes load in torch.load (run
// when python3-torch is installed) and in ember; the archive layout is PyTorch's.
#include <sys/stat.h>

#include <fstream>

#include "serialize/checkpoint_helpers.h"

namespace ember::test {
namespace {

const char* kGolden[] = {"state_dict.pt", "adamw.pt",  "steplr.pt",
                         "checkpoint.pt", "dtypes.pt", "views.pt"};

TEST(Checkpoint, LoadsEveryPyTorchFileAsTorchLoadDoes) {
  ASSERT_EQ(expected()["torch_version"].get<std::string>().substr(0, 4), "1.13");
  for (const char* name : kGolden) {
    SCOPED_TRACE(name);
    const Value v = load(kCheckpoints + name);
    expect_mirror(v, expected()["files"][name]["tree"], name);
  }
}

TEST(Checkpoint, StateDictKeepsOrderAndModuleVersions) {
  const Value v = load(kCheckpoints + "state_dict.pt", {.map_location = {}, .weights_only = true});
  const StateDict sd = v.to_state_dict();
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"step_count", "linear1.weight", "linear1.bias",
                                                 "linear2.weight", "linear2.bias"}));
  EXPECT_EQ(sd["linear1.weight"].sizes(), IntArrayRef({8, 4}));
  EXPECT_FALSE(sd["linear1.weight"].requires_grad());
  EXPECT_DOUBLE_EQ(sd["step_count"].item<double>(), 3.0);  // forward ran three times
  const Dict& meta = v.to_dict().metadata().to_dict();
  EXPECT_EQ(meta.size(), 3u);  // "", "linear1", "linear2"
  EXPECT_EQ(meta.at("linear1")["version"].to_int(), 1);
}

TEST(Checkpoint, OptimizerStateHasIntKeysTupleBetasAndZeroDimSteps) {
  const Value v = load(kCheckpoints + "adamw.pt");
  const Value& state = v["state"];
  EXPECT_TRUE(state.to_dict().contains(0) && state.to_dict().contains(3));
  const Tensor step = state[0]["step"].to_tensor();
  EXPECT_EQ(step.dim(), 0);
  EXPECT_EQ(step.item<float>(), 3.0f);
  const Value& group = v["param_groups"][0];
  EXPECT_TRUE(group["betas"].is_tuple());
  EXPECT_DOUBLE_EQ(group["betas"][1].to_double(), 0.999);
  EXPECT_TRUE(group["foreach"].is_none());
  EXPECT_EQ(group["params"].to_list().size(), 4u);
  const Value sched = load(kCheckpoints + "steplr.pt");
  EXPECT_EQ(sched["last_epoch"].to_int(), 3);
  EXPECT_DOUBLE_EQ(sched["_last_lr"][0].to_double(), 0.005);
}

TEST(Checkpoint, TrainingCheckpointScalarsAndNesting) {
  const Value ck = load(kCheckpoints + "checkpoint.pt", {.map_location = kCPU});
  EXPECT_EQ(ck["epoch"].to_int(), 5);
  EXPECT_EQ(ck["loss"].to_double(), 0.25);
  EXPECT_EQ(ck["config"].to_string(), "adamw lr=1e-2");
  EXPECT_EQ(ck["big"].to_int(), int64_t(1) << 40);  // LONG1
  EXPECT_EQ(ck["neg"].to_int(), -70000);            // BININT
  EXPECT_EQ(ck["nested"][0][2].to_string(), "x");
  EXPECT_TRUE(ck["nested"][1].is_tuple());
  EXPECT_FALSE(ck.to_dict().ordered());
  EXPECT_TRUE(ck["model_state_dict"].to_dict().ordered());
}

TEST(Checkpoint, ViewsShareTheirStorage) {
  const Value v = load(kCheckpoints + "views.pt");
  const Tensor base = v["base"].to_tensor(), tail = v["tail"].to_tensor(),
               mat_t = v["mat_t"].to_tensor(), scalar = v["scalar"].to_tensor();
  EXPECT_EQ(tail.storage().get(), base.storage().get());
  EXPECT_EQ(mat_t.storage().get(), base.storage().get());
  EXPECT_EQ(tail.storage_offset(), 4);
  EXPECT_EQ(mat_t.strides(), IntArrayRef({1, 4}));
  EXPECT_FALSE(mat_t.is_contiguous());
  base.data_ptr<float>()[5] = 100.f;  // one storage: a write shows through every view
  EXPECT_EQ(tail.data_ptr<float>()[1], 100.f);
  EXPECT_EQ(scalar.dim(), 0);
  EXPECT_EQ(scalar.item<double>(), 3.5);
}

TEST(Checkpoint, MapLocationSeesTheSavedLocation) {
  std::vector<std::string> seen;
  const Value v = load(kCheckpoints + "views.pt",
                       {.map_location = std::function<Device(const Device&)>(
                            [&](const Device& saved) {
                              seen.push_back(saved.str());
                              return Device(kCPU);
                            })});
  EXPECT_TRUE(v["base"].to_tensor().is_cpu());
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen[0], "cpu");
}

// Ember's files, read back by ember: the same tree, views still sharing one storage.
TEST(Checkpoint, RoundTripsThroughEmber) {
  ScratchDir dir;
  Tensor base = arange(12, TensorOptions{.dtype = kFloat32});
  Tensor w = randn({3, 5}).requires_grad_(true);
  Value ck = Dict{{"epoch", 7},
                  {"loss", 0.125},
                  {"config", "ünïcode ✓"},
                  {"big", int64_t(-1) << 50},
                  {"nested", List{List{1, 2.5, "x"}, Tuple{{true, Value()}}, List{}}},
                  {"int_keys", Dict{{0, 1}, {7, Tuple{{0.9, 0.999}}}}},
                  {"base", base},
                  {"tail", base.narrow(0, 4, 8)},
                  {"mat_t", base.view({3, 4}).t()},
                  {"zero_d", full({}, 2.5, TensorOptions{.dtype = kFloat64})},
                  {"w", w},
                  {"again", w},
                  {"state", StateDict{{"fc.weight", ones({2, 2})}, {"bn.running_mean", zeros({2})}}}};
  const std::string path = dir / "ck.pt";
  save(ck, path);
  const Value back = load(path);
  EXPECT_EQ(back["epoch"].to_int(), 7);
  EXPECT_EQ(back["loss"].to_double(), 0.125);
  EXPECT_EQ(back["config"].to_string(), "ünïcode ✓");
  EXPECT_EQ(back["big"].to_int(), int64_t(-1) << 50);
  EXPECT_EQ(back["int_keys"][7][1].to_double(), 0.999);
  EXPECT_TRUE(back["nested"][1].is_tuple());
  const Tensor tail = back["tail"].to_tensor(), mat_t = back["mat_t"].to_tensor();
  EXPECT_EQ(tail.storage().get(), back["base"].to_tensor().storage().get());
  EXPECT_EQ(mat_t.storage().get(), tail.storage().get());
  EXPECT_TRUE(mat_t.equal(base.view({3, 4}).t()));
  EXPECT_EQ(mat_t.strides(), IntArrayRef({1, 4}));
  EXPECT_EQ(back["zero_d"].to_tensor().dim(), 0);
  EXPECT_TRUE(back["w"].to_tensor().requires_grad());
  EXPECT_TRUE(back["w"].to_tensor().is_same(back["again"].to_tensor()));  // memoized once
  const Dict& sd = back["state"].to_dict();
  EXPECT_TRUE(sd.ordered());
  EXPECT_EQ(sd.metadata()["bn"]["version"].to_int(), 2);  // BatchNorm's version
  EXPECT_EQ(sd.metadata()["fc"]["version"].to_int(), 1);
}

// Every golden file, loaded by ember and saved again, loads in PyTorch as the original did.
TEST(Checkpoint, PyTorchLoadsWhatEmberSaves) {
  if (!have_torch()) GTEST_SKIP() << "python3-torch is not installed (apt install python3-torch)";
  ScratchDir dir;
  for (const char* name : kGolden) {
    SCOPED_TRACE(name);
    save(load(kCheckpoints + name), dir / name);
    const json got = torch_mirror(dir / name);
    const json& want = expected()["files"][name];
    EXPECT_EQ(got["weights_only"], want["weights_only"]);  // weights_only=True where 1.13 can
    // Compare through ember's view of PyTorch's result: re-load ours and check it against the
    // mirror PyTorch printed for it (values, layout and storage sharing).
    expect_mirror(load(dir / name), got["tree"], name);
    expect_mirror(load(kCheckpoints + name), got["tree"], name);
  }
}

TEST(Checkpoint, PyTorchLoadsEmberViewsAndDtypes) {
  if (!have_torch()) GTEST_SKIP() << "python3-torch is not installed (apt install python3-torch)";
  ScratchDir dir;
  Tensor base = arange(24, TensorOptions{.dtype = kFloat32}).view({2, 3, 4});
  Value v = Dict{{"base", base},
                 {"perm", base.permute({2, 0, 1})},
                 {"slice", base.select(1, 1).narrow(1, 1, 2)},
                 {"f16", base.to(kFloat16)},
                 {"bf16", base.to(kBFloat16)},
                 {"b", base.gt(10)},
                 {"i8", base.to(kInt8)},
                 {"u8", base.to(kUInt8)},
                 {"i64", base.to(kInt64)},
                 {"f64", base.to(kFloat64)},
                 {"zero_d", full({}, 4, TensorOptions{.dtype = kInt64})},
                 {"empty", zeros({0, 2})}};
  save(v, dir / "v.pt");
  const json got = torch_mirror(dir / "v.pt");
  EXPECT_TRUE(got["weights_only"].get<bool>());
  expect_mirror(v, got["tree"], "v");  // exactly our tensors, sharing exactly our storages
}

// The archive is PyTorch's layout: stored entries under one folder, storages on 64-byte
// boundaries (checked from the local headers), version and byteorder records.
TEST(Checkpoint, ArchiveLayout) {
  ScratchDir dir;
  Value v = Dict{{"a", ones({3})}, {"b", ones({7}, TensorOptions{.dtype = kFloat64})},
                 {"c", arange(5)}, {"long_name_padding", Tuple{{1, 2}}}};
  const std::string path = dir / "layout.pt";
  save(v, path);
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  auto u16 = [&](size_t at) { return size_t(uint8_t(bytes[at])) | size_t(uint8_t(bytes[at + 1])) << 8; };
  std::vector<std::string> names;
  for (size_t at = 0; at + 30 <= bytes.size() && bytes.compare(at, 4, "PK\3\4") == 0;) {
    const size_t name_len = u16(at + 26), extra_len = u16(at + 28);
    EXPECT_EQ(u16(at + 8), 0u) << "entries are stored, not compressed";
    const std::string name = bytes.substr(at + 30, name_len);
    const size_t data = at + 30 + name_len + extra_len;
    if (name.find("/data/") != std::string::npos) {
      EXPECT_EQ(data % 64, 0u) << name;
    }
    names.push_back(name);
    const size_t size = size_t(uint8_t(bytes[at + 18])) | size_t(uint8_t(bytes[at + 19])) << 8 |
                        size_t(uint8_t(bytes[at + 20])) << 16 | size_t(uint8_t(bytes[at + 21])) << 24;
    at = data + size;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"archive/data.pkl", "archive/byteorder",
                                             "archive/data/0", "archive/data/1", "archive/data/2",
                                             "archive/version"}));
  struct stat st{};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_NE(st.st_mode & S_IRGRP, 0u) << "mode follows the umask, not mkstemp's 0600";
}

// A failed save leaves the previous checkpoint intact and no temporary file behind.
TEST(Checkpoint, AtomicSave) {
  ScratchDir dir;
  const std::string path = dir / "ck.pt";
  save(Dict{{"epoch", 1}}, path);
  EXPECT_ERROR(save(Dict{{"t", Tensor()}}, path), "undefined tensor");
  EXPECT_EQ(load(path)["epoch"].to_int(), 1);
  save(Dict{{"epoch", 2}}, path);
  EXPECT_EQ(load(path)["epoch"].to_int(), 2);
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path)) ++files;
  EXPECT_EQ(files, 1u);
  const std::string msg = message_of([&] { save(Dict{}, dir / "no/such/dir/ck.pt"); });
  EXPECT_NE(msg.find("[save] cannot write '"), std::string::npos) << msg;
  EXPECT_NE(msg.find("No such file or directory"), std::string::npos) << msg;
  if (::geteuid() != 0) {  // root writes anywhere
    std::filesystem::create_directory(dir.path / "ro");
    ::chmod((dir / "ro").c_str(), 0500);
    EXPECT_ERROR(save(Dict{}, dir / "ro/ck.pt"), "Permission denied");
  }
}

}  // namespace
}  // namespace ember::test
