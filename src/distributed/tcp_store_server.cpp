// TCPStoreServer: a poll() loop over the listening socket, a wake-up pipe and the clients, serving
// PyTorch's TCPStore protocol (tcp_store_protocol.h) to ember's and PyTorch's clients alike.
// Requests may arrive in pieces, so each client has an input buffer that is parsed from the start
// of a message each time bytes arrive (wire::Reader reports an incomplete one). Each connection's
// dialect is read from its first message: a v2 client opens with VALIDATE and the magic number,
// which no v1 request can (it would be a set whose key is about a gigabyte long).
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

namespace store_server {

struct Client {
  std::string buffer;  // bytes received and not yet parsed
  std::optional<wire::Dialect> dialect;
};

// What one request did to the buffer: wait for more bytes, drop the client, or go on.
enum class Parsed { incomplete, drop, done };

}  // namespace store_server

using store_server::Client;
using store_server::Parsed;

struct TCPStoreServer::State {
  int listen_fd = -1;
  int wake[2] = {-1, -1};  // writing wake[1] stops the loop
  uint16_t port = 0;
  std::thread thread;

  std::map<int, Client> clients;
  struct Waiter {
    int fd;
    std::vector<std::string> keys;
  };
  std::list<Waiter> waiters;
  std::multimap<std::string, int> key_watchers;  // watch_key: key -> connection told of changes
  std::map<int, std::string> watched;            // watch_connection: fd -> key set on close
  int64_t disconnects = 0;
  detail::KeyValueMap map;

  void loop();
  void accept_client();
  bool read_client(int fd);  // false: drop the client
  Parsed handle(int fd, Client& client, wire::Reader& r);
  Parsed serve(int fd, wire::Op op, wire::Reader& r);
  void answer(int fd, const std::string& bytes) { net::send_all(fd, bytes.data(), bytes.size()); }
  void store(const std::string& key, std::string value);
  void changed(const std::string& key, uint8_t kind, const std::string& before,
               const std::string& after);
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
  Client& client = clients[fd];
  client.buffer.append(chunk, static_cast<size_t>(n));
  size_t consumed = 0;
  for (;;) {
    wire::Reader r{std::string_view(client.buffer).substr(consumed)};
    const Parsed parsed = handle(fd, client, r);
    if (parsed == Parsed::drop || r.malformed) return false;
    if (parsed == Parsed::incomplete) break;
    consumed += r.at;
  }
  client.buffer.erase(0, consumed);
  // An incomplete message beyond any a client sends (wire::Reader's limits): drop it rather
  // than hold an unbounded buffer.
  return client.buffer.size() <= wire::Reader::kMaxMessage;
}

// Parses and executes one request, after settling the connection's dialect on its first one.
Parsed TCPStoreServer::State::handle(int fd, Client& client, wire::Reader& r) {
  uint8_t code;
  if (!r.u8(code)) return Parsed::incomplete;
  if (!client.dialect) {
    if (code == 0) {
      uint32_t magic;
      if (!r.u32(magic)) return Parsed::incomplete;
      client.dialect = magic == wire::kValidationMagic ? wire::Dialect::v2 : wire::Dialect::v1;
      if (client.dialect == wire::Dialect::v2) return Parsed::done;
      r.at = 1;  // a v1 set: parse it below
    } else {
      client.dialect = wire::Dialect::v1;
    }
  }
  const auto op = wire::op_of(*client.dialect, code);
  return op ? serve(fd, *op, r) : Parsed::drop;
}

