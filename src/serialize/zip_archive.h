// The zip container of PyTorch checkpoints, over libzip: a writer that stores entries
// uncompressed with their data on 64-byte boundaries and replaces the target atomically, and a
// reader that looks records up by name.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "serialize/atomic_file.h"

struct zip;

namespace ember::serialize {

/// Writes `path` atomically: entries go to a temporary file in the same directory, which is
/// fsynced and renamed over `path` by commit(). Destroying an uncommitted writer removes it.
class ZipWriter {
 public:
  explicit ZipWriter(const std::string& path);
  ~ZipWriter();
  ZipWriter(const ZipWriter&) = delete;
  ZipWriter& operator=(const ZipWriter&) = delete;

  /// Adds a stored entry whose bytes start on a 64-byte file offset (PyTorch's
  /// kFieldAlignment, so readers can mmap storages). `data` must stay alive until commit().
  void add(const std::string& name, const void* data, size_t size);
  void commit();

 private:
  AtomicFile file_;
  zip* archive_ = nullptr;
  uint64_t offset_ = 0;  // where the next local header starts
};

class ZipReader {
 public:
  /// Opens a zip archive; a missing or non-zip file throws ember::Error (legacy PyTorch files
  /// and truncated archives are named as such).
  explicit ZipReader(const std::string& path);
  ~ZipReader();
  ZipReader(const ZipReader&) = delete;
  ZipReader& operator=(const ZipReader&) = delete;

  std::vector<std::string> names() const;
  bool has(const std::string& name) const;
  /// The entry's uncompressed size; throws when absent.
  uint64_t size(const std::string& name) const;
  /// Reads the whole entry into `out` (which holds size(name) bytes).
  void read(const std::string& name, void* out, uint64_t size) const;
  std::string read_string(const std::string& name, uint64_t max_size) const;

 private:
  int64_t index(const std::string& name) const;
  std::string path_;
  zip* archive_ = nullptr;
  uint64_t file_size_ = 0;
};

}  // namespace ember::serialize
