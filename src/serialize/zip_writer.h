// ZipWriter: the zip container of PyTorch checkpoints, written by us rather than by libzip.
// Every entry is stored (no compression), with its data on a 64-byte file offset (PyTorch's
// kFieldAlignment, so readers can mmap storages). Writing it ourselves lets the data go from
// the tensor's memory to the file in one pass, its CRC computed chunk by chunk while the chunk
// is in cache; libzip copied every entry through 8 KiB buffers and computed the CRC with zlib,
// a second pass at a tenth of the speed. The layout is plain zip (zip64 where sizes or offsets
// need it), read by libzip, Python's zipfile and PyTorch's miniz. Reading stays with libzip
// (zip_archive.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "serialize/atomic_file.h"

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

  /// Adds a stored entry whose bytes start on a 64-byte file offset. The bytes are written
  /// before add returns.
  void add(const std::string& name, const void* data, size_t size);
  /// Writes the central directory and, for the first constructor, replaces the target.
  void commit();
  /// The archive's bytes written so far (all of it after commit()).
  uint64_t size() const { return pos_; }

  /// Entries of at least this many bytes, or starting at least this far into the file, get
  /// zip64 fields (the 32-bit ones overflow). Lowered only by tests, which cannot write 4 GiB.
  uint64_t zip64_threshold = 0xFFFFFFFFull;

 private:
  struct Entry {
    std::string name;
    uint32_t crc;
    uint64_t size;
    uint64_t offset;  // of its local header
  };
  void write(const void* data, size_t size);
  std::unique_ptr<AtomicFile> owned_;  // the file of the first constructor
  AtomicFile* file_;
  uint64_t base_ = 0;  // where the archive starts in the file
  std::vector<Entry> entries_;
  uint64_t pos_ = 0;  // bytes of the archive written: where the next record starts
};

}  // namespace ember::serialize
