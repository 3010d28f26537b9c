// TCPStore: the client side (one connection, requests under a lock) and, with is_master, the
// server it hosts (tcp_store_server.h). It speaks PyTorch's TCPStore protocol
// (tcp_store_protocol.h), so it also works against PyTorch's servers (a torchrun agent's store,
// a PyTorch rank 0), in whichever dialect the server reads (Note [Which server is this]).
// Note [TCPStore timeouts]: the client bounds every reply by a deadline. When a deadline passes,
// the reply may still arrive later and would be read as the answer to the next request, so the
// client closes the connection instead (every server forgets a closed connection's waiters) and
// the next request connects afresh.
#include <sys/socket.h>
#include <unistd.h>

#include <mutex>

#include "distributed/socket.h"
#include "distributed/store_detail.h"
#include "distributed/tcp_store_protocol.h"
#include "distributed/tcp_store_server.h"
#include "distributed/tcp_store_workers.h"
#include "ember/distributed/store.h"
#include "ember/error.h"

namespace ember::dist {

using wire::Op;

namespace {

net::Received read_string(int fd, net::Clock::time_point deadline, std::string& out) {
  uint64_t n;
  if (auto r = net::recv_exact(fd, &n, 8, deadline); r != net::Received::ok) return r;
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

std::string store_at(const std::string& host, uint16_t port) {
  return " (store at " + host + ":" + std::to_string(port) + ")";
}

// What the server at host:port reads, and whether it is ember's.
struct ServerKind {
  wire::Dialect dialect = wire::Dialect::v1;
  bool ember = false;
};

// Note [Which server is this]: one v1 check of the probe key on a half-closed connection.
ServerKind probe(const std::string& host, uint16_t port, std::chrono::milliseconds timeout) {
  const int c = net::connect_until("TCPStore", host, port, net::Clock::now() + timeout, timeout);
  const std::string ask =
      wire::Writer().op(wire::Dialect::v1, Op::check).strs({wire::kProbeKey}).bytes;
  uint8_t answer = 0;
  net::Received got = net::Received::closed;
  if (net::send_all(c, ask.data(), ask.size()) && ::shutdown(c, SHUT_WR) == 0)
    got = net::recv_exact(c, &answer, 1, net::Clock::now() + timeout);
  ::close(c);
  if (got == net::Received::timed_out)
    fail("TCPStore", "the server did not answer within ", detail::format_duration(timeout),
         store_at(host, port), "; is it a TCPStore?");
  return {got == net::Received::ok ? wire::Dialect::v1 : wire::Dialect::v2,
          got == net::Received::ok && answer == wire::kReady};
}

// A new connection, opened with VALIDATE for a v2 server; -1 when the server hung up on it.
int open_connection(const char* op, const std::string& host, uint16_t port, wire::Dialect dialect,
                    std::chrono::milliseconds timeout) {
  const int c = net::connect_until(op, host, port, net::Clock::now() + timeout, timeout);
  if (dialect == wire::Dialect::v2) {
    const std::string hello =
        wire::Writer().op(dialect, Op::validate).u32(wire::kValidationMagic).bytes;
    if (!net::send_all(c, hello.data(), hello.size())) {
      ::close(c);
      return -1;
    }
  }
  return c;
}

}  // namespace

struct TCPStore::State {
  std::string host;
  uint16_t port = 0;
  std::unique_ptr<TCPStoreServer> server;
  std::mutex mutex;
  int fd = -1;
  int watch_fd = -1;  // the watched connection (watch_connection)
  wire::Dialect dialect = wire::Dialect::v1;
  bool ember_server = false;  // the server has ember's extension (watch_connection)

  std::string where() const { return store_at(host, port); }

  // A request's first bytes: c10d's clients put "/" before every key (keyPrefix_).
  wire::Writer request(Op op) const { return wire::Writer().op(dialect, op); }
  static std::string wire_key(const std::string& key) { return "/" + key; }
  static std::vector<std::string> wire_keys(const std::vector<std::string>& keys) {
    std::vector<std::string> out;
    for (const auto& k : keys) out.push_back(wire_key(k));
    return out;
  }

  void disconnect() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }

  // A new connection, opened with VALIDATE for a v2 server.
  int open(const char* op, std::chrono::milliseconds timeout) {
    const int c = open_connection(op, host, port, dialect, timeout);
    if (c < 0) lost(op);
    return c;
  }

  void connect(const char* op, std::chrono::milliseconds timeout) {
    if (fd < 0) fd = open(op, timeout);
  }

