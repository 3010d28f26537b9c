// TCPStore: the client side (one connection, requests under a lock) and, with is_master, the
// server it hosts (tcp_store_server.h).
// Note [TCPStore timeouts]: the client bounds every reply by a deadline. When a deadline passes,
// the reply may still arrive later and would be read as the answer to the next request, so the
// client closes the connection instead (the server forgets that connection's waiters) and the
// next request connects afresh.
#include <unistd.h>

#include <mutex>

#include "distributed/socket.h"
#include "distributed/store_detail.h"
#include "distributed/tcp_store_protocol.h"
#include "distributed/tcp_store_server.h"
#include "ember/distributed/store.h"
#include "ember/error.h"

namespace ember::dist {

struct TCPStore::State {
  std::string host;
  uint16_t port = 0;
  std::unique_ptr<TCPStoreServer> server;
  std::mutex mutex;
  int fd = -1;
  int watch_fd = -1;  // the watched connection (watch_connection)

  std::string where() const { return " (store at " + host + ":" + std::to_string(port) + ")"; }

  void disconnect() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }

  void connect(const char* op, std::chrono::milliseconds timeout) {
    if (fd < 0) fd = net::connect_until(op, host, port, net::Clock::now() + timeout, timeout);
  }

  // Sends one request and reads its reply with `read`, which gets (fd, deadline) and returns a
  // net::Received. `keys` name what a timeout was waiting for.
  template <class Read>
  void call(const char* op, const std::string& request, std::chrono::milliseconds timeout,
            const std::vector<std::string>& keys, Read&& read) {
    connect(op, timeout);
    if (!net::send_all(fd, request.data(), request.size())) {
      // The server may have restarted since the last request: one fresh connection.
      disconnect();
      connect(op, timeout);
      if (!net::send_all(fd, request.data(), request.size())) lost(op);
    }
    const auto result = read(fd, net::Clock::now() + timeout);
    if (result == net::Received::ok) return;
    disconnect();  // Note [TCPStore timeouts]
    if (result == net::Received::closed) lost(op);
    if (keys.empty())
      fail(op, "no reply within ", detail::format_duration(timeout), where());
    detail::throw_wait_timeout(op, missing(keys), timeout, where());
  }

  // Which of keys are still unset, asked on a fresh connection after a timeout (all of them when
  // the server does not answer within a second).
  std::vector<std::string> missing(const std::vector<std::string>& keys) {
    std::vector<std::string> out;
    try {
      connect("TCPStore", std::chrono::seconds(1));
      for (const auto& key : keys) {
        const std::string request = wire::Writer().op(wire::Op::check).strs({key}).bytes;
        uint8_t present = 0;
        if (!net::send_all(fd, request.data(), request.size()) ||
            net::recv_exact(fd, &present, 1, net::Clock::now() + std::chrono::seconds(1)) !=
                net::Received::ok) {
          disconnect();
          return keys;
        }
        if (!present) out.push_back(key);
      }
    } catch (const Error&) {
      return keys;
    }
    return out;
  }

  [[noreturn]] void lost(const char* op) {
    disconnect();
    fail(op, "lost the connection to the store", where(),
         "; the process hosting it (rank 0 or ember-run) exited?");
  }
};

namespace {

net::Received read_string(int fd, net::Clock::time_point deadline, std::string& out) {
  uint32_t n;
  if (auto r = net::recv_exact(fd, &n, 4, deadline); r != net::Received::ok) return r;
  out.resize(n);
  return net::recv_exact(fd, out.data(), n, deadline);
}

template <class T>
auto read_value(T& out) {
  return [&out](int fd, net::Clock::time_point deadline) {
    return net::recv_exact(fd, &out, sizeof out, deadline);
  };
}

auto read_string_into(std::string& out) {
  return [&out](int fd, net::Clock::time_point deadline) { return read_string(fd, deadline, out); };
}

}  // namespace

