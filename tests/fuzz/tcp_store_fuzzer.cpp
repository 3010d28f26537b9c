// libFuzzer target for the TCP store server's message parser (distributed/tcp_store_server.cpp,
// PyTorch's TCPStore protocol in both dialects and ember's extensions): each input is what one
// client sends a server on loopback, then it closes its sending side and reads whatever the
// server answers until the server closes the connection (which it does once it has parsed the
// rest, or at once for bytes that are not the protocol). Crashes, hangs, leaks and sanitizer
// reports are bugs; so is memory that grows with what a connection claims rather than with what
// it sends (wire::Reader's limits: libFuzzer's -rss_limit_mb catches a breach).
// One server serves 1024 inputs, then a fresh one takes over: a server (and a port) per input
// ran loopback out of ephemeral ports within seconds (every closed connection waits in
// TIME_WAIT), and one server for the whole run would grow with every key set. So a finding can
// depend on the keys earlier inputs left, which replaying its input alone may not reproduce.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "distributed/tcp_store_server.h"

namespace {

[[noreturn]] void harness_failure(const char* what) {
  std::perror(what);  // the harness, not the input: say so before the fuzzer reports a signal
  std::abort();
}

// A client's socket connected to port on 127.0.0.1.
int connect_loopback(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) harness_failure("tcp_store_fuzzer: socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    // libFuzzer's timeout alarm can interrupt connect, which then completes on its own.
    if (errno != EINTR) harness_failure("tcp_store_fuzzer: connect");
    pollfd p{fd, POLLOUT, 0};
    while (::poll(&p, 1, 10000) < 0 && errno == EINTR) {
    }
    int error = 0;
    socklen_t len = sizeof error;
    if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0 || error != 0)
      harness_failure("tcp_store_fuzzer: connect");
  }
  return fd;
}

ember::dist::TCPStoreServer& server() {
  static std::unique_ptr<ember::dist::TCPStoreServer> current;
  static int served = 0;
  if (!current || ++served % 1024 == 0) {
    current.reset();
    current = std::make_unique<ember::dist::TCPStoreServer>("127.0.0.1", 0);
  }
  return *current;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = connect_loopback(server().port());
  for (size_t done = 0; done < size;) {
    const ssize_t n = ::send(fd, data + done, size - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the server dropped the connection early: a valid answer
    done += size_t(n);
  }
  ::shutdown(fd, SHUT_WR);
  // Drain the replies until the server closes; a server that neither answers nor closes within
  // 10 s has hung on the input.
  char reply[65536];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, 10000);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      std::fprintf(stderr, "tcp_store_fuzzer: the server neither answered nor closed in 10 s\n");
      std::abort();
    }
    if (ready < 0) break;
    const ssize_t n = ::recv(fd, reply, sizeof reply, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
  }
  ::close(fd);
  return 0;
}
