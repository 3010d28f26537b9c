// SharedMemoryAllReduce (shared_memory.h).
// Note [Shared-memory all-reduce]: the segment holds, per rank, a phase counter and its pid, a
// slot of slot_bytes(), and one result area of slot_bytes(). A tensor goes through in chunks of a
// slot; chunk k takes three phases on every rank r:
//   3k+1: r copied the others' shares of its chunk into slot r -> every rank may read every slot
//   3k+2: r reduced its own 1/n share over all ranks into the result area (its own data read in
//         place, not from its slot) and copied it back into its tensor
//   3k+3: r copied the others' shares of the result out
// Before 3k+2's writes a rank waits for every phase >= 3k+1, which also means every rank finished
// chunk k-1's copy-out (3k), so the result area is free; before copying out it waits for every
// phase >= 3k+2, which also means nobody still reads the slots, so the next chunk may overwrite
// its own. An all-gather's chunk k takes the same three phases and keeps the same invariants
// (it never touches the result area):
//   3k+1: r copied its piece of the chunk into slot r -> every rank may read every slot
//   3k+2: r copied every slot into its output
//   3k+3: r saw every rank at 3k+2, so nobody reads the slots any more (published at once)
// and so does a reduce-scatter's, whose slot r holds rank r's pieces of the others' outputs:
//   3k+1: r copied, for every other rank q, its piece of q's output chunk into slot r (at q)
//   3k+2: r reduced its own output chunk from its input and the others' slots (in rank order,
//         as the all-reduce sums), straight into its output
//   3k+3: as the all-gather's Waiting spins briefly, then sleeps on the laggard's phase word (a futex, woken by
// publish), checking every 2 ms that its pid lives, so a dead peer is named within milliseconds
// and a stopped one at the timeout.
#include "distributed/shared_memory.h"

#include <fcntl.h>
#include <immintrin.h>
#include <signal.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>
#include <random>
#include <thread>

#include "distributed/group.h"
#include "distributed/reduce_functions.h"
#include "distributed/store_detail.h"
#include "ember/error.h"