TCPStore::TCPStore(std::string host, uint16_t port, TCPStoreOptions options)
    : Store(options.timeout), state_(std::make_unique<State>()) {
  state_->host = std::move(host);
  state_->port = port;
  if (options.is_master) {
    state_->server = std::make_unique<TCPStoreServer>(state_->host, port);
    state_->port = state_->server->port();
  }
  std::lock_guard lock(state_->mutex);
  state_->connect("TCPStore", timeout());
}

TCPStore::~TCPStore() {
  if (state_->watch_fd >= 0) ::close(state_->watch_fd);
  state_->disconnect();
  state_->server.reset();
}

void TCPStore::watch_connection(const std::string& key) {
  std::lock_guard lock(state_->mutex);
  const auto deadline = net::Clock::now() + timeout();
  const int fd = net::connect_until("TCPStore.watch_connection", state_->host, state_->port,
                                    deadline, timeout());
  const std::string request = wire::Writer().op(wire::Op::watch).str(key).bytes;
  uint8_t ok = 0;
  if (!net::send_all(fd, request.data(), request.size()) ||
      net::recv_exact(fd, &ok, 1, deadline) != net::Received::ok) {
    ::close(fd);
    state_->lost("TCPStore.watch_connection");
  }
  if (state_->watch_fd >= 0) ::close(state_->watch_fd);
  state_->watch_fd = fd;
}

const std::string& TCPStore::host() const { return state_->host; }
uint16_t TCPStore::port() const { return state_->port; }
bool TCPStore::is_master() const { return state_->server != nullptr; }

void TCPStore::set(const std::string& key, const std::string& value) {
  std::lock_guard lock(state_->mutex);
  uint8_t ok;
  state_->call("TCPStore.set", wire::Writer().op(wire::Op::set).str(key).str(value).bytes,
               timeout(), {}, read_value(ok));
}

std::string TCPStore::get(const std::string& key) {
  std::lock_guard lock(state_->mutex);
  std::string value;
  state_->call("TCPStore.get", wire::Writer().op(wire::Op::get).str(key).bytes, timeout(), {key},
               read_string_into(value));
  return value;
}

int64_t TCPStore::add(const std::string& key, int64_t delta) {
  std::lock_guard lock(state_->mutex);
  uint8_t ok = 0;
  int64_t result = 0;
  std::string error;
  state_->call("TCPStore.add", wire::Writer().op(wire::Op::add).str(key).i64(delta).bytes,
               timeout(), {}, [&](int fd, net::Clock::time_point deadline) {
                 auto r = net::recv_exact(fd, &ok, 1, deadline);
                 if (r != net::Received::ok) return r;
                 return ok ? net::recv_exact(fd, &result, 8, deadline)
                           : read_string(fd, deadline, error);
               });
  if (!ok) throw Error(error);
  return result;
}

std::string TCPStore::compare_set(const std::string& key, const std::string& expected,
                                  const std::string& desired) {
  std::lock_guard lock(state_->mutex);
  std::string value;
  state_->call("TCPStore.compare_set",
               wire::Writer().op(wire::Op::compare_set).str(key).str(expected).str(desired).bytes,
               timeout(), {}, read_string_into(value));
  return value;
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  std::lock_guard lock(state_->mutex);
  uint8_t all = 0;
  state_->call("TCPStore.check", wire::Writer().op(wire::Op::check).strs(keys).bytes, timeout(),
               {}, read_value(all));
  return all != 0;
}

bool TCPStore::delete_key(const std::string& key) {
  std::lock_guard lock(state_->mutex);
  uint8_t existed = 0;
  state_->call("TCPStore.delete_key", wire::Writer().op(wire::Op::delete_key).str(key).bytes,
               timeout(), {}, read_value(existed));
  return existed != 0;
}

int64_t TCPStore::num_keys() {
  std::lock_guard lock(state_->mutex);
  int64_t n = 0;
  state_->call("TCPStore.num_keys", wire::Writer().op(wire::Op::num_keys).bytes, timeout(), {},
               read_value(n));
  return n;
}

void TCPStore::wait_for(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  std::lock_guard lock(state_->mutex);
  uint8_t ok;
  state_->call("TCPStore.wait", wire::Writer().op(wire::Op::wait).strs(keys).bytes, timeout, keys,
               read_value(ok));
}

}  // namespace ember::dist
