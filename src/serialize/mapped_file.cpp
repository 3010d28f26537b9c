// MappedFile. See mapped_file.h.
#include "serialize/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ember/error.h"

namespace ember::serialize {
namespace {

void release(void*, void* context) {
  delete static_cast<std::shared_ptr<const MappedFile>*>(context);
}

}  // namespace

std::shared_ptr<const MappedFile> MappedFile::open(const std::string& path, const char* op,
                                                   int* fd_out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(op, "cannot open '", path, "': ", std::strerror(errno));
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fail(op, "'", path, "' is not a regular file");
  }
  std::shared_ptr<MappedFile> m(new MappedFile);
  m->size_ = uint64_t(st.st_size);
  void* base = nullptr;
  int err = 0;
  if (m->size_ > 0) {
    // Writable but private: tensors may be modified in place, the file never is.
    base = ::mmap(nullptr, m->size_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    err = errno;
  }
  if (!fd_out || base == MAP_FAILED) ::close(fd);
  if (base == MAP_FAILED) fail(op, "cannot map '", path, "': ", std::strerror(err));
  m->base_ = base;
  if (fd_out) *fd_out = fd;
  return m;
}

MappedFile::~MappedFile() {
  if (base_) ::munmap(base_, size_);
}

Storage MappedFile::storage(uint64_t offset, uint64_t nbytes) const {
  EMBER_CHECK(offset <= size_ && nbytes <= size_ - offset, "load", "bytes [", offset, ", ",
              offset + nbytes, ") lie outside the ", size_, "-byte file");
  return make_intrusive<StorageImpl>(const_cast<char*>(data()) + offset, size_t(nbytes),
                                     Device(kCPU), release,
                                     new std::shared_ptr<const MappedFile>(shared_from_this()));
}

}  // namespace ember::serialize