namespace ember::dist {
namespace {

// 1M floats in one chunk, so that the slots and the result area (12 MiB for 2 ranks) stay in the
// L3 cache between a rank's copy-in and the others' reads: measured here (Zen 3, 32 MiB L3, 2
// ranks, 4M floats) 4 MiB chunks gave 1.3-2.8x the bandwidth of 16 MiB ones, and 1-2 MiB ones
// paid for their extra hand-offs. EMBER_SHM_CHUNK_BYTES overrides it (tests use a small one to go
// through several chunks).
size_t slot_bytes() {
  static const size_t bytes = [] {
    const char* text = std::getenv("EMBER_SHM_CHUNK_BYTES");
    const long long v = text ? std::atoll(text) : 0;
    return v >= 64 ? static_cast<size_t>(v) / 64 * 64 : size_t{4} << 20;
  }();
  return bytes;
}

struct alignas(64) RankHeader {
  std::atomic<uint32_t> phase;  // also the futex word the others sleep on
  int32_t pid;
};
static_assert(sizeof(std::atomic<uint32_t>) == 4, "a futex word is 32 bits");

// phase >= target, with wrap-around (2^32 phases is ~1.4 billion chunks).
bool reached(uint32_t phase, uint32_t target) {
  return static_cast<int32_t>(phase - target) >= 0;
}

int* futex_word(std::atomic<uint32_t>& a) { return reinterpret_cast<int*>(&a); }

// Publishes a phase and wakes whoever sleeps on it (the segment is shared: no FUTEX_PRIVATE).
void publish(RankHeader* h, uint32_t phase) {
  h->phase.store(phase, std::memory_order_release);
  ::syscall(SYS_futex, futex_word(h->phase), FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
}

std::string this_host() {
  std::string boot, net;
  std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
  char link[256] = {};
  if (::readlink("/proc/self/ns/net", link, sizeof link - 1) < 0) return "";
  net = link;
  return boot.empty() ? "" : boot + " " + net;
}

// Gone, or a zombie its parent has not reaped yet (kill(pid, 0) still succeeds on those).
bool alive(pid_t pid) {
  if (::kill(pid, 0) != 0) return errno != ESRCH;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string skip;
  char state = 'R';
  stat >> skip >> skip >> state;  // "pid (comm) state": comm has no spaces for our programs
  return state != 'Z' && state != 'X';
}

}  // namespace

struct SharedMemoryAllReduce::Segment {
  void* base = nullptr;
  size_t bytes = 0;
  int ranks = 0;
  RankHeader* header(int r) const { return static_cast<RankHeader*>(base) + r; }
  char* slot(int r) const {
    return static_cast<char*>(base) + sizeof(RankHeader) * static_cast<size_t>(ranks) +
           slot_bytes() * static_cast<size_t>(r);
  }
  char* result() const { return slot(ranks); }
  ~Segment() {
    if (base) ::munmap(base, bytes);
  }
};

namespace {

enum class Mode { Off, Auto, Required };

// EMBER_SHM: unset = shared memory when every rank is on this host, else TCP; 0 = TCP only;
// 1 = shared memory or an error saying why not.
Mode mode_from_environment() {
  const char* setting = std::getenv("EMBER_SHM");
  if (!setting || !*setting) return Mode::Auto;
  const std::string value = setting;
  if (value == "0") return Mode::Off;
  if (value == "1") return Mode::Required;
  throw Error("[init_process_group] EMBER_SHM=" + value + ": expected 0 (TCP only), 1 (shared "
              "memory required) or unset (shared memory when every rank is on this host)");
}

// Creates (rank 0) or opens the segment; on failure returns null and says why in `why`.
// posix_fallocate reserves the pages now: a full /dev/shm is a refusal here, not a SIGBUS later.
void* map_segment(const std::string& name, size_t bytes, bool create, std::string& why) {
  const int fd = create ? ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600)
                        : ::shm_open(name.c_str(), O_RDWR, 0600);
  if (fd < 0) {
    why = std::string(create ? "cannot create " : "cannot open ") + name + ": " + std::strerror(errno);
    return nullptr;
  }
  if (create) {
    if (const int e = ::posix_fallocate(fd, 0, static_cast<off_t>(bytes)); e != 0) {
      why = "cannot reserve " + std::to_string(bytes >> 20) + " MiB for " + name + ": " +
            std::strerror(e);
      ::close(fd);
      ::shm_unlink(name.c_str());
      return nullptr;
    }
  }
  void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int map_error = errno;
  ::close(fd);
  if (base != MAP_FAILED) return base;
  why = "cannot map " + name + ": " + std::strerror(map_error);
  if (create) ::shm_unlink(name.c_str());
  return nullptr;
}

}  // namespace

std::unique_ptr<SharedMemoryAllReduce> SharedMemoryAllReduce::create(ProcessGroup::Impl& g) {
  const Mode mode = mode_from_environment();
  if (mode == Mode::Off || g.config.size < 2) return nullptr;
  Store& store = *g.config.store;
  const std::string host = this_host();
  store.set("shm/host/" + std::to_string(g.config.rank), host);
  bool one_host = !host.empty();
  for (int r = 0; r < g.config.size; ++r)
    one_host = one_host && store.get("shm/host/" + std::to_string(r)) == host;
  if (!one_host) {  // every rank reads the same keys: all agree
    EMBER_CHECK(mode != Mode::Required, g.config.creator.c_str(), "EMBER_SHM=1, but the ranks "
                "do not all run on one host (unset EMBER_SHM to use TCP between hosts)");
    return nullptr;
  }

  auto segment = std::make_unique<Segment>();
  segment->ranks = g.config.size;
  segment->bytes = sizeof(RankHeader) * static_cast<size_t>(g.config.size) +
                   slot_bytes() * static_cast<size_t>(g.config.size + 1);
  std::string name, why;
  if (g.config.rank == 0) {
    name = "/ember-" + std::to_string(::getpid()) + "-" + std::to_string(std::random_device{}());
    segment->base = map_segment(name, segment->bytes, /*create=*/true, why);
    store.set("shm/name", segment->base ? name : "");
  } else {
    name = store.get("shm/name");
    if (name.empty()) why = "rank 0 could not create it";
    else segment->base = map_segment(name, segment->bytes, /*create=*/false, why);
  }
  const bool mapped = segment->base != nullptr;
  if (mapped) {
    RankHeader* mine = segment->header(g.config.rank);
    mine->pid = ::getpid();
    mine->phase.store(0, std::memory_order_release);
  }
  // Every rank says whether it mapped the segment, and all take the same road: shared memory
  // only if everyone has it. Once all have answered the name can go, so a crash leaves nothing
  // in /dev/shm.
  store.set("shm/mapped/" + std::to_string(g.config.rank), mapped ? "1" : "0:" + why);
  std::string refusal;
  for (int r = 0; r < g.config.size && refusal.empty(); ++r)
    if (const std::string answer = store.get("shm/mapped/" + std::to_string(r)); answer != "1")
      refusal = g.rank_name(r) + ": " + answer.substr(answer.find(':') + 1);
  if (g.config.rank == 0 && mapped) ::shm_unlink(name.c_str());
  if (!refusal.empty()) {
    if (mapped) ::munmap(segment->base, segment->bytes);
    segment->base = nullptr;
    EMBER_CHECK(mode != Mode::Required, g.config.creator.c_str(), "EMBER_SHM=1, but no shared "
                "memory: ", refusal, " (unset EMBER_SHM to fall back to TCP)");
    return nullptr;
  }
  return std::unique_ptr<SharedMemoryAllReduce>(new SharedMemoryAllReduce(g, std::move(segment)));
}

SharedMemoryAllReduce::SharedMemoryAllReduce(ProcessGroup::Impl& group,
                                             std::unique_ptr<Segment> segment)
    : group_(group), segment_(std::move(segment)) {}

SharedMemoryAllReduce::~SharedMemoryAllReduce() = default;

void SharedMemoryAllReduce::wait_for_phase(uint64_t phase, const std::string& prefix) {
  const auto target = static_cast<uint32_t>(phase);
  const auto deadline = std::chrono::steady_clock::now() + group_.config.timeout;
  for (int r = 0; r < segment_->ranks; ++r) {
    RankHeader* peer = segment_->header(r);
    // A short spin catches a peer that is about to arrive; then sleep on its futex word, waking
    // every 2 ms to check that it is alive and that the timeout has not passed.
    for (int spin = 0; spin < 2000; ++spin) {
      if (reached(peer->phase.load(std::memory_order_acquire), target)) break;
      _mm_pause();
    }
    for (;;) {
      const uint32_t seen = peer->phase.load(std::memory_order_acquire);
      if (reached(seen, target)) break;
      const timespec two_ms{0, 2'000'000};
      ::syscall(SYS_futex, futex_word(peer->phase), FUTEX_WAIT, static_cast<int>(seen), &two_ms,
                nullptr, 0);
      if (reached(peer->phase.load(std::memory_order_acquire), target)) break;
      if (!alive(peer->pid))
        throw Error(prefix + group_.rank_name(r) +
                    " exited (peer died?) — shared memory: its process " +
                    std::to_string(peer->pid) + " is gone");
      if (std::chrono::steady_clock::now() >= deadline)
        throw Error(prefix + "timed out after " + detail::format_duration(group_.config.timeout) +
                    " waiting for " + group_.rank_name(r) + " (shared memory)");
    }
  }
}

void SharedMemoryAllReduce::all_reduce(void* data, Dtype dtype, int64_t numel, ReduceOp op,
                                       const std::string& prefix) {
  const auto function = reduce_function(dtype, op, "all_reduce");
  const size_t element = static_cast<size_t>(itemsize(dtype));
  const size_t per_chunk = slot_bytes() / element;
  const int n = segment_->ranks, me = group_.config.rank;
  RankHeader* mine = segment_->header(me);
  auto* bytes = static_cast<char*>(data);
  for (size_t begin = 0; begin < static_cast<size_t>(numel); begin += per_chunk) {
    const size_t count = std::min(per_chunk, static_cast<size_t>(numel) - begin);
    const uint64_t k = chunks_done_++;
    char* local = bytes + begin * element;
    // This rank reduces elements [lo, hi) of the chunk; the others reduce the rest. Only what
    // the others read goes into this rank's slot, its own share is reduced straight from `local`
    // into `local`, and only the others' shares are copied back out: ~20% less memory traffic
    // than staging the whole chunk, and all_reduce here is bound by memory bandwidth.
    const size_t lo = count * static_cast<size_t>(me) / static_cast<size_t>(n) * element;
    const size_t hi = count * static_cast<size_t>(me + 1) / static_cast<size_t>(n) * element;
    const size_t end = count * element;
    std::memcpy(segment_->slot(me), local, lo);
    std::memcpy(segment_->slot(me) + hi, local + hi, end - hi);
    publish(mine, static_cast<uint32_t>(3 * k + 1));
    wait_for_phase(3 * k + 1, prefix);

    if (hi > lo) {
      // In rank order (0, 1, 2, ...) whichever rank reduces, so the sum is the same on every rank.
      auto source = [&](int r) { return r == me ? local + lo : segment_->slot(r) + lo; };
      const size_t share = (hi - lo) / element;
      char* out = segment_->result() + lo;  // not `local`: rank me >= 2 still reads it below
      function(out, source(0), source(1), share);
      for (int r = 2; r < n; ++r) function(out, out, source(r), share);
      std::memcpy(local + lo, out, hi - lo);
    }
    publish(mine, static_cast<uint32_t>(3 * k + 2));
    wait_for_phase(3 * k + 2, prefix);
    std::memcpy(local, segment_->result(), lo);
    std::memcpy(local + hi, segment_->result() + hi, end - hi);
    publish(mine, static_cast<uint32_t>(3 * k + 3));
  }
  if (op == ReduceOp::AVG) divide_for_average(data, dtype, static_cast<size_t>(numel), n);
}

void SharedMemoryAllReduce::all_gather(const void* input, void* output, int64_t bytes,
                                       const std::string& prefix) {
  const int n = segment_->ranks, me = group_.config.rank;
  RankHeader* mine = segment_->header(me);
  const auto* in = static_cast<const char*>(input);
  auto* out = static_cast<char*>(output);
  const size_t total = static_cast<size_t>(bytes);
  for (size_t begin = 0; begin < total; begin += slot_bytes()) {
    const size_t count = std::min(slot_bytes(), total - begin);
    const uint64_t k = chunks_done_++;
    std::memcpy(segment_->slot(me), in + begin, count);
    publish(mine, static_cast<uint32_t>(3 * k + 1));
    wait_for_phase(3 * k + 1, prefix);
    for (int r = 0; r < n; ++r)
      std::memcpy(out + total * static_cast<size_t>(r) + begin,
                  r == me ? in + begin : segment_->slot(r), count);
    publish(mine, static_cast<uint32_t>(3 * k + 2));
    wait_for_phase(3 * k + 2, prefix);
    publish(mine, static_cast<uint32_t>(3 * k + 3));
  }
}

// A broadcast's chunk k, the all-gather's phases with one slot: src copies its chunk into its
// slot (3k+1); every other rank copies it out (3k+2); src sees them all at 3k+2 before it
// overwrites the slot with the next chunk, and everyone sees that before the next op (3k+3).
// Over Gloo's loopback TCP, DDP's two buffer broadcasts before each forward (BatchNorm's
// statistics and counts, 194 floats and 2 integers in the reference CNN) cost 2.5-3.5 ms of a
// 5 ms forward on a 2-core Zen 5 with a rank per core: each hop of the message waits for a
// thread to be scheduled on a core the other rank's compute holds.
void SharedMemoryAllReduce::broadcast(void* data, int64_t bytes, int src,
                                      const std::string& prefix) {
  const int me = group_.config.rank;
  RankHeader* mine = segment_->header(me);
  auto* local = static_cast<char*>(data);
  const size_t total = static_cast<size_t>(bytes);
  for (size_t begin = 0; begin < total; begin += slot_bytes()) {
    const size_t count = std::min(slot_bytes(), total - begin);
    const uint64_t k = chunks_done_++;
    if (me == src) std::memcpy(segment_->slot(src), local + begin, count);
    publish(mine, static_cast<uint32_t>(3 * k + 1));
    wait_for_phase(3 * k + 1, prefix);
    if (me != src) std::memcpy(local + begin, segment_->slot(src), count);
    publish(mine, static_cast<uint32_t>(3 * k + 2));
    wait_for_phase(3 * k + 2, prefix);
    publish(mine, static_cast<uint32_t>(3 * k + 3));
  }
}

void SharedMemoryAllReduce::reduce_scatter(const void* input, void* output, Dtype dtype,
                                           int64_t numel, ReduceOp op,
                                           const std::string& prefix) {
  const auto function = reduce_function(dtype, op, "reduce_scatter");
  const size_t element = static_cast<size_t>(itemsize(dtype));
  const int n = segment_->ranks, me = group_.config.rank;
  const size_t per_piece = slot_bytes() / static_cast<size_t>(n) / element;  // elements
  if (per_piece == 0)
    throw Error(prefix + "EMBER_SHM_CHUNK_BYTES=" + std::to_string(slot_bytes()) +
                " holds no " + dtype_name(dtype) + " element for each of " + std::to_string(n) +
                " ranks");
  RankHeader* mine = segment_->header(me);
  const auto* in = static_cast<const char*>(input);
  auto* out = static_cast<char*>(output);
  const size_t block = static_cast<size_t>(numel) * element;  // one rank's output, in bytes
  auto piece = [&](int r, int q) {  // in slot r, the piece for rank q
    return segment_->slot(r) + static_cast<size_t>(q) * per_piece * element;
  };
  for (size_t begin = 0; begin < static_cast<size_t>(numel); begin += per_piece) {
    const size_t count = std::min(per_piece, static_cast<size_t>(numel) - begin);
    const size_t at = begin * element, bytes = count * element;
    const uint64_t k = chunks_done_++;
    for (int q = 0; q < n; ++q)
      if (q != me) std::memcpy(piece(me, q), in + block * static_cast<size_t>(q) + at, bytes);
    publish(mine, static_cast<uint32_t>(3 * k + 1));
    wait_for_phase(3 * k + 1, prefix);
    auto source = [&](int r) {
      return r == me ? in + block * static_cast<size_t>(me) + at : piece(r, me);
    };
    function(out + at, source(0), source(1), count);
    for (int r = 2; r < n; ++r) function(out + at, out + at, source(r), count);
    publish(mine, static_cast<uint32_t>(3 * k + 2));
    wait_for_phase(3 * k + 2, prefix);
    publish(mine, static_cast<uint32_t>(3 * k + 3));
  }
  if (op == ReduceOp::AVG) divide_for_average(output, dtype, static_cast<size_t>(numel), n);
}

}  // namespace ember::dist
