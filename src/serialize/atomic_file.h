// AtomicFile: replaces a file so that readers see the old or the new content, never a mix or
// nothing. The new content goes to a temporary file in the same directory (rename is atomic only
// within one filesystem), is fsynced, renamed over the target, and the directory is fsynced.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ember::serialize {

class AtomicFile {
 public:
  /// Creates the temporary file; an unwritable directory throws "[op] cannot write '<path>'".
  /// durable = false skips the fsyncs: the replacement stays atomic for readers, but a power
  /// loss may leave the new name pointing at incomplete data.
  AtomicFile(const std::string& path, const char* op, bool durable = true);
  ~AtomicFile();  // removes the temporary file unless committed
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::string& path() const { return path_; }
  /// Appends bytes (after the furthest byte written so far). Small appends are buffered; one of
  /// 64 KiB or more is written at once, straight from `data`.
  void write(const void* data, size_t size);
  /// Writes bytes at `offset` (zip writers go back to fill in a header's sizes and CRC).
  void write_at(uint64_t offset, const void* data, size_t size);
  /// Writes what is buffered, syncs the temporary file, renames it over path and syncs the
  /// directory.
  void commit();

 private:
  void flush();
  void pwrite_all(uint64_t offset, const char* data, size_t size);

  std::string path_, tmp_;
  const char* op_;
  bool durable_;
  int fd_ = -1;
  // Small appends (zip headers, small records) are gathered into one buffer: a system call per
  // header costs more than the copy. The buffer holds bytes [end_ - buffer_.size(), end_).
  std::vector<char> buffer_;
  uint64_t end_ = 0;        // one past the furthest byte written or buffered
  uint64_t submitted_ = 0;  // bytes [0, submitted_) were handed to the kernel's writeback
};

}  // namespace ember::serialize
