// TCPStoreServer: a poll() loop over the listening socket, a wake-up pipe and the clients.
// Requests may arrive in pieces, so each client has an input buffer that is parsed from the start
// of a message each time bytes arrive (wire::Reader reports an incomplete one).
#include "distributed/tcp_store_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <list>
#include <map>
#include <thread>

#include "distributed/socket.h"
#include "distributed/store_detail.h"
#include "distributed/tcp_store_protocol.h"
#include "ember/error.h"

namespace ember::dist {

struct TCPStoreServer::State {
  int listen_fd = -1;
  int wake[2] = {-1, -1};  // writing wake[1] stops the loop
  uint16_t port = 0;
  std::thread thread;

  std::map<int, std::string> clients;  // fd -> bytes received and not yet parsed
  struct Waiter {
    int fd;
    wire::Op op;  // get or wait
    std::vector<std::string> keys;
  };
  std::list<Waiter> waiters;
  std::map<int, std::string> watched;  // fd -> key to set when that connection closes
  int64_t disconnects = 0;
  detail::KeyValueMap map;

  void loop();
  void accept_client();
  bool read_client(int fd);     // false: drop the client
  bool handle(int fd, wire::Reader& r, bool& complete);
  void answer(int fd, const std::string& bytes) { net::send_all(fd, bytes.data(), bytes.size()); }
  void answer_waiter(const Waiter& w);
  void wake_waiters();
  void drop(int fd);
};

TCPStoreServer::TCPStoreServer(const std::string& host, uint16_t port)
    : state_(std::make_unique<State>()) {
  state_->listen_fd = net::listen_on("TCPStore", host, port, &state_->port);
  if (::pipe2(state_->wake, O_CLOEXEC) != 0) {
    ::close(state_->listen_fd);
    fail("TCPStore", "cannot create the server's wake-up pipe: ", std::strerror(errno));
  }
  state_->thread = std::thread([s = state_.get()] { s->loop(); });
}

TCPStoreServer::~TCPStoreServer() {
  const char stop = 1;
  [[maybe_unused]] auto n = ::write(state_->wake[1], &stop, 1);
  state_->thread.join();
  for (auto& [fd, _] : state_->clients) ::close(fd);
  ::close(state_->listen_fd);
  ::close(state_->wake[0]);
  ::close(state_->wake[1]);
}

uint16_t TCPStoreServer::port() const { return state_->port; }

void TCPStoreServer::State::loop() {
  std::vector<pollfd> fds;
  for (;;) {
    fds.assign({{wake[0], POLLIN, 0}, {listen_fd, POLLIN, 0}});
    for (auto& [fd, _] : clients) fds.push_back({fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[0].revents) return;
    if (fds[1].revents & POLLIN) accept_client();
    for (size_t i = 2; i < fds.size(); ++i)
      if (fds[i].revents && !read_client(fds[i].fd)) drop(fds[i].fd);
  }
}

void TCPStoreServer::State::accept_client() {
  const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) return;  // the client gave up already; it will retry
  net::set_no_delay(fd);
  clients[fd];
}

bool TCPStoreServer::State::read_client(int fd) {
  char chunk[65536];
  const ssize_t n = ::recv(fd, chunk, sizeof chunk, MSG_DONTWAIT);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) return false;
  std::string& buffer = clients[fd];
  buffer.append(chunk, static_cast<size_t>(n));
  size_t consumed = 0;
  for (;;) {
    const std::string rest = buffer.substr(consumed);
    wire::Reader r{rest};
    bool complete = false;
    if (!handle(fd, r, complete)) return false;
    if (!complete) break;
    consumed += r.at;
  }
  buffer.erase(0, consumed);
  return true;
}

// Parses and executes one request; complete=false when the buffer ends before the request does.
// Returns false for a malformed request (the client is dropped).
bool TCPStoreServer::State::handle(int fd, wire::Reader& r, bool& complete) {
  uint8_t op_byte;
  if (!r.u8(op_byte)) return true;
  const auto op = static_cast<wire::Op>(op_byte);
  std::string key, value, desired;
  std::vector<std::string> keys;
  int64_t delta = 0;
  wire::Writer reply;
  switch (op) {
    case wire::Op::set:
      if (!r.str(key) || !r.str(value)) return true;
      map.values[key] = std::move(value);
      answer(fd, reply.u8(1).bytes);
      wake_waiters();
      break;
    case wire::Op::get:
    case wire::Op::wait:
      if (op == wire::Op::get ? !r.str(key) : !r.strs(keys)) return true;
      if (op == wire::Op::get) keys = {key};
      waiters.push_back({fd, op, std::move(keys)});
      wake_waiters();
      break;
    case wire::Op::add: {
      if (!r.str(key) || !r.i64(delta)) return true;
      try {
        const int64_t result = map.add("TCPStore.add", key, delta);
        reply.u8(1).i64(result);
      } catch (const Error& e) {
        reply.u8(0).str(e.what());  // the value is not an integer: the client throws this
      }
      answer(fd, reply.bytes);
      wake_waiters();
      break;
    }
    case wire::Op::compare_set:
      if (!r.str(key) || !r.str(value) || !r.str(desired)) return true;
      answer(fd, reply.str(map.compare_set(key, value, desired)).bytes);
      wake_waiters();
      break;
    case wire::Op::check:
      if (!r.strs(keys)) return true;
      answer(fd, reply.u8(map.has_all(keys) ? 1 : 0).bytes);
      break;
    case wire::Op::delete_key:
      if (!r.str(key)) return true;
      answer(fd, reply.u8(map.values.erase(key) ? 1 : 0).bytes);
      break;
    case wire::Op::watch:
      if (!r.str(key)) return true;
      watched[fd] = key;
      answer(fd, reply.u8(1).bytes);
      break;
    case wire::Op::num_keys:
      answer(fd, reply.i64(static_cast<int64_t>(map.values.size())).bytes);
      break;
    default:
      return false;
  }
  complete = true;
  return true;
}

void TCPStoreServer::State::answer_waiter(const Waiter& w) {
  wire::Writer reply;
  if (w.op == wire::Op::get) reply.str(map.values.at(w.keys[0]));
  else reply.u8(1);
  answer(w.fd, reply.bytes);
}

void TCPStoreServer::State::wake_waiters() {
  for (auto it = waiters.begin(); it != waiters.end();) {
    if (map.has_all(it->keys)) {
      answer_waiter(*it);
      it = waiters.erase(it);
    } else {
      ++it;
    }
  }
}

void TCPStoreServer::State::drop(int fd) {
  ::close(fd);
  clients.erase(fd);
  waiters.remove_if([fd](const Waiter& w) { return w.fd == fd; });
  if (auto it = watched.find(fd); it != watched.end()) {
    // The value orders the departures, so a survivor can tell who left first.
    map.values[it->second] = std::to_string(++disconnects);
    watched.erase(it);
    wake_waiters();
  }
}

}  // namespace ember::dist