  // Sends one request and, unless `read` is null, reads its reply with it: read(fd, deadline)
  // returns a net::Received. `keys` name what a timeout was waiting for.
  template <class Read>
  net::Received call(const char* op, const std::string& request, std::chrono::milliseconds timeout,
                     const std::vector<std::string>& keys, Read&& read) {
    connect(op, timeout);
    if (!net::send_all(fd, request.data(), request.size())) {
      // The server may have restarted since the last request: one fresh connection.
      disconnect();
      connect(op, timeout);
      if (!net::send_all(fd, request.data(), request.size())) lost(op);
    }
    if constexpr (std::is_null_pointer_v<std::decay_t<Read>>) {
      return net::Received::ok;
    } else {
      const auto result = read(fd, net::Clock::now() + timeout);
      if (result == net::Received::ok) return result;
      disconnect();  // Note [TCPStore timeouts]
      if (result == net::Received::closed) return result;
      if (keys.empty()) fail(op, "no reply within ", detail::format_duration(timeout), where());
      detail::throw_wait_timeout(op, missing(keys), timeout, where());
    }
  }

  // call() that treats a closed connection as the server's loss.
  template <class Read>
  void call_or_lost(const char* op, const std::string& request, std::chrono::milliseconds timeout,
                    const std::vector<std::string>& keys, Read&& read) {
    if (call(op, request, timeout, keys, std::forward<Read>(read)) == net::Received::closed)
      lost(op);
  }

  // Waits until every key exists (the reply to wait) or the timeout passes.
  void wait(const char* op, const std::vector<std::string>& keys,
            std::chrono::milliseconds timeout) {
    uint8_t reply;
    call_or_lost(op, request(Op::wait).strs(wire_keys(keys)).bytes, timeout, keys,
                 read_value(reply));
  }

  // Which of keys are still unset, asked on a fresh connection after a timeout (all of them when
  // the server does not answer within a second).
  std::vector<std::string> missing(const std::vector<std::string>& keys) {
    std::vector<std::string> out;
    try {
      connect("TCPStore", std::chrono::seconds(1));
      for (const auto& key : keys) {
        const std::string ask = request(Op::check).strs({wire_key(key)}).bytes;
        uint8_t ready = wire::kNotReady;
        if (!net::send_all(fd, ask.data(), ask.size()) ||
            net::recv_exact(fd, &ready, 1, net::Clock::now() + std::chrono::seconds(1)) !=
                net::Received::ok) {
          disconnect();
          return keys;
        }
        if (ready != wire::kReady) out.push_back(key);
      }
    } catch (const Error&) {
      return keys;
    }
    return out;
  }

