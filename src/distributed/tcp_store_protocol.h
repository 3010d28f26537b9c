// The TCP store's wire format, which is PyTorch's c10d TCPStore protocol, shared by the client
// (tcp_store.cpp) and the server (tcp_store_server.cpp).
// Note [PyTorch's TCPStore protocol]: a request is one code byte and its fields; a string or a
// value is a u64 length and the bytes; counts are u64; integers are i64; all little-endian (the
// host's order, as c10d's tcputil sends them). Clients put "/" before every key (c10d's
// keyPrefix_), so a key "a" travels as "/a". Replies:
//   set, append, multi_set, validate -> nothing          get, compare_set -> value
//   add, num_keys, delete_key        -> i64              check -> u8 0 ready / 1 not ready
//   wait -> u8 0 once every key exists                   multi_get -> one value per key
//   cancel_wait -> u8 1 (after a pending 0, if any)      ping(u32) -> the same u32
//   watch_key -> u8 3, then per change of the key: u8 kind, key, old value, new value
// The codes come in two numberings (Dialect), read from PyTorch's sources:
//  - v1: 1.13 and 2.0 (TCPStore.cpp's QueryType: SET=0 .. WATCH_KEY=7, DELETE_KEY=8). Debian's
//    1.13 is checked against it in tests (tests/golden/tcpstore_1.13_*.txt were recorded from it).
//  - v2: from mid-2023 (in 2.1 or 2.2; the release tag was not checked): watchKey was removed
//    (PR #105014) and VALIDATE inserted as code 0 (PR #107607), shifting SET..GETNUMKEYS up by
//    one; APPEND/MULTI_GET/MULTI_SET/CANCEL_WAIT (PR #100383, #100633) follow, then PING (13).
//    Every connection of a v2 client starts with VALIDATE and the u32 0x3C85F7CE; v2 servers drop
//    (TCPStoreBackend.cpp) or never answer (the libuv backend) a connection that does not.
//    The later queue requests (QUEUE_PUSH/POP/LEN) are not served: an unknown code drops the
//    connection, as PyTorch's servers do.
// ember adds one request of its own, watch_connection (code 0xE0, unused by every version), sent
// only to a server that answered the probe below: the server sets a key when that connection
// closes (dead-peer detection, group.cpp: departed_peers).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ember::dist::wire {

enum class Dialect : uint8_t { v1, v2 };

enum class Op : uint8_t {
  validate,
  set,
  compare_set,
  get,
  add,
  check,
  wait,
  num_keys,
  watch_key,
  delete_key,
  append,
  multi_get,
  multi_set,
  cancel_wait,
  ping,
  watch_connection
};

constexpr uint32_t kValidationMagic = 0x3C85F7CE;
constexpr uint8_t kReady = 0, kNotReady = 1;            // check
constexpr uint8_t kStopWaiting = 0, kWaitCanceled = 1;  // wait, cancel_wait
// watch_key's messages (v1's WatchResponseType).
constexpr uint8_t kKeyUpdated = 0, kKeyCreated = 1, kKeyDeleted = 2, kWatchRegistered = 3;

// Note [Which server is this]: a client learns what it talks to from one request on a throwaway
// connection, which it half-closes at once: v1's check of kProbeKey. ember's server answers
// "ready" (it has the extensions and reads both dialects), a v1 PyTorch server "not ready" (no
// client can make that key: theirs start with "/"), and a v2 server nothing before closing (the
// request is not VALIDATE). Nothing is stored or blocked on any of them, and nothing is timed.
inline const std::string kProbeKey = "ember/extensions";
// The count of workers that PyTorch's TCPStore keeps (Note [PyTorch's init/ counter],
// tcp_store_workers.h), the one key its clients send without the "/" before it.
inline const std::string kWorkerCountKey = "init/";

/// The code of op in a dialect; nullopt when that dialect has no such request.
std::optional<uint8_t> code_of(Dialect dialect, Op op);
/// The request a code stands for; nullopt for a code the dialect does not define.
std::optional<Op> op_of(Dialect dialect, uint8_t code);

/// Builds one request or reply.
struct Writer {
  std::string bytes;
  Writer& u8(uint8_t v) {
    bytes.push_back(static_cast<char>(v));
    return *this;
  }
  template <class T>
  Writer& raw(T v) {
    bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
    return *this;
  }
  Writer& op(Dialect dialect, Op o) { return u8(*code_of(dialect, o)); }
  Writer& i64(int64_t v) { return raw(v); }
  Writer& u32(uint32_t v) { return raw(v); }
  Writer& str(const std::string& s) {
    raw(static_cast<uint64_t>(s.size()));
    bytes.append(s);
    return *this;
  }
  Writer& strs(const std::vector<std::string>& keys) {
    raw(static_cast<uint64_t>(keys.size()));
    for (const auto& k : keys) str(k);
    return *this;
  }
};

/// Reads fields from a buffer that may end mid-message: every read returns false then, and the
/// caller waits for more bytes and parses the message again from its start. A string longer than
/// kMaxLength or a list of more than kMaxKeys sets `malformed` (the peer is not speaking this
/// protocol, or is hostile), as does a message that would not fit kMaxMessage: the server drops
/// such a connection, so what one connection makes it hold stays bounded. PyTorch's libuv server
/// draws the same kind of line lower (8 KiB keys, 8 MiB values, 128 Ki keys a request).
struct Reader {
  static constexpr uint64_t kMaxLength = uint64_t{64} << 20;
  static constexpr uint64_t kMaxKeys = uint64_t{128} << 10;
  static constexpr uint64_t kMaxMessage = uint64_t{256} << 20;
  std::string_view bytes;
  size_t at = 0;
  bool malformed = false;
  bool raw(void* out, size_t n) {
    if (bytes.size() - at < n) return false;
    std::memcpy(out, bytes.data() + at, n);
    at += n;
    return true;
  }
  bool u8(uint8_t& v) { return raw(&v, 1); }
  bool u32(uint32_t& v) { return raw(&v, 4); }
  bool i64(int64_t& v) { return raw(&v, 8); }
  bool length(uint64_t& n, uint64_t most = kMaxLength) {
    if (!raw(&n, 8)) return false;
    if (n > most) malformed = true;
    return !malformed;
  }
  bool str(std::string& s) {
    uint64_t n;
    if (!length(n) || bytes.size() - at < n) return false;
    s.assign(bytes.data() + at, n);
    at += n;
    return true;
  }
  /// A count of items (at most kMaxKeys) of at least `min_bytes` each: false, and nothing to
  /// allocate yet, until that many bytes have arrived, so no claim allocates ahead of its bytes.
  bool items(uint64_t& n, size_t min_bytes) {
    return length(n, kMaxKeys) && n <= (bytes.size() - at) / min_bytes;
  }
  bool strs(std::vector<std::string>& keys) {
    uint64_t n;
    if (!items(n, 8)) return false;  // each key takes >= 8 bytes
    keys.resize(n);
    for (auto& k : keys)
      if (!str(k)) return false;
    return true;
  }
};

}  // namespace ember::dist::wire
