// MappedFile: a whole regular file mapped privately (copy-on-write), so loaders (checkpoints,
// safetensors) can hand out CPU tensors that view the file instead of copying it. A write
// through such a tensor copies the page; it never reaches the file.
//
// Note [Mapped tensors and the file]: a mapped tensor shares the file's page cache, so it sees a
// later in-place rewrite of the file (and reading a page cut off by truncation raises SIGBUS).
// ember's own save() and safetensors::save_file() never rewrite in place: they write a new file
// and rename it over the old one, which leaves existing mappings on the old inode.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ember/storage.h"

namespace ember::serialize {

class MappedFile : public std::enable_shared_from_this<MappedFile> {
 public:
  /// Maps `path`; a missing, unreadable or non-regular file throws "[op] cannot open ...".
  /// An empty file has size() 0 and no mapping. With `fd`, the descriptor of the mapped file
  /// stays open there (the caller closes it): reading through it copies without faulting in
  /// the mapping's pages.
  static std::shared_ptr<const MappedFile> open(const std::string& path, const char* op,
                                                int* fd = nullptr);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const char* data() const { return static_cast<const char*>(base_); }
  uint64_t size() const { return size_; }
  /// A CPU storage viewing bytes [offset, offset + nbytes), which must lie inside the file; it
  /// keeps the mapping alive after every other owner is gone.
  Storage storage(uint64_t offset, uint64_t nbytes) const;

 private:
  MappedFile() = default;
  void* base_ = nullptr;
  uint64_t size_ = 0;
};

}  // namespace ember::serialize
