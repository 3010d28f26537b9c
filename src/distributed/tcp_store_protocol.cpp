// The request codes of PyTorch's TCPStore protocol in both numberings (Note [PyTorch's TCPStore
// protocol] in tcp_store_protocol.h), as one table read in both directions.
#include "distributed/tcp_store_protocol.h"

#include <array>

namespace ember::dist::wire {
namespace {

constexpr uint8_t kNone = 0xFF;
constexpr uint8_t kWatchConnectionCode = 0xE0;  // ember's own; no PyTorch version comes near

struct Codes {
  Op op;
  uint8_t v1, v2;
};

// v1: TCPStore.cpp's QueryType up to 2.0 (9-12 only ever existed beside WATCH_KEY on PyTorch's
// main branch in mid-2023, and mean the same in v2, so serving them costs nothing).
// v2: TCPStoreBackend.hpp's QueryType.
constexpr std::array<Codes, 16> kCodes{{
    {Op::validate, kNone, 0},
    {Op::set, 0, 1},
    {Op::compare_set, 1, 2},
    {Op::get, 2, 3},
    {Op::add, 3, 4},
    {Op::check, 4, 5},
    {Op::wait, 5, 6},
    {Op::num_keys, 6, 7},
    {Op::watch_key, 7, kNone},
    {Op::delete_key, 8, 8},
    {Op::append, 9, 9},
    {Op::multi_get, 10, 10},
    {Op::multi_set, 11, 11},
    {Op::cancel_wait, 12, 12},
    {Op::ping, kNone, 13},
    {Op::watch_connection, kWatchConnectionCode, kWatchConnectionCode},
}};

uint8_t in(Dialect dialect, const Codes& c) { return dialect == Dialect::v1 ? c.v1 : c.v2; }

}  // namespace

std::optional<uint8_t> code_of(Dialect dialect, Op op) {
  for (const auto& c : kCodes)
    if (c.op == op && in(dialect, c) != kNone) return in(dialect, c);
  return std::nullopt;
}

std::optional<Op> op_of(Dialect dialect, uint8_t code) {
  if (code == kNone) return std::nullopt;
  for (const auto& c : kCodes)
    if (in(dialect, c) == code) return c.op;
  return std::nullopt;
}

}  // namespace ember::dist::wire
