// What every store shares: the timeout error that names the keys, the integer encoding of add()
// and compare_set's rule, so HashStore, FileStore and the TCP server behave identically.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ember::dist::detail {

/// "'a', 'b'" — the keys as an error message shows them.
std::string quoted_keys(const std::vector<std::string>& keys);

/// Throws "[op] timed out after <t> waiting for key(s) 'a', 'b'<where>", naming the keys that
/// were still missing.
[[noreturn]] void throw_wait_timeout(const char* op, const std::vector<std::string>& keys,
                                     std::chrono::milliseconds timeout, const std::string& where);

/// "3 s" / "250 ms": a duration as messages print it.
std::string format_duration(std::chrono::milliseconds duration);

/// The key-value semantics of every store, on one map: add() keeps decimal text (so get() of a
/// counter reads "3", as in c10d) and compare_set follows c10d's rule.
struct KeyValueMap {
  std::map<std::string, std::string> values;

  bool has_all(const std::vector<std::string>& keys) const;
  std::vector<std::string> missing(const std::vector<std::string>& keys) const;
  int64_t add(const char* op, const std::string& key, int64_t delta);
  std::string compare_set(const std::string& key, const std::string& expected,
                          const std::string& desired);
};

}  // namespace ember::dist::detail
