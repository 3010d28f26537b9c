// Python's pickle, the subset torch.save uses (protocol 2): opcodes, a writer that emits them,
// and the allowlist unpickler that turns data.pkl back into a Value without running anything.
// See Note [Allowlist unpickler] in unpickler.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "ember/dtype.h"
#include "ember/storage.h"
#include "ember/value.h"

namespace ember::serialize {

// Opcodes by their names in Python's pickletools.
enum Opcode : uint8_t {
  kMark = '(', kStop = '.', kPop = '0', kPopMark = '1', kBinInt = 'J', kBinInt1 = 'K',
  kBinInt2 = 'M', kNone = 'N', kBinPersId = 'Q', kReduce = 'R', kShortBinString = 'U',
  kBinString = 'T', kBinUnicode = 'X', kAppend = 'a', kBuild = 'b', kGlobal = 'c', kAppends = 'e',
  kBinGet = 'h', kLongBinGet = 'j', kBinPut = 'q', kLongBinPut = 'r', kSetItem = 's',
  kTuple = 't', kSetItems = 'u', kBinFloat = 'G', kEmptyList = ']', kEmptyTuple = ')',
  kEmptyDict = '}', kProto = 0x80, kTuple1 = 0x85, kTuple2 = 0x86, kTuple3 = 0x87,
  kNewTrue = 0x88, kNewFalse = 0x89, kLong1 = 0x8a, kShortBinUnicode = 0x8c, kMemoize = 0x94,
  kFrame = 0x95, kNewObj = 0x81, kBinUnicode8 = 0x8d, kStackGlobal = 0x93,
};

/// "GLOBAL", "REDUCE", ... for error messages; "unknown" for bytes that are no opcode.
const char* opcode_name(uint8_t op);

/// Appends protocol-2 opcodes to a byte string. The caller keeps the stack discipline.
class PickleWriter {
 public:
  void proto() { put(kProto), put(2); }
  void stop() { put(kStop); }
  void op(Opcode o) { put(o); }
  void none() { put(kNone); }
  void boolean(bool v) { put(v ? kNewTrue : kNewFalse); }
  void integer(int64_t v);     // BININT1/2, BININT or LONG1: the shortest, as Python's pickler
  void real(double v);         // BINFLOAT (big-endian, as pickle)
  void string(std::string_view s);  // BINUNICODE
  /// GLOBAL module.name, memoized so that repeats cost a BINGET.
  void global(const std::string& module, const std::string& name);
  /// Memoizes the top of the stack; returns its index for get().
  uint32_t put_memo();
  void get(uint32_t index);
  const std::string& bytes() const { return out_; }

 private:
  void put(uint8_t b) { out_.push_back(char(b)); }
  void put_le(uint64_t v, int n);
  std::string out_;
  uint32_t next_memo_ = 0;
  std::vector<std::pair<std::string, uint32_t>> globals_;
};

/// A storage reference from data.pkl: ('storage', torch.<T>Storage, key, location, numel).
struct StorageRef {
  std::string key;
  Dtype dtype;
  std::string location;
  int64_t numel;
};

/// Reads data.pkl. `load_storage` returns the (CPU) storage for a reference; it is called once
/// per reference and must itself cache by key and check the record's size. `device_of` maps a
/// saved location to the device the tensor goes to.
struct UnpickleOptions {
  bool weights_only = true;
  std::function<Storage(const StorageRef&)> load_storage;
  std::function<Device(const std::string& location)> device_of;
};
Value unpickle(std::string_view data, const UnpickleOptions& options);

}  // namespace ember::serialize
