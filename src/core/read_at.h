// Reading a file at an offset to the end of what was asked, through EINTR and short reads.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace ember {

/// Reads n bytes at `offset` of fd into out; fewer only where the file ends. -1 (errno set) on
/// an error.
inline int64_t read_at(int fd, char* out, uint64_t n, uint64_t offset) {
  uint64_t done = 0;
  while (done < n) {
    const ssize_t got = ::pread(fd, out + done, n - done, off_t(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return -1;
    if (got == 0) break;
    done += uint64_t(got);
  }
  return int64_t(done);
}

}  // namespace ember
