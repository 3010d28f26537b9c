// AtomicFile. See atomic_file.h.
#include "serialize/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "ember/error.h"

namespace ember::serialize {
namespace {

std::string dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

void fsync_path(const std::string& path, int flags, const char* op) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) fail(op, "cannot open '", path, "' to sync it: ", std::strerror(errno));
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) fail(op, "fsync of '", path, "' failed: ", std::strerror(err));
}

// The mode a plain open() would give (0666 minus the umask); mkstemp makes files 0600.
mode_t file_mode() {
  static const mode_t mode = [] {
    const mode_t mask = ::umask(022);
    ::umask(mask);
    return mode_t(0666 & ~mask);
  }();
  return mode;
}

}  // namespace

AtomicFile::AtomicFile(const std::string& path, const char* op) : path_(path), op_(op) {
  std::vector<char> name(path.begin(), path.end());
  const char suffix[] = ".tmp-XXXXXX";
  name.insert(name.end(), suffix, suffix + sizeof(suffix));
  fd_ = ::mkstemp(name.data());
  if (fd_ < 0)
    fail(op, "cannot write '", path, "': cannot create a file in '", dir_of(path),
         "': ", std::strerror(errno));
  tmp_ = name.data();
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

void AtomicFile::write(const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(op_, "cannot write '", path_, "': ", std::strerror(errno));
    p += n;
    size -= size_t(n);
  }
}

void AtomicFile::commit() {
  ::close(fd_);
  fd_ = -1;
  ::chmod(tmp_.c_str(), file_mode());  // by name: libzip replaces the file it was given
  fsync_path(tmp_, O_RDONLY, op_);  // the bytes reach the disk before the name points at them
  if (::rename(tmp_.c_str(), path_.c_str()) != 0)
    fail(op_, "cannot rename '", tmp_, "' to '", path_, "': ", std::strerror(errno));
  tmp_.clear();
  fsync_path(dir_of(path_), O_RDONLY | O_DIRECTORY, op_);  // and the rename itself is durable
}

}  // namespace ember::serialize
