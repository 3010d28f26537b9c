// The TCP store's wire format, shared by the client (tcp_store.cpp) and the server
// (tcp_store_server.cpp). A request is one op byte and its fields; strings are a u32 length and
// the bytes, integers are little-endian i64 (both ends run on this machine's architecture).
//   set(key, value)            -> u8 1
//   get(key)                   -> string   (answered once the key exists)
//   add(key, i64)              -> u8 1, i64 | u8 0, error message
//   compare_set(key, exp, des) -> string
//   check(u32 n, n keys)       -> u8 0/1
//   wait(u32 n, n keys)        -> u8 1     (answered once every key exists)
//   delete_key(key)            -> u8 0/1
//   num_keys()                 -> i64
//   watch(key)                 -> u8 1     (the server sets key when this connection closes)
// A client that gives up waiting closes its connection; the server then forgets its waiters.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace ember::dist::wire {

enum class Op : uint8_t {
  set = 'S', get = 'G', add = 'A', compare_set = 'C', check = 'K', wait = 'W',
  delete_key = 'D', num_keys = 'N', watch = 'X'
};

/// Builds one message.
struct Writer {
  std::string bytes;
  Writer& op(Op o) {
    bytes.push_back(static_cast<char>(o));
    return *this;
  }
  Writer& u8(uint8_t v) {
    bytes.push_back(static_cast<char>(v));
    return *this;
  }
  Writer& i64(int64_t v) {
    bytes.append(reinterpret_cast<const char*>(&v), 8);
    return *this;
  }
  Writer& str(const std::string& s) {
    const auto n = static_cast<uint32_t>(s.size());
    bytes.append(reinterpret_cast<const char*>(&n), 4).append(s);
    return *this;
  }
  Writer& strs(const std::vector<std::string>& keys) {
    const auto n = static_cast<uint32_t>(keys.size());
    bytes.append(reinterpret_cast<const char*>(&n), 4);
    for (const auto& k : keys) str(k);
    return *this;
  }
};

/// Reads fields from a buffer that may end mid-message: every read returns false then, and the
/// caller waits for more bytes and parses the message again from its start.
struct Reader {
  const std::string& bytes;
  size_t at = 0;
  bool raw(void* out, size_t n) {
    if (bytes.size() - at < n) return false;
    std::memcpy(out, bytes.data() + at, n);
    at += n;
    return true;
  }
  bool u8(uint8_t& v) { return raw(&v, 1); }
  bool i64(int64_t& v) { return raw(&v, 8); }
  bool str(std::string& s) {
    uint32_t n;
    if (!raw(&n, 4) || bytes.size() - at < n) return false;
    s.assign(bytes.data() + at, n);
    at += n;
    return true;
  }
  bool strs(std::vector<std::string>& keys) {
    uint32_t n;
    if (!raw(&n, 4) || n > (bytes.size() - at) / 4) return false;  // each key takes >= 4 bytes
    keys.resize(n);
    for (auto& k : keys)
      if (!str(k)) return false;
    return true;
  }
};

}  // namespace ember::dist::wire
