// Fast checkpoint I/O. load() hands out CPU tensors that view the file through a private
// mapping where a storage is stored uncompressed and aligned (always so in files from torch.save
// and save()), and copies otherwise; in-place writes never reach the file, and the tensors
// outlive the reader. save() writes multi-megabyte storages through its buffered path intact,
// durably by default and atomically either way.
#include <zip.h>

#include <cstring>
#include <fstream>
#include <map>

#include "serialize/checkpoint_helpers.h"
#include "serialize/zip_archive.h"

namespace ember::test {
namespace {

const LoadOptions kCopy = [] {
  LoadOptions o;
  o.mmap = false;
  return o;
}();

// Storages that span several write buffers (1 MiB) and writeback chunks (8 MiB).
StateDict big_state_dict() {
  return StateDict{{"a", randn({3'000'000})},
                   {"b", arange(1000, TensorOptions{.dtype = kFloat64})},
                   {"c", randn({700'000}).to(kFloat16)}};
}

TEST(CheckpointMmap, LoadedTensorsViewTheFileCopyOnWrite) {
  ScratchDir dir;
  const StateDict sd = big_state_dict();
  const std::string path = dir / "big.pt";
  save(sd, path);
  Tensor a;
  {
    const Value v = load(path);
    for (const auto& [key, t] : sd) {
      EXPECT_TRUE(v[key].to_tensor().equal(t)) << key;
      EXPECT_TRUE(in_mapping_of(v[key].to_tensor().data_ptr(), "/big.pt")) << key << " was copied";
    }
    a = v["a"].to_tensor();
  }  // the reader and the other tensors are gone; `a` keeps the mapping alive
  const Tensor plus_one = sd["a"] + 1.0;
  a.add_(1.0);  // copy-on-write: the page is copied, the file keeps its bytes
  EXPECT_TRUE(a.equal(plus_one));
  EXPECT_TRUE(load(path)["a"].to_tensor().equal(sd["a"])) << "an in-place write reached the file";
  // save() replaces the file by a rename, so a live mapping keeps the old contents.
  save(StateDict{{"a", zeros({3})}}, path);
  EXPECT_TRUE(a.equal(plus_one));
  EXPECT_EQ(load(path)["a"].to_tensor().numel(), 3);
}

TEST(CheckpointMmap, PyTorchFilesAreMappedAndMmapFalseCopies) {
  const std::string path = kCheckpoints + "state_dict.pt";
  const Value mapped = load(path);
  const Value copied = load(path, kCopy);
  size_t n = 0;
  for (const auto& [key, t] : copied.to_dict()) {
    const Tensor m = mapped[key.to_string()].to_tensor(), c = t.to_tensor();
    EXPECT_TRUE(m.equal(c)) << key;
    EXPECT_TRUE(in_mapping_of(m.data_ptr(), "/state_dict.pt")) << key << " was copied";
    EXPECT_FALSE(in_mapping_of(c.data_ptr(), "/state_dict.pt")) << key << " was mapped";
    ++n;
  }
  EXPECT_GT(n, 0u);
}

// An archive written with libzip itself: the storage record first, its data starting
// `misalign` bytes past a multiple of 8 (PyTorch and ember align to 64), optionally deflated.
void write_foreign_archive(const std::string& from, const std::string& path, size_t misalign,
                           bool deflate) {
  serialize::ZipReader src(from);
  std::map<std::string, std::string> records;
  for (const std::string& name : src.names()) records[name] = src.read_string(name, 1 << 20);
  int err = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  ASSERT_NE(z, nullptr) << err;
  for (const char* name :
       {"archive/data/0", "archive/data.pkl", "archive/byteorder", "archive/version"}) {
    const std::string& bytes = records.at(name);
    zip_source_t* s = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
    const zip_int64_t i = zip_file_add(z, name, s, 0);
    ASSERT_GE(i, 0) << name;
    const bool storage = std::string(name) == "archive/data/0";
    zip_set_file_compression(z, zip_uint64_t(i), storage && deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE,
                             0);
    if (storage) {  // the first entry's data starts at 30 + name + (4 + pad) extra bytes
      const size_t pad = (8 + misalign - (30 + std::strlen(name) + 4) % 8) % 8;
      const std::string padding(pad, 'Z');
      zip_file_extra_field_set(z, zip_uint64_t(i), 0x4246, ZIP_EXTRA_FIELD_NEW,
                               reinterpret_cast<const zip_uint8_t*>(padding.data()),
                               zip_uint16_t(pad), ZIP_FL_LOCAL);
    }
  }
  ASSERT_EQ(zip_close(z), 0);
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

TEST(CheckpointMmap, MisalignedOrCompressedRecordsAreCopiedAndChecked) {
  ScratchDir dir;
  const Tensor w = arange(100, TensorOptions{.dtype = kFloat64});
  save(Dict{{"w", w}}, dir / "src.pt");
  for (const bool deflate : {false, true}) {
    const std::string path = dir / (deflate ? "deflated.pt" : "odd.pt");
    write_foreign_archive(dir / "src.pt", path, 2, deflate);
    std::string bytes = file_bytes(path);
    const size_t name_len = uint8_t(bytes[26]) | size_t(uint8_t(bytes[27])) << 8;
    const size_t extra_len = uint8_t(bytes[28]) | size_t(uint8_t(bytes[29])) << 8;
    const size_t data = 30 + name_len + extra_len;
    ASSERT_EQ(data % 8, 2u);
    const Tensor got = load(path)["w"].to_tensor();
    EXPECT_TRUE(got.equal(w)) << path;
    EXPECT_FALSE(in_mapping_of(got.data_ptr(), path)) << path << " cannot be viewed in place";
    if (deflate) continue;
    // The copying path checks the CRC: a flipped byte of the storage is refused.
    bytes[data + 3] = char(bytes[data + 3] ^ 0x5a);
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), long(bytes.size()));
    EXPECT_ERROR(load(path), "is truncated or corrupt");
  }
  // The same file aligned (misalign 0) is viewed in place.
  write_foreign_archive(dir / "src.pt", dir / "even.pt", 0, false);
  const Tensor got = load(dir / "even.pt")["w"].to_tensor();
  EXPECT_TRUE(got.equal(w));
  EXPECT_TRUE(in_mapping_of(got.data_ptr(), "/even.pt"));
}

// Durable (default) and sync = false both write whole archives atomically.
TEST(CheckpointMmap, BigSavesRoundTripWithAndWithoutSync) {
  ScratchDir dir;
  const StateDict sd = big_state_dict();
  for (const bool sync : {true, false}) {
    const std::string path = dir / "ck.pt";
    save(sd, path, {.sync = sync});
    const Value v = load(path, kCopy);
    for (const auto& [key, t] : sd)
      EXPECT_TRUE(v[key].to_tensor().equal(t)) << key << " sync " << sync;
  }
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path)) ++files;
  EXPECT_EQ(files, 1u) << "a temporary file was left behind";
}

// The copying path checks each record's CRC piece by piece (Note [Checked copy]): a byte
// flipped megabytes into a big storage, far past the first piece, is refused.
TEST(CheckpointMmap, CopyingLoadRefusesAFlipDeepInABigRecord) {
  ScratchDir dir;
  const std::string path = dir / "ck.pt";
  save(big_state_dict(), path, {.sync = false});
  std::string bytes = file_bytes(path);
  const size_t at = bytes.size() / 3;  // inside "a" (12 of the file's ~14 MB)
  bytes[at] = char(bytes[at] ^ 0x01);
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), long(bytes.size()));
  EXPECT_ERROR(load(path, kCopy), "CRC error");
}

// Many records together over 8 MiB are read by all threads at once (ZipReader::read_all): every
// value arrives, and a flip in one record names that record, whichever thread read it.
TEST(CheckpointMmap, CopyingLoadOfManyRecordsChecksEach) {
  ScratchDir dir;
  const std::string path = dir / "many.pt";
  StateDict sd;
  for (int i = 0; i < 6; ++i) sd.insert("w" + std::to_string(i), randn({750'000}));
  save(sd, path, {.sync = false});
  const Value v = load(path, kCopy);
  for (const auto& [key, t] : sd) EXPECT_TRUE(v[key].to_tensor().equal(t)) << key;

  std::string bytes = file_bytes(path);
  const size_t at = bytes.size() * 9 / 12;  // inside the fifth of six 3 MB records
  bytes[at] = char(bytes[at] ^ 0x40);
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), long(bytes.size()));
  EXPECT_ERROR(load(path, kCopy), "record 'archive/data/4' is truncated or corrupt: CRC error");
}

// Records of odd byte counts (the CRC's whole 64- and 16-byte blocks, then a tail of 1..15 bytes;
// 256 KiB pieces and a short last one), in a checkpoint under and over the 8 MiB from which the
// threads share the reading: every byte arrives, and a flip in the tail of the last record, past
// its last whole block, is refused.
TEST(CheckpointMmap, CopyingLoadOfOddSizedRecords) {
  ScratchDir dir;
  for (const int64_t big : {int64_t(0), int64_t(9) << 20}) {
    StateDict sd;
    for (int64_t n : {1, 15, 17, 63, 65, 255, 257, 4099})
      sd.insert("u" + std::to_string(n), randint(0, 256, {n}, {.dtype = kUInt8}));
    if (big) sd.insert("big", randint(0, 256, {big + 7}, {.dtype = kUInt8}));
    sd.insert("last", randint(0, 256, {1000003}, {.dtype = kUInt8}));
    const std::string path = dir / ("odd" + std::to_string(big) + ".pt");
    save(sd, path, {.sync = false});
    const Value v = load(path, kCopy);
    for (const auto& [key, t] : sd) EXPECT_TRUE(v[key].to_tensor().equal(t)) << key;

    std::string bytes = file_bytes(path);
    // The last record's data ends where its zip entry's data ends: find its last byte by
    // content, 2 bytes before the end of the 1000003-byte record.
    const auto* last = static_cast<const char*>(sd.at("last").data_ptr());
    const size_t start = bytes.find(std::string(last, 64));
    ASSERT_NE(start, std::string::npos);
    const size_t at = start + 1000003 - 2;
    bytes[at] = char(bytes[at] ^ 0x08);
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), long(bytes.size()));
    SCOPED_TRACE("big " + std::to_string(big));
    EXPECT_ERROR(load(path, kCopy), "CRC error");
  }
}

}  // namespace
}  // namespace ember::test
