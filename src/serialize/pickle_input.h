// The bytes of a pickle and a read position in them, which both of ember's unpicklers read their
// opcodes and arguments through: torch.save's data.pkl (serialize/unpickler.cpp) and the
// distributed checkpoint's .metadata (distributed/checkpoint/metadata_reader.cpp). Every read is
// bounds-checked; running out of bytes or meeting an unterminated line calls bad(), which each
// unpickler implements to name its file and the position.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ember::serialize {

class PickleInput {
 protected:
  explicit PickleInput(std::string_view data) : data_(data) {}
  ~PickleInput() = default;

  [[noreturn]] virtual void bad(const std::string& what) const = 0;

  const char* read(size_t n) {
    if (n > data_.size() - pos_) bad("truncated (needs " + std::to_string(n) + " more bytes)");
    const char* p = data_.data() + pos_;
    pos_ += n;
    return p;
  }

  /// An n-byte little-endian unsigned integer.
  uint64_t read_le(int n) {
    const auto* p = reinterpret_cast<const uint8_t*>(read(size_t(n)));
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
  }

  /// Up to the next newline (GLOBAL's module and name), which must come within 256 bytes.
  std::string read_line() {
    const size_t end = data_.find('\n', pos_);
    if (end == std::string_view::npos || end - pos_ > 256) bad("GLOBAL name is not terminated");
    std::string s(data_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return s;
  }

  std::string_view data_;
  size_t pos_ = 0;
};

}  // namespace ember::serialize
