// Safetensors: a file in the published layout (written by gen_checkpoints.py as the Python
// package writes it) loads with every dtype, mapped without copying; save_file/load_file round
// trip with metadata; and every inconsistency in a header is refused with a message.
#include <ember/safetensors.h>

#include "serialize/checkpoint_helpers.h"

namespace ember::test {
namespace {

std::string le64(uint64_t v) {
  std::string out;
  for (int i = 0; i < 8; ++i) out.push_back(char(v >> (8 * i)));
  return out;
}

// A file made of a raw header and buffer.
std::string raw_file(const ScratchDir& dir, const std::string& header, const std::string& buffer) {
  static int n = 0;
  const std::string path = dir / ("raw" + std::to_string(n++) + ".safetensors");
  std::ofstream(path, std::ios::binary) << le64(header.size()) << header << buffer;
  return path;
}

std::string error_of(const std::string& path) {
  return message_of([&] { safetensors::load_file(path); });
}

#define EXPECT_REFUSED(path, text)                              \
  do {                                                          \
    const std::string msg = error_of(path);                     \
    EXPECT_NE(msg.find(text), std::string::npos) << msg;        \
    EXPECT_EQ(msg.rfind("[safetensors] ", 0), 0u) << msg;       \
  } while (0)

TEST(Safetensors, LoadsTheReferenceLayout) {
  const std::string path = kCheckpoints + "tensors.safetensors";
  const StateDict sd = safetensors::load_file(path);
  expect_mirror(Value(sd), expected()["files"]["tensors.safetensors"]["tree"], "safetensors");
  EXPECT_EQ(safetensors::load_metadata(path),
            (safetensors::Metadata{{"format", "pt"}, {"note", "hi"}}));
}

TEST(Safetensors, AlignedTensorsViewTheMapping) {
  ScratchDir dir;
  const Tensor w = randn({256, 64});
  safetensors::save_file({{"w", w}, {"b", ones({3}, TensorOptions{.dtype = kInt8})}}, dir / "m.st");
  StateDict sd = safetensors::load_file(dir / "m.st");
  Tensor got = sd["w"];
  EXPECT_TRUE(got.equal(w));
  EXPECT_TRUE(in_mapping_of(got.data_ptr(), "/m.st"))
      << "load_file copied the tensor instead of mapping it";
  got.data_ptr<float>()[0] = 12345.f;  // copy-on-write: the file is unchanged
  EXPECT_EQ(safetensors::load_file(dir / "m.st")["w"].data_ptr<float>()[0], w.data_ptr<float>()[0]);
  sd = StateDict();  // the mapping outlives the dict while a tensor holds it
  EXPECT_EQ(got.data_ptr<float>()[1], w.data_ptr<float>()[1]);
}

// Tensors larger than the writer's 1 MiB buffer go straight to the file, around small ones.
TEST(Safetensors, BigTensorsRoundTrip) {
  ScratchDir dir;
  const StateDict sd{{"a", randn({3'000'000})}, {"b", ones({3}, TensorOptions{.dtype = kInt8})},
                     {"c", randn({400'000}).to(kFloat64)}};
  safetensors::save_file(sd, dir / "big.st");
  const StateDict back = safetensors::load_file(dir / "big.st");
  for (const auto& [name, t] : sd) EXPECT_TRUE(back[name].equal(t)) << name;
}

TEST(Safetensors, RoundTripsEveryDtypeAndMetadata) {
  ScratchDir dir;
  const Tensor base = arange(24, TensorOptions{.dtype = kFloat32}).view({2, 3, 4});
  StateDict sd{{"t", base.transpose(0, 2)},  // non-contiguous: saved packed
               {"f16", base.to(kFloat16)}, {"bf16", base.to(kBFloat16)}, {"f64", base.to(kFloat64)},
               {"i64", base.to(kInt64)}, {"i32", base.to(kInt32)}, {"i16", base.to(kInt16)},
               {"i8", base.to(kInt8)}, {"u8", base.to(kUInt8)}, {"b", base.gt(5)},
               {"zero_d", full({}, 7.0)}, {"empty", zeros({0, 4})}};
  safetensors::save_file(sd, dir / "all.safetensors", {{"epoch", "3"}});
  const StateDict back = safetensors::load_file(dir / "all.safetensors");
  ASSERT_EQ(back.size(), sd.size());
  for (const auto& [name, t] : sd) {
    SCOPED_TRACE(name);
    EXPECT_EQ(back[name].dtype(), t.dtype());
    EXPECT_EQ(back[name].sizes(), t.sizes());
    EXPECT_TRUE(back[name].equal(t));
    EXPECT_TRUE(back[name].is_contiguous());
  }
  EXPECT_EQ(safetensors::load_metadata(dir / "all.safetensors").at("epoch"), "3");
  EXPECT_EQ(back.keys().front(), "b");  // sorted by name, as the Python package returns them
}

TEST(Safetensors, PyTorchReadsTheBytes) {
  if (!have_torch()) GTEST_SKIP() << "python3-torch is not installed (apt install python3-torch)";
  // Parse our file with a few lines of Python and torch.frombuffer, independent of ember.
  ScratchDir dir;
  safetensors::save_file({{"a", arange(6, TensorOptions{.dtype = kFloat32}).view({2, 3})},
                          {"h", full({2}, 1.5, TensorOptions{.dtype = kFloat16})}},
                         dir / "x.safetensors");
  const std::string cmd =
      "/usr/bin/python3 -c \"import json,struct,torch,sys; b=open(sys.argv[1],'rb').read(); "
      "n=struct.unpack('<Q',b[:8])[0]; h=json.loads(b[8:8+n]); d=b[8+n:]; "
      "a=h['a']; t=torch.frombuffer(bytearray(d[a['data_offsets'][0]:a['data_offsets'][1]]),"
      "dtype=torch.float32).view(a['shape']); assert t.tolist()==[[0,1,2],[3,4,5]], t; "
      "assert n%8==0 and h['h']['dtype']=='F16'\" " + dir / "x.safetensors";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
}

TEST(Safetensors, RefusesInconsistentFiles) {
  ScratchDir dir;
  const std::string f4(16, '\0');
  auto one = [](const std::string& entry) { return "{\"w\":" + entry + "}"; };
  const std::string ok = one(R"({"dtype":"F32","shape":[4],"data_offsets":[0,16]})");
  EXPECT_EQ(safetensors::load_file(raw_file(dir, ok, f4))["w"].numel(), 4);
  EXPECT_REFUSED(raw_file(dir, ok, f4 + "xx"), "cover 16 bytes of the 18-byte buffer");
  EXPECT_REFUSED(raw_file(dir, ok, f4.substr(0, 12)), "lie outside the 12-byte buffer");
  EXPECT_REFUSED(raw_file(dir, one(R"({"dtype":"F32","shape":[5],"data_offsets":[0,16]})"), f4),
                 "span 16 bytes but shape [5] of F32 needs 20");
  EXPECT_REFUSED(raw_file(dir, one(R"({"dtype":"F8_E4M3","shape":[16],"data_offsets":[0,16]})"), f4),
                 "dtype \"F8_E4M3\", which ember does not support");
  EXPECT_REFUSED(raw_file(dir, one(R"({"dtype":"F32","shape":[-4],"data_offsets":[0,16]})"), f4),
                 "must be a non-negative integer");
  EXPECT_REFUSED(raw_file(dir, one(R"({"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,16]})"), f4),
                 "overflows");
  EXPECT_REFUSED(raw_file(dir, one(R"({"dtype":"F32","shape":[4]})"), f4),
                 "needs dtype, shape and data_offsets");
  EXPECT_REFUSED(raw_file(dir, R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                               R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", f4.substr(0, 12)),
                 "overlaps the previous tensor");
  EXPECT_REFUSED(raw_file(dir, R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})", f4),
                 "bytes before it are unused");
  EXPECT_REFUSED(raw_file(dir, R"({"w":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                               R"("w":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})", "ab"),
                 "tensor 'w' appears twice");
  EXPECT_REFUSED(raw_file(dir, R"({"__metadata__":{"k":1}})", ""), "__metadata__['k'] is not a string");
  EXPECT_REFUSED(raw_file(dir, "{\"w\": [1, 2", f4), "the header is not valid JSON");
  EXPECT_REFUSED(raw_file(dir, "[]", ""), "the header is not a JSON object");
  {
    std::ofstream(dir / "huge.st", std::ios::binary) << le64(uint64_t(1) << 62) << "{}";
  }
  EXPECT_REFUSED(dir / "huge.st", "the limit is 100 MB");
  {
    std::ofstream(dir / "short.st", std::ios::binary) << le64(100) << "{}";
  }
  EXPECT_REFUSED(dir / "short.st", "declares a 100-byte header but the file is 10 bytes");
  {
    std::ofstream(dir / "tiny.st", std::ios::binary) << "abc";
  }
  EXPECT_REFUSED(dir / "tiny.st", "too short");
  EXPECT_REFUSED(dir / "missing.st", "No such file or directory");
  EXPECT_ERROR(safetensors::save_file({{"w", ones({1})}}, dir / "no/dir/x.st"),
               "[safetensors] cannot write");
}

}  // namespace
}  // namespace ember::test
