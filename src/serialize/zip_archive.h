// The zip container of PyTorch checkpoints, over libzip: a writer that stores entries
// uncompressed with their data on 64-byte boundaries and replaces the target atomically, and a
// reader that looks records up by name and can hand out stored records as views of the mapped
// file. libzip stays the parser and the writer; it reads from and writes to our own buffers
// through custom sources (zip_archive.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember/storage.h"
#include "serialize/atomic_file.h"
#include "serialize/mapped_file.h"

struct zip;
struct zip_stat;

namespace ember::serialize {

/// Writes `path` atomically: entries go to a temporary file in the same directory, which is
/// fsynced (unless !durable) and renamed over `path` by commit(). Destroying an uncommitted
/// writer removes it.
class ZipWriter {
 public:
  explicit ZipWriter(const std::string& path, bool durable = true);
  /// Writes the archive into `file` from byte `base` on (an archive inside a bigger file, as a
  /// distributed checkpoint's per-rank file holds them; `base` a multiple of 64 keeps the data
  /// aligned in the file). commit() completes the archive; committing the file is its owner's.
  ZipWriter(AtomicFile& file, uint64_t base);
  ~ZipWriter();
  ZipWriter(const ZipWriter&) = delete;
  ZipWriter& operator=(const ZipWriter&) = delete;

  /// Adds a stored entry whose bytes start on a 64-byte file offset (PyTorch's
  /// kFieldAlignment, so readers can mmap storages). `data` must stay alive until commit().
  void add(const std::string& name, const void* data, size_t size);
  void commit();
  /// The archive's bytes written so far (all of it after commit()).
  uint64_t size() const;

 private:
  struct Sink;  // the libzip source writing into *file_
  void open(const std::string& path);
  std::unique_ptr<AtomicFile> owned_;  // the file of the first constructor
  AtomicFile* file_;
  std::unique_ptr<Sink> sink_;
  zip* archive_ = nullptr;
  uint64_t offset_ = 0;  // where the next local header starts
};

class ZipReader {
 public:
  static constexpr uint64_t kWholeFile = ~uint64_t(0);
  /// Opens a zip archive: the whole file, or the `length` bytes at `offset` (an archive inside
  /// a bigger file, as a distributed checkpoint's per-rank file holds them). A missing or
  /// non-zip file throws ember::Error (legacy PyTorch files and truncated archives are named as
  /// such).
  explicit ZipReader(const std::string& path, uint64_t offset = 0, uint64_t length = kWholeFile);
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
  /// The entry's bytes as a storage viewing the mapped file (copy-on-write), when the entry is
  /// stored uncompressed, not empty, and its data starts on a multiple of `alignment`; otherwise
  /// a null Storage, and the caller copies with read(). The CRC of a viewed entry is not checked
  /// (that would read every byte; PyTorch's reader does not check it either).
  Storage view(const std::string& name, uint64_t alignment) const;

 private:
  struct Source;  // the libzip source reading from map_
  static constexpr uint64_t kNotStored = ~uint64_t(0);
  int64_t index(const std::string& name) const;
  /// Where entry i's data starts in the archive, when it is stored uncompressed, unencrypted and
  /// not empty and lies inside the file (st is its stat); otherwise kNotStored.
  uint64_t stored_offset(int64_t i, struct zip_stat& st) const;
  /// Copies a stored entry of `size` bytes with a CRC check; false when it is not stored.
  bool read_stored(const std::string& name, int64_t i, void* out, uint64_t size) const;
  std::string path_;
  int fd_ = -1;  // the mapped file, which libzip reads through (see Source)
  std::shared_ptr<const MappedFile> map_;
  uint64_t base_ = 0, size_ = 0;  // the archive's bytes in the file
  std::unique_ptr<Source> source_;
  zip* archive_ = nullptr;
};

}  // namespace ember::serialize
