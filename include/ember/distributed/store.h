// Key-value stores for rendezvous, as c10d has them: the ranks of a job publish addresses,
// count arrivals and compare fingerprints through a Store before any tensor moves.
//   TCPStore   — a client of a server thread hosted by rank 0 or by ember-run (is_master)
//   FileStore  — an append-only log in a file every process can open (shared filesystem)
//   HashStore  — in-process only (threads)
//   PrefixStore — namespaces another store's keys ("<prefix>/<key>")
// Values are byte strings. Every wait is bounded by a timeout, and a timeout's error names the
// keys it was waiting for.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ember::dist {

class Store {
 public:
  /// PyTorch's default for store operations (c10d's kDefaultTimeout).
  static constexpr std::chrono::milliseconds kDefaultTimeout = std::chrono::minutes(5);

  explicit Store(std::chrono::milliseconds timeout = kDefaultTimeout) : timeout_(timeout) {}
  virtual ~Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  /// Sets key to value, replacing any previous value, and wakes whoever waits for it.
  virtual void set(const std::string& key, const std::string& value) = 0;
  /// The key's value; waits up to timeout() for the key to be set.
  virtual std::string get(const std::string& key) = 0;
  /// Atomically adds delta to the key's integer value (0 when absent) and returns the result.
  virtual int64_t add(const std::string& key, int64_t delta) = 0;
  /// Sets key to desired if its value is expected (or if it is absent and expected is empty);
  /// returns the value the key holds afterwards (expected, when absent and expected isn't empty).
  virtual std::string compare_set(const std::string& key, const std::string& expected,
                                  const std::string& desired) = 0;
  /// Whether every key is set, without waiting.
  virtual bool check(const std::vector<std::string>& keys) = 0;
  /// Removes the key; false when it was absent.
  virtual bool delete_key(const std::string& key) = 0;
  /// How many keys the store holds (a PrefixStore counts its base store's keys, as c10d does).
  virtual int64_t num_keys() = 0;

  /// Waits until every key is set, up to timeout() / the given timeout.
  void wait(const std::vector<std::string>& keys) { wait_for(keys, timeout_); }
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
    wait_for(keys, timeout);
  }

  std::chrono::milliseconds timeout() const { return timeout_; }
  void set_timeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }

 protected:
  virtual void wait_for(const std::vector<std::string>& keys,
                        std::chrono::milliseconds timeout) = 0;

 private:
  std::chrono::milliseconds timeout_;
};

/// An in-process store (a map under a mutex): threads of one process only.
class HashStore final : public Store {
 public:
  explicit HashStore(std::chrono::milliseconds timeout = kDefaultTimeout);
  ~HashStore() override;
  void set(const std::string& key, const std::string& value) override;
  std::string get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  std::string compare_set(const std::string& key, const std::string& expected,
                          const std::string& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;

 protected:
  void wait_for(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Every key of `base` as "<prefix>/<key>", so several groups or restart attempts share one
/// store without seeing each other's keys.
class PrefixStore final : public Store {
 public:
  PrefixStore(std::string prefix, std::shared_ptr<Store> base);
  void set(const std::string& key, const std::string& value) override;
  std::string get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  std::string compare_set(const std::string& key, const std::string& expected,
                          const std::string& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;

  const std::string& prefix() const { return prefix_; }
  const std::shared_ptr<Store>& base() const { return base_; }

 protected:
  void wait_for(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;

 private:
  std::string prefixed(const std::string& key) const;
  std::vector<std::string> prefixed(const std::vector<std::string>& keys) const;
  std::string prefix_;
  std::shared_ptr<Store> base_;
};

/// A store in one file that every process opens (an append-only log under flock), for jobs on a
/// shared filesystem without a network rendezvous. The file is created when absent and is never
/// deleted by the store: remove it when the job is done.
class FileStore final : public Store {
 public:
  explicit FileStore(std::string path, std::chrono::milliseconds timeout = kDefaultTimeout);
  ~FileStore() override;
  void set(const std::string& key, const std::string& value) override;
  std::string get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  std::string compare_set(const std::string& key, const std::string& expected,
                          const std::string& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;

  const std::string& path() const;

 protected:
  void wait_for(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

struct TCPStoreOptions {
  /// Host the server in this process (a thread, listening on host:port) as well as connecting.
  bool is_master = false;
  /// Bound for connecting and for every operation, waits included.
  std::chrono::milliseconds timeout = Store::kDefaultTimeout;
};

/// A client of the TCP store server at host:port; with is_master this object also runs the server
/// (port 0 picks a free port: see port()). Clients retry connecting until the timeout, so ranks
/// may start before the server. One connection per object, used under a lock: a thread blocked in
/// wait() holds it. The server lives as long as the object that hosts it.
class TCPStore final : public Store {
 public:
  TCPStore(std::string host, uint16_t port, TCPStoreOptions options = {});
  ~TCPStore() override;
  void set(const std::string& key, const std::string& value) override;
  std::string get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t delta) override;
  std::string compare_set(const std::string& key, const std::string& expected,
                          const std::string& desired) override;
  bool check(const std::vector<std::string>& keys) override;
  bool delete_key(const std::string& key) override;
  int64_t num_keys() override;

  /// Opens a second connection that the server watches: when it closes (this object is
  /// destroyed, or the process exits or dies) the server sets `key` to the count of such
  /// departures so far ("1" for the first). Lets the others learn that this process is gone.
  /// Only ember's own server watches (the request is ember's); against PyTorch's server (a
  /// torchrun agent's store, a PyTorch rank 0) it does nothing, and a dead peer shows up as the
  /// collective's error or its timeout instead.
  void watch_connection(const std::string& key);

  const std::string& host() const;
  /// The server's port (the one chosen by the system when constructed with port 0).
  uint16_t port() const;
  bool is_master() const;

 protected:
  void wait_for(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ember::dist
