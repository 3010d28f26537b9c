// The TCP store's server: one thread that owns the key-value map and answers every client's
// requests in PyTorch's TCPStore protocol (tcp_store_protocol.h), ember's clients and PyTorch's
// alike, holding wait replies until their keys exist.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace ember::dist {

class TCPStoreServer {
 public:
  /// Listens on host:port (port 0: a free port) and starts serving.
  TCPStoreServer(const std::string& host, uint16_t port);
  /// Stops the thread and closes every connection.
  ~TCPStoreServer();
  TCPStoreServer(const TCPStoreServer&) = delete;
  TCPStoreServer& operator=(const TCPStoreServer&) = delete;

  uint16_t port() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace ember::dist
