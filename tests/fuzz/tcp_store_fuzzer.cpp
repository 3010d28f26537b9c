// libFuzzer target for the TCP store server's message parser (distributed/tcp_store_server.cpp,
// PyTorch's TCPStore protocol in both dialects and ember's extensions): each input is what one
// client sends a fresh server on loopback, then it closes its sending side and reads whatever the
// server answers until the server closes the connection (which it does once it has parsed the
// rest, or at once for bytes that are not the protocol). Crashes, hangs, leaks and sanitizer
// reports are bugs; so is memory that grows with what a connection claims rather than with what
// it sends (wire::Reader's limits: libFuzzer's -rss_limit_mb catches a breach).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

#include "distributed/tcp_store_server.h"

namespace {

// A client's socket connected to port on 127.0.0.1; aborts when the server cannot be reached
// (a broken harness, not a finding about the input).
int connect_loopback(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) std::abort();
  return fd;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ember::dist::TCPStoreServer server("127.0.0.1", 0);
  const int fd = connect_loopback(server.port());
  for (size_t done = 0; done < size;) {
    const ssize_t n = ::send(fd, data + done, size - done, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server dropped the connection early: a valid answer
    done += size_t(n);
  }
  ::shutdown(fd, SHUT_WR);
  // Drain the replies until the server closes; a server that neither answers nor closes within
  // 5 s has hung on the input.
  char reply[65536];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) std::abort();
    if (::recv(fd, reply, sizeof reply, 0) <= 0) break;
  }
  ::close(fd);
  return 0;
}
