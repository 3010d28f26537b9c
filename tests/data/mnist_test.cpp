// idx parsing and the MNIST readers: small fixtures written at runtime (plain and gzipped, valid,
// truncated, corrupt, inconsistent) must load or fail with a message naming the problem; the
// installed Fashion-MNIST (dataset-fashion-mnist) has the published sizes and first image.
#include <gtest/gtest.h>
#include <zlib.h>

#include <ember/creation.h>
#include <ember/data.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace ember;
using namespace ember::data;
namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

namespace {

// Fixtures live under one per-process directory, removed when the program exits.
const fs::path& fixture_root() {
  static const struct Root {
    fs::path path = fs::temp_directory_path() / ("ember_mnist_test_" + std::to_string(getpid()));
    ~Root() { fs::remove_all(path); }
  } root;
  return root.path;
}

fs::path temp_dir(const std::string& name) {
  const fs::path p = fixture_root() / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

void put32(Bytes& b, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) b.push_back(uint8_t(v >> s));
}

// An idx file of n 28x28 images whose pixel (i, y, x) is (i + y + x) % 256.
Bytes images_idx(uint32_t n) {
  Bytes b = {0, 0, 0x08, 3};
  put32(b, n);
  put32(b, 28);
  put32(b, 28);
  for (uint32_t i = 0; i < n; ++i)
    for (int y = 0; y < 28; ++y)
      for (int x = 0; x < 28; ++x) b.push_back(uint8_t((i + y + x) % 256));
  return b;
}

Bytes labels_idx(const Bytes& labels) {
  Bytes b = {0, 0, 0x08, 1};
  put32(b, uint32_t(labels.size()));
  b.insert(b.end(), labels.begin(), labels.end());
  return b;
}

void write_plain(const fs::path& p, const Bytes& b) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

void write_gz(const fs::path& p, const Bytes& b) {
  gzFile f = gzopen(p.c_str(), "wb");
  gzwrite(f, b.data(), unsigned(b.size()));
  gzclose(f);
}

Bytes read_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(f), {});
}

// Runs fn, expecting an ember::Error whose message contains every fragment.
template <class F>
void expect_error(F fn, std::vector<std::string> fragments) {
  try {
    fn();
    ADD_FAILURE() << "expected an ember::Error";
  } catch (const Error& e) {
    for (const auto& f : fragments) {
      EXPECT_NE(std::string(e.what()).find(f), std::string::npos)
          << "message: " << e.what() << "\nmissing: " << f;
    }
  }
}

TEST(ReadIdx, PlainAndGzippedGiveTheSameTensor) {
  const fs::path d = temp_dir("read");
  write_plain(d / "a", images_idx(3));
  write_gz(d / "a.gz", images_idx(3));
  for (const char* name : {"a", "a.gz"}) {
    Tensor t = read_idx((d / name).string());
    EXPECT_EQ(t.dtype(), kUInt8);
    EXPECT_EQ(t.sizes(), (std::vector<int64_t>{3, 28, 28}));
    EXPECT_EQ(t.index({2, 5, 7}).item<int64_t>(), 14);
  }
  // Multi-byte types are big-endian in the file.
  Bytes f = {0, 0, 0x0C, 1};
  put32(f, 2);
  put32(f, 0x01020304);
  put32(f, uint32_t(-5));
  write_plain(d / "ints", f);
  Tensor ints = read_idx((d / "ints").string());
  EXPECT_EQ(ints.dtype(), kInt32);
  EXPECT_EQ(ints.index({0}).item<int64_t>(), 0x01020304);
  EXPECT_EQ(ints.index({1}).item<int64_t>(), -5);
}

TEST(ReadIdx, TruncatedAndCorruptFilesAreClearErrors) {
  const fs::path d = temp_dir("bad");
  Bytes full = images_idx(4);
  write_plain(d / "short", Bytes(full.begin(), full.end() - 100));
  expect_error([&] { read_idx((d / "short").string()); },
               {"[read_idx]", "short", "truncated", "[4, 28, 28]", "3152 bytes", "3052"});
  write_plain(d / "long", [&] { Bytes b = full; b.push_back(1); return b; }());
  expect_error([&] { read_idx((d / "long").string()); }, {"trailing data"});
  // Dims whose product overflows 64 bits (found by tests/fuzz/idx_fuzzer): truncated, not UB.
  Bytes huge = {0, 0, 0x08, 3};
  for (int k = 0; k < 3; ++k) put32(huge, 0xFFFFFFF0u);
  write_plain(d / "huge", huge);
  expect_error([&] { read_idx((d / "huge").string()); },
               {"truncated", "[4294967280, 4294967280, 4294967280]", "more than any file holds"});
  write_plain(d / "header", Bytes(full.begin(), full.begin() + 9));
  expect_error([&] { read_idx((d / "header").string()); }, {"truncated header"});
  write_plain(d / "magic", Bytes{'h', 'e', 'l', 'l', 'o', 0, 0, 0});
  expect_error([&] { read_idx((d / "magic").string()); }, {"not an idx file", "104 101 108 108"});
  expect_error([&] { read_idx((d / "absent").string()); }, {"[read_idx]", "no such file"});

  // A gzip stream cut short, and one with damaged bytes (bad codes or CRC).
  write_gz(d / "ok.gz", full);
  const Bytes gz = read_bytes(d / "ok.gz");
  write_plain(d / "cut.gz", Bytes(gz.begin(), gz.begin() + gz.size() / 2));
  expect_error([&] { read_idx((d / "cut.gz").string()); }, {"cut.gz", "gzip"});
  Bytes damaged = gz;
  for (size_t i = 20; i < damaged.size() - 12; i += 7) damaged[i] ^= 0x5A;
  write_plain(d / "damaged.gz", damaged);
  expect_error([&] { read_idx((d / "damaged.gz").string()); }, {"damaged.gz", "corrupt"});
}

