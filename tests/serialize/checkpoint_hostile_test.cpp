// load() refuses hostile, foreign and damaged files with an ember::Error that says why, and
// never crashes, hangs or allocates what a file merely declares: pickles that call os.system or
// eval, bad storage sizes and views, legacy and TorchScript archives, truncated archives, and
// hand-made data.pkl streams (appends to non-lists, cycles, deep nesting, huge lengths).
#include "serialize/checkpoint_helpers.h"
#include "serialize/zip_archive.h"

namespace ember::test {
namespace {

// A checkpoint-shaped archive around a hand-written data.pkl.
std::string archive(const ScratchDir& dir, const std::string& pickle,
                    const std::vector<std::pair<std::string, std::string>>& records = {}) {
  static int n = 0;
  const std::string path = dir / ("hostile" + std::to_string(n++) + ".pt");
  serialize::ZipWriter zip(path);
  zip.add("archive/data.pkl", pickle.data(), pickle.size());
  for (const auto& [name, bytes] : records) zip.add("archive/" + name, bytes.data(), bytes.size());
  zip.commit();
  return path;
}

std::string load_error(const std::string& path, bool weights_only = true) {
  return message_of([&] { load(path, {.map_location = {}, .weights_only = weights_only}); });
}

#define EXPECT_REFUSED(path, text)                         \
  do {                                                     \
    const std::string msg = load_error(path);              \
    EXPECT_NE(msg.find(text), std::string::npos) << msg;   \
    EXPECT_EQ(msg.rfind("[load] ", 0), 0u) << msg;         \
  } while (0)

// Pickle opcodes by hand (see Python's pickletools for their meaning).
const std::string P = "\x80\x02";  // PROTO 2
std::string le(uint64_t v, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out.push_back(char(v >> (8 * i)));
  return out;
}
// (std::string(op) + ..., not op + ...: GCC 12 warns falsely about the latter.)
std::string U(const std::string& s) { return std::string("X") + le(s.size(), 4) + s; }
std::string I1(int v) { return std::string("K") + le(uint64_t(v), 1); }      // BININT1
std::string I4(int64_t v) { return std::string("J") + le(uint64_t(v), 4); }   // BININT
std::string L8(int64_t v) { return std::string("\x8a\x08") + le(uint64_t(v), 8); }  // LONG1
std::string G(const std::string& module, const std::string& name) {          // GLOBAL
  return std::string("c") + module + "\n" + name + "\n";
}
// BINPERSID ('storage', torch.FloatStorage, key, 'cpu', numel)
std::string storage(const std::string& numel, const std::string& key = "0") {
  return std::string("(") + U("storage") + G("torch", "FloatStorage") + U(key) + U("cpu") + numel +
         "tQ";
}
// {'w': _rebuild_tensor_v2(storage, offset, size, stride, False, ())}
std::string tensor(const std::string& storage, const std::string& offset,
                   const std::string& size, const std::string& stride) {
  return P + "}(" + U("w") + G("torch._utils", "_rebuild_tensor_v2") + "(" + storage + offset +
         "(" + size + "t(" + stride + "t\x89)tRu.";
}
const std::string kFourFloats(16, '\0');

TEST(CheckpointHostile, PicklesThatWouldRunCode) {
  EXPECT_REFUSED(kCheckpoints + "evil_os_system.pt", "global posix.system");
  EXPECT_REFUSED(kCheckpoints + "evil_os_system.pt", "not allowed");
  EXPECT_REFUSED(kCheckpoints + "evil_eval.pt", "global __builtin__.eval");  // protocol 2 name
  // Not even with weights_only=false: ember has no way to call them.
  EXPECT_NE(load_error(kCheckpoints + "evil_eval.pt", false).find("__builtin__.eval"),
            std::string::npos);
}

TEST(CheckpointHostile, BadStoragesAndViews) {
  EXPECT_REFUSED(kCheckpoints + "bad_storage_size.pt",
                 "storage '0' declares 100 torch.float32 elements but record data/0 holds 16 bytes");
  EXPECT_REFUSED(kCheckpoints + "out_of_bounds_view.pt", "reaches outside its storage of 4");
  ScratchDir dir;
  const std::vector<std::pair<std::string, std::string>> four = {{"data/0", kFourFloats}};
  EXPECT_EQ(load(archive(dir, tensor(storage(I1(4)), I1(1), I1(3), I1(1)), four))["w"]
                .to_tensor()
                .numel(),
            3);  // the hand-made archive itself is fine
  // A storage declaring 2^62 elements is refused before anything is allocated.
  EXPECT_REFUSED(archive(dir, tensor(storage(L8(int64_t(1) << 62)), I1(0), I1(4), I1(1)), four),
                 "declares 4611686018427387904 torch.float32 elements");
  // Sizes whose product overflows, negative strides, mismatched ranks, views past the end.
  const std::string big = L8(int64_t(1) << 40);
  EXPECT_REFUSED(archive(dir, tensor(storage(I1(4)), I1(0), big + big, I1(0) + I1(0)), four),
                 "numel overflows");
  EXPECT_REFUSED(archive(dir, tensor(storage(I1(4)), I1(0), I1(2), I4(-1)), four),
                 "negative size or stride");
  EXPECT_REFUSED(archive(dir, tensor(storage(I1(4)), I1(0), I1(2), ""), four),
                 "size has 1 dims but stride has 0");
  EXPECT_REFUSED(archive(dir, tensor(storage(I1(4)), I1(3), I1(2), I1(1)), four),
                 "reaches outside its storage of 4 elements");
  EXPECT_REFUSED(archive(dir, tensor(storage(I1(4)), big, I1(1), I1(1)), four),
                 "reaches outside its storage");
  EXPECT_REFUSED(archive(dir, tensor(storage(I1(4)), I1(0), I1(2), I1(1))),
                 "has no record 'archive/data/0'");
  // A storage key that tries to leave data/.
  EXPECT_REFUSED(archive(dir, tensor(storage(I1(4), "../0"), I1(0), I1(2), I1(1))),
                 "is not a record name");
}

TEST(CheckpointHostile, ForeignFiles) {
  EXPECT_REFUSED(kCheckpoints + "legacy.pt", "legacy (pre-1.6, non-zip) format");
  EXPECT_REFUSED(kCheckpoints + "torchscript.pt", "TorchScript archive");
  ScratchDir dir;
  EXPECT_REFUSED(dir / "missing.pt", "No such file or directory");
  EXPECT_REFUSED(dir.path.string(), "is not a regular file");
  std::ofstream(dir / "text.pt") << "hello, not a checkpoint\n";
  EXPECT_REFUSED(dir / "text.pt", "is not a PyTorch checkpoint (not a zip archive");
  std::ofstream(dir / "empty.pt");
  EXPECT_REFUSED(dir / "empty.pt", "not a zip archive");
  {
    serialize::ZipWriter zip(dir / "other.zip");
    zip.add("folder/readme.txt", "hi", 2);
    zip.commit();
  }
  EXPECT_REFUSED(dir / "other.zip", "no folder/data.pkl");
}

// Every prefix of a real checkpoint, and every byte of it flipped: an error or a value, never a
// crash (this runs under the sanitizers in the fuzz build too).
TEST(CheckpointHostile, TruncatedAndCorruptedArchives) {
  ScratchDir dir;
  std::ifstream in(kCheckpoints + "checkpoint.pt", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  ASSERT_GT(bytes.size(), 1000u);
  const std::string path = dir / "cut.pt";
  for (size_t n = 0; n < bytes.size(); n += 13) {
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), long(n));
    const std::string msg = load_error(path);
    EXPECT_EQ(msg.rfind("[load] ", 0), 0u) << "prefix of " << n << " bytes: " << msg;
  }
  EXPECT_REFUSED(path, "truncated or corrupt zip archive");
  size_t loaded = 0;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    std::string bad = bytes;
    bad[i] = char(bad[i] ^ 0x5a);
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(bad.data(), long(bad.size()));
    try {
      load(path);
      ++loaded;  // a flip in padding or a timestamp is harmless
    } catch (const Error&) {
    }
  }
  EXPECT_LT(loaded, bytes.size() / 3);
}

