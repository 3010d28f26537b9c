// The zip container of PyTorch checkpoints: a reader over libzip that looks records up by name
// and can hand out stored records as views of the mapped file (libzip stays the parser; it reads
// through a source of our own, zip_archive.cpp), and the writer (zip_writer.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ember/storage.h"
#include "serialize/mapped_file.h"
#include "serialize/zip_writer.h"

struct zip;
struct zip_stat;

namespace ember::serialize {

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
  /// Reads the whole entry into `out` (which holds size(name) bytes), checking its CRC.
  void read(const std::string& name, void* out, uint64_t size) const;
  struct RecordRead {
    std::string name;
    void* out;
    uint64_t size;
  };
  /// read() of each, the stored records' bytes split between the threads.
  void read_all(const std::vector<RecordRead>& reads) const;
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
  /// Reads an entry through libzip (compressed or otherwise not stored), checking its CRC.
  void read_through_libzip(const std::string& name, int64_t i, void* out, uint64_t size) const;
  std::string path_;
  int fd_ = -1;  // the mapped file, which libzip reads through (see Source)
  std::shared_ptr<const MappedFile> map_;
  uint64_t base_ = 0, size_ = 0;  // the archive's bytes in the file
  std::unique_ptr<Source> source_;
  zip* archive_ = nullptr;
};

}  // namespace ember::serialize