TEST(MNIST, LoadsAFixtureDirectory) {
  const fs::path d = temp_dir("fixture");
  write_gz(d / "train-images-idx3-ubyte.gz", images_idx(5));
  write_plain(d / "train-labels-idx1-ubyte", labels_idx({3, 1, 4, 1, 5}));
  MNIST ds({.root = d.string()});
  EXPECT_EQ(ds.size(), 5);
  auto [image, label] = ds.get(2);
  EXPECT_EQ(image.sizes(), (std::vector<int64_t>{28, 28}));
  EXPECT_EQ(image.index({1, 1}).item<int64_t>(), 4);
  EXPECT_EQ(label.item<int64_t>(), 4);
  EXPECT_EQ(label.dtype(), kInt64);
  // The transform runs per sample.
  MNIST scaled({.root = d.string(), .transform = transforms::ToTensor()});
  EXPECT_EQ(scaled.get(0).data.sizes(), (std::vector<int64_t>{1, 28, 28}));
  // The test split is absent here.
  expect_error([&] { MNIST({.root = d.string(), .train = false}); },
               {"[MNIST] missing t10k-images-idx3-ubyte[.gz]"});
}

TEST(MNIST, InconsistentFilesAreErrors) {
  const fs::path d = temp_dir("inconsistent");
  write_plain(d / "train-images-idx3-ubyte", images_idx(5));
  write_plain(d / "train-labels-idx1-ubyte", labels_idx({3, 1, 4}));
  expect_error([&] { FashionMNIST({.root = d.string()}); }, {"[FashionMNIST]", "5 images", "3 labels"});
  write_plain(d / "train-labels-idx1-ubyte", labels_idx({3, 1, 4, 12, 0}));
  expect_error([&] { FashionMNIST({.root = d.string()}); }, {"label 12 at index 3"});
}

TEST(FashionMNIST, MissingDirectorySaysHowToGetTheData) {
  expect_error([] { FashionMNIST({.root = "/nonexistent/fashion"}); },
               {"[FashionMNIST] dataset directory /nonexistent/fashion not found",
                "train-images-idx3-ubyte[.gz]", "scripts/bootstrap.sh", "dataset-fashion-mnist"});
}

TEST(FashionMNIST, InstalledDatasetSizesAndFirstImage) {
  if (!fs::is_directory(FashionMNIST::kDefaultRoot)) {
    GTEST_SKIP() << "dataset-fashion-mnist is not installed (scripts/bootstrap.sh installs it)";
  }
  FashionMNIST train, test({.train = false});
  EXPECT_EQ(train.size(), 60000);
  EXPECT_EQ(test.size(), 10000);
  EXPECT_EQ(train.images().sizes(), (std::vector<int64_t>{60000, 28, 28}));
  // Checksums from Python's gzip module over the same files.
  EXPECT_EQ(train.images().index({0}).to(kInt64).sum().item<int64_t>(), 76247);
  EXPECT_EQ(train.images().to(kInt64).sum().item<int64_t>(), 3431114169);
  EXPECT_EQ(test.images().index({0}).to(kInt64).sum().item<int64_t>(), 33456);
  EXPECT_EQ(train.get(0).target.item<int64_t>(), 9);
  EXPECT_EQ(test.get(2).target.item<int64_t>(), 1);
  // Labels 0..9, 6,000 of each in train.
  Tensor counts = zeros({10}, {.dtype = kInt64});
  const int64_t* t = train.targets().data_ptr<int64_t>();
  for (int64_t i = 0; i < 60000; ++i) {
    ASSERT_TRUE(t[i] >= 0 && t[i] < 10);
    counts.data_ptr<int64_t>()[t[i]] += 1;
  }
  EXPECT_EQ(counts.min().item<int64_t>(), 6000);
  EXPECT_EQ(counts.max().item<int64_t>(), 6000);
  EXPECT_EQ(FashionMNIST::classes()[9], "Ankle boot");
}

}  // namespace