TEST(CheckpointHostile, MalformedPickles) {
  ScratchDir dir;
  EXPECT_REFUSED(archive(dir, P + "}" + I1(1) + "a."), "APPEND(S) on a Dict, not a list");
  EXPECT_REFUSED(archive(dir, P + "](" + I1(1) + I1(2) + "u."), "SETITEM(S) on a List, not a dict");
  EXPECT_REFUSED(archive(dir, P + "]q" + le(0, 1) + "h" + le(0, 1) + "a."), "contains itself");
  // {1: [d]} where d is the dict itself, through the memo.
  EXPECT_REFUSED(archive(dir, P + "}q" + le(0, 1) + I1(1) + "]h" + le(0, 1) + "as."),
                 "contains itself");
  // A million nested lists: refused by depth, without recursing a million frames.
  const int n = 1000000;
  EXPECT_REFUSED(archive(dir, P + std::string(n, ']') + std::string(n - 1, 'a') + "."),
                 "nests containers deeper than 512");
  EXPECT_REFUSED(archive(dir, P + I1(1) + "r" + le(0xffffffff, 4) + "j" + le(0xfffffffe, 4) + "."),
                 "BINGET of memo entry 4294967294 never put");
  EXPECT_REFUSED(archive(dir, P + std::string("\x8a\x09") + std::string(9, '\x01') + "."),
                 "LONG1 of 9 bytes does not fit in int64");
  EXPECT_REFUSED(archive(dir, P + std::string("X") + le(0xfffffff0, 4) + "abc."),
                 "truncated (needs 4294967280");
  EXPECT_REFUSED(archive(dir, P + G("torch", "FloatStorage") + ")\x81."), "opcode NEWOBJ (0x81)");
  EXPECT_REFUSED(archive(dir, P + G("torch", "FloatStorage") + ")R."),
                 "REDUCE of torch.FloatStorage");
  EXPECT_REFUSED(archive(dir, P + "(" + U("abc") + I1(1) + "tQ."),
                 "a persistent id must be ('storage', class, key, location, numel)");
  EXPECT_REFUSED(archive(dir, P + I1(1) + I1(2) + "."), "STOP with a malformed stack");
  EXPECT_REFUSED(archive(dir, P), "truncated");
  EXPECT_REFUSED(archive(dir, P + "]" + G("collections", "OrderedDict") + "a."),
                 "puts a global in a list");
  EXPECT_REFUSED(archive(dir, P + "}}b."), "BUILD on a Dict (only OrderedDict state");
  EXPECT_REFUSED(archive(dir, P + "cos\nsystem"), "GLOBAL name is not terminated");
}

TEST(CheckpointHostile, WeightsOnlyDecidesExtraGlobals) {
  ScratchDir dir;
  // (torch.device('cuda', 1), _codecs.encode('a\u00ffb', 'latin1'))
  const std::string path = archive(dir, P + G("torch", "device") + U("cuda") + I1(1) + "\x86R" +
                                            G("_codecs", "encode") + U("a\xc3\xbf" "b") +
                                            U("latin1") + "\x86R\x86.");
  EXPECT_REFUSED(path, "global torch.device, which weights_only=true does not allow");
  const Value v = load(path, {.map_location = {}, .weights_only = false});
  EXPECT_EQ(v[0].to_string(), "cuda:1");
  EXPECT_EQ(v[1].to_string(), std::string("a\xff" "b"));  // bytes b'a\xffb'
}

}  // namespace
}  // namespace ember::test
