// What the fuzz targets share: the input bytes as a file (a memfd, so no disk traffic), for the
// readers that take a path.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>

namespace ember::fuzz {

struct MemFile {
  int fd;
  std::string path;  // /proc/self/fd/<fd>
  MemFile(const uint8_t* data, size_t size) : fd(::memfd_create("fuzz", 0)) {
    for (size_t done = 0; done < size;) {
      const ssize_t n = ::write(fd, data + done, size - done);
      if (n <= 0) break;
      done += size_t(n);
    }
    path = "/proc/self/fd/" + std::to_string(fd);
  }
  ~MemFile() { ::close(fd); }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
};

}  // namespace ember::fuzz
