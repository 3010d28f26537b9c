// ZipWriter writes the zip layout itself (no libzip): what it writes must read back through
// libzip (ZipReader, which checks every CRC on a copying read), keep each entry's data on a
// 64-byte offset, get zip64 fields right where 32-bit ones overflow (forced here with a lowered
// threshold: CI cannot write 4 GiB), and be the same bytes for the same entries.
#include <fstream>
#include <numeric>

#include "serialize/checkpoint_helpers.h"
#include "serialize/zip_archive.h"

namespace ember::test {
namespace {

std::string pattern(size_t n, uint8_t seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = char(uint8_t(i * 131 + seed * 7 + (i >> 9)));
  return s;
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// Entries of several sizes: empty, tiny, around the 64 KiB direct-write and 256 KiB piece
// boundaries, and a few MiB.
const std::vector<std::pair<std::string, std::string>>& entries() {
  static const std::vector<std::pair<std::string, std::string>> e = {
      {"archive/data.pkl", pattern(97, 1)},      {"archive/byteorder", "little"},
      {"archive/data/0", pattern(65535, 2)},     {"archive/data/1", pattern(65536, 3)},
      {"archive/data/2", pattern(262145, 4)},    {"archive/data/3", std::string()},
      {"archive/data/4", pattern(3 << 20, 5)},   {"archive/version", "3\n"}};
  return e;
}

std::string write(const ScratchDir& dir, const std::string& name, uint64_t zip64_threshold) {
  const std::string path = dir / name;
  serialize::ZipWriter zip(path, /*durable=*/false);
  zip.zip64_threshold = zip64_threshold;
  for (const auto& [entry, bytes] : entries()) zip.add(entry, bytes.data(), bytes.size());
  zip.commit();
  return path;
}

void expect_reads_back(const std::string& path) {
  serialize::ZipReader zip(path);
  std::vector<std::string> want;
  for (const auto& [entry, bytes] : entries()) want.push_back(entry);
  EXPECT_EQ(zip.names(), want);
  for (const auto& [entry, bytes] : entries()) {
    ASSERT_EQ(zip.size(entry), bytes.size()) << entry;
    std::string got(bytes.size(), '\0');
    zip.read(entry, got.data(), got.size());  // checks the CRC
    EXPECT_TRUE(got == bytes) << entry;
    if (bytes.empty()) continue;
    Storage view = zip.view(entry, 64);  // only when stored on a 64-byte offset
    ASSERT_TRUE(view) << entry << " is not viewable in place";
    EXPECT_EQ(std::memcmp(view->data(), bytes.data(), bytes.size()), 0) << entry;
  }
}

TEST(ZipWriter, EntriesReadBackThroughLibzipOnAlignedOffsets) {
  ScratchDir dir;
  expect_reads_back(write(dir, "plain.zip", 0xFFFFFFFFull));
}

TEST(ZipWriter, Zip64FieldsReadBackThroughLibzip) {
  ScratchDir dir;
  // Every entry of 1000 bytes or more, every offset past 1000 and the directory get zip64.
  const std::string path = write(dir, "zip64.zip", 1000);
  expect_reads_back(path);
  const std::string bytes = slurp(path);
  EXPECT_NE(bytes.find(std::string("PK\x06\x06", 4)), std::string::npos) << "no zip64 end record";
  EXPECT_NE(bytes.find(std::string("PK\x06\x07", 4)), std::string::npos) << "no zip64 locator";
}

TEST(ZipWriter, SameEntriesGiveTheSameBytes) {
  ScratchDir dir;
  const std::string a = slurp(write(dir, "a.zip", 0xFFFFFFFFull));
  const std::string b = slurp(write(dir, "b.zip", 0xFFFFFFFFull));
  EXPECT_FALSE(a.empty());
  EXPECT_TRUE(a == b) << "the archive depends on more than its entries (a time stamp?)";
}

TEST(ZipWriter, AFlippedByteIsCaughtByTheCrc) {
  ScratchDir dir;
  const std::string path = write(dir, "flip.zip", 0xFFFFFFFFull);
  std::string bytes = slurp(path);
  const std::string& big = entries()[6].second;
  const size_t at = bytes.find(big.substr(0, 4096));
  ASSERT_NE(at, std::string::npos);
  bytes[at + big.size() / 2] ^= 0x10;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  serialize::ZipReader zip(path);
  std::string out(big.size(), '\0');
  const std::string msg = message_of([&] { zip.read("archive/data/4", out.data(), out.size()); });
  EXPECT_NE(msg.find("CRC"), std::string::npos) << msg;
}

}  // namespace
}  // namespace ember::test