Parsed TCPStoreServer::State::serve(int fd, wire::Op op, wire::Reader& r) {
  using wire::Op;
  std::string key, value, desired;
  std::vector<std::string> keys;
  int64_t delta = 0;
  uint32_t number = 0;
  uint64_t count = 0;
  wire::Writer reply;
  switch (op) {
    case Op::validate:  // again, later on the connection: only the magic number is checked
      if (!r.u32(number)) return Parsed::incomplete;
      return number == wire::kValidationMagic ? Parsed::done : Parsed::drop;
    case Op::set:
    case Op::append:
      if (!r.str(key) || !r.str(value)) return Parsed::incomplete;
      if (auto it = map.values.find(key); op == Op::append && it != map.values.end())
        value = it->second + value;
      store(key, std::move(value));
      break;
    case Op::multi_set: {
      if (!r.items(count, 16)) return Parsed::incomplete;  // a key and a value: 16 bytes or more
      std::vector<std::pair<std::string, std::string>> pairs(count);
      for (auto& [k, v] : pairs)
        if (!r.str(k) || !r.str(v)) return Parsed::incomplete;
      for (auto& [k, v] : pairs) store(k, std::move(v));
      break;
    }
    case Op::get:
      // PyTorch's clients wait for the key first; a missing key reads as empty (the libuv
      // backend's answer; the older one drops the connection).
      if (!r.str(key)) return Parsed::incomplete;
      answer(fd, reply.str(map.values.count(key) ? map.values[key] : "").bytes);
      break;
    case Op::multi_get:
      if (!r.strs(keys)) return Parsed::incomplete;
      for (const auto& k : keys) reply.str(map.values.count(k) ? map.values[k] : "");
      answer(fd, reply.bytes);
      break;
    case Op::add: {
      if (!r.str(key) || !r.i64(delta)) return Parsed::incomplete;
      const bool existed = map.values.count(key) > 0;
      const std::string before = existed ? map.values[key] : "";
      try {
        delta = map.add("TCPStore.add", key, delta);
      } catch (const Error&) {
        return Parsed::drop;  // not an integer: PyTorch's servers drop the connection too
      }
      answer(fd, reply.i64(delta).bytes);
      changed(key, existed ? wire::kKeyUpdated : wire::kKeyCreated, before, map.values[key]);
      wake_waiters();
      break;
    }
    case Op::compare_set: {
      if (!r.str(key) || !r.str(value) || !r.str(desired)) return Parsed::incomplete;
      const bool existed = map.values.count(key) > 0;
      const std::string before = existed ? map.values[key] : "";
      const std::string result = map.compare_set(key, value, desired);
      answer(fd, reply.str(result).bytes);
      if (map.values.count(key) && (!existed || before != result))
        changed(key, existed ? wire::kKeyUpdated : wire::kKeyCreated, before, result);
      wake_waiters();
      break;
    }
    case Op::check:
      if (!r.strs(keys)) return Parsed::incomplete;
      // Note [Which server is this]: the probe key reads as present here only.
      answer(fd,
             reply
                 .u8(map.has_all(keys) || keys == std::vector{wire::kProbeKey} ? wire::kReady
                                                                               : wire::kNotReady)
                 .bytes);
      break;
    case Op::wait:
      if (!r.strs(keys)) return Parsed::incomplete;
      waiters.push_back({fd, std::move(keys)});
      wake_waiters();
      break;
    case Op::cancel_wait:
      waiters.remove_if([fd](const Waiter& w) { return w.fd == fd; });
      answer(fd, reply.u8(wire::kWaitCanceled).bytes);
      break;
    case Op::delete_key: {
      if (!r.str(key)) return Parsed::incomplete;
      const auto it = map.values.find(key);
      const bool existed = it != map.values.end();
      if (existed) {
        value = std::move(it->second);
        map.values.erase(it);
      }
      answer(fd, reply.i64(existed ? 1 : 0).bytes);
      if (existed) changed(key, wire::kKeyDeleted, value, "");
      break;
    }
    case Op::num_keys:
      answer(fd, reply.i64(static_cast<int64_t>(map.values.size())).bytes);
      break;
    case Op::ping:
      if (!r.u32(number)) return Parsed::incomplete;
      answer(fd, reply.u32(number).bytes);
      break;
    case Op::watch_key:
      if (!r.str(key)) return Parsed::incomplete;
      key_watchers.emplace(key, fd);
      answer(fd, reply.u8(wire::kWatchRegistered).bytes);
      break;
    case Op::watch_connection:
      if (!r.str(key)) return Parsed::incomplete;
      watched[fd] = key;
      answer(fd, reply.u8(1).bytes);
      break;
  }
  return Parsed::done;
}

void TCPStoreServer::State::store(const std::string& key, std::string value) {
  auto it = map.values.find(key);
  const bool existed = it != map.values.end();
  std::string before = existed ? std::move(it->second) : "";
  map.values[key] = std::move(value);
  changed(key, existed ? wire::kKeyUpdated : wire::kKeyCreated, before, map.values[key]);
  wake_waiters();
}

// Tells the connections that watch_key'd `key` (v1 clients' callback connections).
void TCPStoreServer::State::changed(const std::string& key, uint8_t kind, const std::string& before,
                                    const std::string& after) {
  const auto [first, last] = key_watchers.equal_range(key);
  if (first == last) return;
  const std::string message = wire::Writer().u8(kind).str(key).str(before).str(after).bytes;
  for (auto it = first; it != last; ++it) answer(it->second, message);
}

void TCPStoreServer::State::wake_waiters() {
  for (auto it = waiters.begin(); it != waiters.end();) {
    if (map.has_all(it->keys)) {
      answer(it->fd, wire::Writer().u8(wire::kStopWaiting).bytes);
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
  std::erase_if(key_watchers, [fd](const auto& entry) { return entry.second == fd; });
  if (auto it = watched.find(fd); it != watched.end()) {
    // The value orders the departures, so a survivor can tell who left first.
    const std::string key = it->second;
    watched.erase(it);
    store(key, std::to_string(++disconnects));
  }
}

}  // namespace ember::dist
