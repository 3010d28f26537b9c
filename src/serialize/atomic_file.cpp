// AtomicFile. See atomic_file.h.
#include "serialize/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "ember/error.h"

namespace ember::serialize {
namespace {

// Note [Early writeback]: commit's fsync waits until every dirty page of the file is on disk.
// Asking the kernel to start writing each chunk as soon as it is complete
// (sync_file_range(SYNC_FILE_RANGE_WRITE) waits for nothing) overlaps the disk with the rest of
// the save, so the fsync only waits for the tail. It makes nothing durable by itself.
constexpr uint64_t kWritebackChunk = uint64_t(8) << 20;
constexpr size_t kBuffer = size_t(1) << 20;
// Appends of at least this much are written by one system call of their own.
constexpr size_t kDirect = size_t(64) << 10;

std::string dir_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

void fsync_directory(const std::string& path, const char* op) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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

AtomicFile::AtomicFile(const std::string& path, const char* op, bool durable)
    : path_(path), op_(op), durable_(durable) {
  std::vector<char> name(path.begin(), path.end());
  const char suffix[] = ".tmp-XXXXXX";
  name.insert(name.end(), suffix, suffix + sizeof(suffix));
  fd_ = ::mkstemp(name.data());
  if (fd_ < 0)
    fail(op, "cannot write '", path, "': cannot create a file in '", dir_of(path),
         "': ", std::strerror(errno));
  tmp_ = name.data();
  buffer_.reserve(kBuffer);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

void AtomicFile::write(const void* data, size_t size) { write_at(end_, data, size); }

void AtomicFile::write_at(uint64_t offset, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  const uint64_t buffered_from = end_ - buffer_.size();
  if (offset == end_ && size >= kDirect) {  // a big append goes straight out, never copied
    flush();
    pwrite_all(end_, p, size);
    end_ += size;
  } else if (offset == end_) {  // small appends gather in the buffer
    while (size > 0) {
      const size_t n = std::min(size, kBuffer - buffer_.size());
      buffer_.insert(buffer_.end(), p, p + n);
      end_ += n;
      p += n;
      size -= n;
      if (buffer_.size() == kBuffer) flush();
    }
  } else if (offset >= buffered_from && offset + size <= end_) {  // patch buffered bytes
    std::memcpy(buffer_.data() + (offset - buffered_from), p, size);
  } else {
    flush();
    pwrite_all(offset, p, size);
    end_ = std::max<uint64_t>(end_, offset + size);
  }
}

void AtomicFile::flush() {
  if (buffer_.empty()) return;
  pwrite_all(end_ - buffer_.size(), buffer_.data(), buffer_.size());
  buffer_.clear();
}

void AtomicFile::pwrite_all(uint64_t offset, const char* p, size_t size) {
  const uint64_t last = offset + size;
  while (size > 0) {
    const ssize_t n = ::pwrite(fd_, p, size, off_t(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(op_, "cannot write '", path_, "': ", std::strerror(n < 0 ? errno : ENOSPC));
    p += n;
    offset += uint64_t(n);
    size -= size_t(n);
  }
  if (durable_ && last >= submitted_ + kWritebackChunk) {  // Note [Early writeback]
    ::sync_file_range(fd_, off_t(submitted_), off_t(last - submitted_), SYNC_FILE_RANGE_WRITE);
    submitted_ = last;
  }
}

void AtomicFile::commit() {
  flush();
  ::fchmod(fd_, file_mode());
  // The bytes reach the disk before the name points at them.
  if (durable_ && ::fsync(fd_) != 0)
    fail(op_, "fsync of '", tmp_, "' failed: ", std::strerror(errno));
  ::close(fd_);
  fd_ = -1;
  if (::rename(tmp_.c_str(), path_.c_str()) != 0)
    fail(op_, "cannot rename '", tmp_, "' to '", path_, "': ", std::strerror(errno));
  tmp_.clear();
  if (durable_) fsync_directory(dir_of(path_), op_);  // and the rename itself is durable
}

}  // namespace ember::serialize
