// AtomicFile: replaces a file so that readers see the old or the new content, never a mix or
// nothing. The new content goes to a temporary file in the same directory (rename is atomic only
// within one filesystem), is fsynced, renamed over the target, and the directory is fsynced.
#pragma once

#include <string>

namespace ember::serialize {

class AtomicFile {
 public:
  /// Creates the temporary file; an unwritable directory throws "[op] cannot write '<path>'".
  AtomicFile(const std::string& path, const char* op);
  ~AtomicFile();  // removes the temporary file unless committed
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  const std::string& tmp_path() const { return tmp_; }
  const std::string& path() const { return path_; }
  /// Appends bytes through the open descriptor.
  void write(const void* data, size_t size);
  /// Syncs and renames the temporary file (which others may have rewritten by name) over path.
  void commit();

 private:
  std::string path_, tmp_;
  const char* op_;
  int fd_ = -1;
};

}  // namespace ember::serialize
