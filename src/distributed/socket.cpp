// TCP helpers with deadlines (socket.h).
#include "distributed/socket.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <thread>

#include "distributed/store_detail.h"
#include "ember/error.h"

namespace ember::dist::net {
namespace {

struct AddressList {
  addrinfo* head = nullptr;
  ~AddressList() {
    if (head) ::freeaddrinfo(head);
  }
};

// host:port resolved, or the resolver's error text.
std::string resolve(const std::string& host, uint16_t port, bool passive, AddressList& out) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = passive ? AI_PASSIVE : 0;
  const std::string service = std::to_string(port);
  const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &out.head);
  return rc == 0 ? "" : ::gai_strerror(rc);
}

std::string address(const std::string& host, uint16_t port) {
  return host + ":" + std::to_string(port);
}

}  // namespace

void set_no_delay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int listen_on(const char* op, const std::string& host, uint16_t port, uint16_t* bound_port) {
  AddressList addresses;
  if (auto error = resolve(host, port, true, addresses); !error.empty())
    fail(op, "cannot resolve '", host, "': ", error);
  std::string last_error = "no address";
  for (addrinfo* a = addresses.head; a; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      last_error = std::strerror(errno);
      continue;
    }
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 1024) == 0) {
      sockaddr_storage bound{};
      socklen_t length = sizeof bound;
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
      *bound_port = ntohs(bound.ss_family == AF_INET6
                              ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                              : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
      return fd;
    }
    last_error = std::strerror(errno);
    ::close(fd);
  }
  fail(op, "cannot listen on ", address(host, port), ": ", last_error,
       last_error == std::strerror(EADDRINUSE) ? " (another job's store on this port?)" : "");
}

int connect_until(const char* op, const std::string& host, uint16_t port,
                  Clock::time_point deadline, std::chrono::milliseconds timeout) {
  std::string last_error;
  auto pause = std::chrono::milliseconds(5);
  for (;;) {
    AddressList addresses;
    last_error = resolve(host, port, false, addresses);
    for (addrinfo* a = addresses.head; a; a = a->ai_next) {
      const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
      if (fd < 0) {
        last_error = std::strerror(errno);
        continue;
      }
      if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
        set_no_delay(fd);
        return fd;
      }
      last_error = std::strerror(errno);
      ::close(fd);
    }
    if (Clock::now() + pause >= deadline) break;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(100));
  }
  fail(op, "could not connect to the store at ", address(host, port), " within ",
       detail::format_duration(timeout), " (last error: ", last_error,
       "; is the process that hosts the store — rank 0 or ember-run — running?)");
}

bool send_all(int fd, const void* data, size_t size) {
  auto* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::send(fd, bytes, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

Received recv_exact(int fd, void* data, size_t size, Clock::time_point deadline) {
  auto* bytes = static_cast<char*>(data);
  while (size > 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return Received::timed_out;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1 << 30)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) return Received::closed;
    if (ready == 0) continue;  // the loop re-checks the deadline
    const ssize_t n = ::recv(fd, bytes, size, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return Received::closed;
    bytes += n;
    size -= static_cast<size_t>(n);
  }
  return Received::ok;
}

}  // namespace ember::dist::net
