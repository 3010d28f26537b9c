// PickleWriter: the protocol-2 opcodes torch.save emits, encoded as CPython's pickler does.
#include <bit>
#include <cstring>

#include "serialize/pickle.h"

namespace ember::serialize {

const char* opcode_name(uint8_t op) {
  switch (op) {
    case kMark: return "MARK";
    case kStop: return "STOP";
    case kPop: return "POP";
    case kPopMark: return "POP_MARK";
    case kBinInt: return "BININT";
    case kBinInt1: return "BININT1";
    case kBinInt2: return "BININT2";
    case kNone: return "NONE";
    case kBinPersId: return "BINPERSID";
    case kReduce: return "REDUCE";
    case kShortBinString: return "SHORT_BINSTRING";
    case kBinString: return "BINSTRING";
    case kBinUnicode: return "BINUNICODE";
    case kAppend: return "APPEND";
    case kBuild: return "BUILD";
    case kGlobal: return "GLOBAL";
    case kAppends: return "APPENDS";
    case kBinGet: return "BINGET";
    case kLongBinGet: return "LONG_BINGET";
    case kBinPut: return "BINPUT";
    case kLongBinPut: return "LONG_BINPUT";
    case kSetItem: return "SETITEM";
    case kTuple: return "TUPLE";
    case kSetItems: return "SETITEMS";
    case kBinFloat: return "BINFLOAT";
    case kEmptyList: return "EMPTY_LIST";
    case kEmptyTuple: return "EMPTY_TUPLE";
    case kEmptyDict: return "EMPTY_DICT";
    case kProto: return "PROTO";
    case kTuple1: return "TUPLE1";
    case kTuple2: return "TUPLE2";
    case kTuple3: return "TUPLE3";
    case kNewTrue: return "NEWTRUE";
    case kNewFalse: return "NEWFALSE";
    case kLong1: return "LONG1";
    case kShortBinUnicode: return "SHORT_BINUNICODE";
    case kMemoize: return "MEMOIZE";
    case kFrame: return "FRAME";
    // Opcodes a checkpoint never needs; named so that a rejection says what the file tried.
    case 'I': return "INT";
    case 'L': return "LONG";
    case 'F': return "FLOAT";
    case 'S': return "STRING";
    case 'V': return "UNICODE";
    case 'P': return "PERSID";
    case 'g': return "GET";
    case 'p': return "PUT";
    case 'l': return "LIST";
    case 'd': return "DICT";
    case 'i': return "INST";
    case 'o': return "OBJ";
    case '2': return "DUP";
    case kNewObj: return "NEWOBJ";
    case 0x82: return "EXT1";
    case 0x83: return "EXT2";
    case 0x84: return "EXT4";
    case 0x8b: return "LONG4";
    case kBinUnicode8: return "BINUNICODE8";
    case 0x8e: return "BINBYTES8";
    case 0x8f: return "EMPTY_SET";
    case 0x90: return "ADDITEMS";
    case 0x91: return "FROZENSET";
    case 0x92: return "NEWOBJ_EX";
    case kStackGlobal: return "STACK_GLOBAL";
    case 0x96: return "BYTEARRAY8";
    case 0x97: return "NEXT_BUFFER";
    case 0x98: return "READONLY_BUFFER";
    case 'B': return "BINBYTES";
    case 'C': return "SHORT_BINBYTES";
    default: return "unknown";
  }
}

void PickleWriter::put_le(uint64_t v, int n) {
  for (int i = 0; i < n; ++i) put(uint8_t(v >> (8 * i)));
}

void PickleWriter::integer(int64_t v) {
  if (v >= 0 && v < 256) {
    put(kBinInt1), put(uint8_t(v));
  } else if (v >= 0 && v < 65536) {
    put(kBinInt2), put_le(uint64_t(v), 2);
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    put(kBinInt), put_le(uint64_t(v), 4);
  } else {
    // LONG1: little-endian two's complement in as few bytes as keep the sign.
    int n = 8;
    while (n > 1) {
      const int64_t shifted = v >> (8 * (n - 1) - 1);  // the top byte plus the next sign bit
      if (shifted != 0 && shifted != -1) break;
      --n;
    }
    put(kLong1), put(uint8_t(n)), put_le(uint64_t(v), n);
  }
}

void PickleWriter::real(double v) {
  put(kBinFloat);
  const uint64_t bits = std::bit_cast<uint64_t>(v);
  for (int i = 7; i >= 0; --i) put(uint8_t(bits >> (8 * i)));
}

void PickleWriter::string(std::string_view s) {
  put(kBinUnicode), put_le(s.size(), 4);
  out_.append(s);
}

void PickleWriter::global(const std::string& module, const std::string& name) {
  const std::string full = module + "\n" + name + "\n";
  for (const auto& [g, index] : globals_)
    if (g == full) return get(index);
  put(kGlobal);
  out_ += full;
  globals_.emplace_back(full, put_memo());
}

uint32_t PickleWriter::put_memo() {
  const uint32_t index = next_memo_++;
  if (index < 256) put(kBinPut), put(uint8_t(index));
  else put(kLongBinPut), put_le(index, 4);
  return index;
}

void PickleWriter::get(uint32_t index) {
  if (index < 256) put(kBinGet), put(uint8_t(index));
  else put(kLongBinGet), put_le(index, 4);
}

}  // namespace ember::serialize