  [[noreturn]] void lost(const char* op) {
    disconnect();
    fail(op, "lost the connection to the store", where(),
         "; the process hosting it (rank 0, ember-run or torchrun) exited?");
  }
};

TCPStore::TCPStore(std::string host, uint16_t port, TCPStoreOptions options)
    : Store(options.timeout), state_(std::make_unique<State>()) {
  state_->host = std::move(host);
  state_->port = port;
  if (options.is_master) {
    state_->server = std::make_unique<TCPStoreServer>(state_->host, port);
    state_->port = state_->server->port();
    state_->ember_server = true;
  } else {
    const ServerKind kind = probe(state_->host, port, timeout());
    state_->dialect = kind.dialect;
    state_->ember_server = kind.ember;
  }
  std::lock_guard lock(state_->mutex);
  state_->connect("TCPStore", timeout());
}

TCPStore::~TCPStore() {
  if (state_->watch_fd >= 0) ::close(state_->watch_fd);
  state_->disconnect();
  state_->server.reset();
}

// Only ember's server has watch_connection: against PyTorch's, nothing is watched, and the
// departure keys are simply never set (the group then reports the transport's error alone).
void TCPStore::watch_connection(const std::string& key) {
  std::lock_guard lock(state_->mutex);
  if (!state_->ember_server) return;
  const int fd = state_->open("TCPStore.watch_connection", timeout());
  const std::string request = state_->request(Op::watch_connection).str(State::wire_key(key)).bytes;
  uint8_t ok = 0;
  if (!net::send_all(fd, request.data(), request.size()) ||
      net::recv_exact(fd, &ok, 1, net::Clock::now() + timeout()) != net::Received::ok) {
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
  // No reply in the protocol; a lost server shows at the next request that has one.
  state_->call("TCPStore.set", state_->request(Op::set).str(State::wire_key(key)).str(value).bytes,
               timeout(), {}, nullptr);
}

std::string TCPStore::get(const std::string& key) {
  std::lock_guard lock(state_->mutex);
  // As c10d's client does: wait for the key, then get it (a v1 PyTorch server drops a
  // connection that gets a missing key).
  state_->wait("TCPStore.get", {key}, timeout());
  std::string value;
  state_->call_or_lost("TCPStore.get", state_->request(Op::get).str(State::wire_key(key)).bytes,
                       timeout(), {}, read_string_into(value));
  return value;
}

int64_t TCPStore::add(const std::string& key, int64_t delta) {
  std::lock_guard lock(state_->mutex);
  int64_t result = 0;
  const auto got = state_->call("TCPStore.add",
                                state_->request(Op::add).str(State::wire_key(key)).i64(delta).bytes,
                                timeout(), {}, read_value(result));
  if (got == net::Received::ok) return result;
  // Every server drops the connection of an add to a value that is not an integer: say so when
  // that is why (the server is still there and the key holds text).
  std::string held;
  uint8_t ready = wire::kNotReady;
  try {
    if (state_->call("TCPStore.add", state_->request(Op::check).strs({State::wire_key(key)}).bytes,
                     std::chrono::seconds(1), {}, read_value(ready)) == net::Received::ok &&
        ready == wire::kReady)
      state_->call("TCPStore.add", state_->request(Op::get).str(State::wire_key(key)).bytes,
                   std::chrono::seconds(1), {}, read_string_into(held));
  } catch (const Error&) {
  }
  detail::KeyValueMap check;
  check.values[key] = held;
  if (!held.empty()) check.add("TCPStore.add", key, 0);  // throws the integer error
  state_->lost("TCPStore.add");
}

std::string TCPStore::compare_set(const std::string& key, const std::string& expected,
                                  const std::string& desired) {
  std::lock_guard lock(state_->mutex);
  std::string value;
  state_->call_or_lost(
      "TCPStore.compare_set",
      state_->request(Op::compare_set).str(State::wire_key(key)).str(expected).str(desired).bytes,
      timeout(), {}, read_string_into(value));
  return value;
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  std::lock_guard lock(state_->mutex);
  uint8_t ready = wire::kNotReady;
  state_->call_or_lost("TCPStore.check",
                       state_->request(Op::check).strs(State::wire_keys(keys)).bytes, timeout(), {},
                       read_value(ready));
  return ready == wire::kReady;
}

bool TCPStore::delete_key(const std::string& key) {
  std::lock_guard lock(state_->mutex);
  int64_t deleted = 0;
  state_->call_or_lost("TCPStore.delete_key",
                       state_->request(Op::delete_key).str(State::wire_key(key)).bytes, timeout(),
                       {}, read_value(deleted));
  return deleted == 1;
}

int64_t TCPStore::num_keys() {
  std::lock_guard lock(state_->mutex);
  int64_t n = 0;
  state_->call_or_lost("TCPStore.num_keys", state_->request(Op::num_keys).bytes, timeout(), {},
                       read_value(n));
  return n;
}

void TCPStore::wait_for(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  std::lock_guard lock(state_->mutex);
  state_->wait("TCPStore.wait", keys, timeout);
}

namespace detail {

// Note [PyTorch's init/ counter]. On a connection of its own: every request of TCPStore's puts "/"
// before its key, and its connection is the class's (kept out of the public header).
int64_t count_as_worker(const TCPStore& store, const char* op, int rank) {
  const std::string& host = store.host();
  const uint16_t port = store.port();
  const std::chrono::milliseconds timeout = store.timeout();
  const std::string what = "rank " + std::to_string(rank) + ": counting itself in the key 'init/'";
  // ember's own server (this process's, or one the probe finds) reads v1 too.
  const wire::Dialect dialect =
      store.is_master() ? wire::Dialect::v1 : probe(host, port, timeout).dialect;
  const int c = open_connection(op, host, port, dialect, timeout);
  const std::string request =
      wire::Writer().op(dialect, Op::add).str(wire::kWorkerCountKey).i64(1).bytes;
  int64_t count = 0;
  net::Received got = net::Received::closed;
  if (c >= 0 && net::send_all(c, request.data(), request.size()))
    got = net::recv_exact(c, &count, sizeof count, net::Clock::now() + timeout);
  if (c >= 0) ::close(c);
  if (got == net::Received::timed_out)
    fail(op, what, ": no reply within ", detail::format_duration(timeout), store_at(host, port));
  if (got != net::Received::ok)
    fail(op, what, ": the server closed the connection", store_at(host, port),
         "; the process hosting it (rank 0, ember-run or torchrun) exited?");
  return count;
}

}  // namespace detail

}  // namespace ember::dist
