// The few TCP socket operations the store and the launcher need, with deadlines and messages:
// listening, connecting with retries, and exact sends/receives that never block past a deadline.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace ember::dist::net {

using Clock = std::chrono::steady_clock;

/// A listening socket on host:port (port 0: the system picks one, returned in *bound_port).
int listen_on(const char* op, const std::string& host, uint16_t port, uint16_t* bound_port);

/// Connects to host:port, retrying refused/unreachable attempts until the deadline; the error
/// names the address, the time waited and the last failure.
int connect_until(const char* op, const std::string& host, uint16_t port,
                  Clock::time_point deadline, std::chrono::milliseconds timeout);

/// Writes every byte (false when the peer is gone).
bool send_all(int fd, const void* data, size_t size);

enum class Received { ok, closed, timed_out };
/// Reads exactly size bytes before the deadline.
Received recv_exact(int fd, void* data, size_t size, Clock::time_point deadline);

void set_no_delay(int fd);

}  // namespace ember::dist::net
