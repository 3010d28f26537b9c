// ProcessGroup::Impl: rendezvous, the Gloo mesh, the group's threads, and turning Gloo's
// exceptions into errors that name the op, its number, this rank and the peer.
#include "distributed/group.h"

#include <dirent.h>
#include <poll.h>
#include <gloo/rendezvous/context.h>
#include <gloo/transport/tcp/address.h>
#include <gloo/transport/tcp/device.h>
#include <signal.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "distributed/device_communicator.h"
#include "distributed/gloo_store.h"
#include "distributed/shared_memory.h"
#include "distributed/store_detail.h"
#include "distributed/work_state.h"
#include "ember/error.h"

namespace ember::dist {
namespace {

std::string join_ranks(const std::vector<int>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size(); ++i) out += (i ? ", " : "") + std::to_string(ranks[i]);
  return out;
}

bool contains(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

// Whether `what` holds `address` ("[127.0.0.1]:902", not the start of "[127.0.0.1]:9021").
bool names_address(const std::string& what, const std::string& address) {
  for (auto at = what.find(address); at != std::string::npos; at = what.find(address, at + 1)) {
    const size_t end = at + address.size();
    if (end == what.size() || !std::isdigit(static_cast<unsigned char>(what[end]))) return true;
  }
  return false;
}

// Gloo prefixes its messages with "[file.cc:123] "; the rest is what users need.
std::string without_source_location(const std::string& what) {
  if (!what.empty() && what[0] == '[')
    if (auto end = what.find("] "); end != std::string::npos) return what.substr(end + 2);
  return what;
}

// Gloo writes to its sockets with writev, which raises SIGPIPE when the peer has died; with the
// default disposition that kills this rank before Gloo can say which peer closed (seen in
// DistributedCheckpoint.ARankThatDiesMidSave...: "killed by signal 13"). Python ignores SIGPIPE,
// so PyTorch's ranks never see it; do the same unless the program handles SIGPIPE itself.
void ignore_sigpipe_unless_handled() {
  struct sigaction current = {};
  if (::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL)
    ::signal(SIGPIPE, SIG_IGN);
}

// Note [Naming the rank behind a Gloo error]
// Gloo's "Connection closed by peer [a]:p" (and "Read error [a]:p") usually names the peer's end
// of the pair, which that peer published (connect_mesh), but not always: with 3 ranks and one
// SIGKILLed, about 1 message in 5 named a port that no rank had published nor held (Gloo 2022-05,
// Debian's). So each rank also keeps its own end of every pair, the socket and its address, and
// asks the kernel which of them the peer has hung up (hung_up_peers). Neither says whether a peer died or gave up after another death: ember's store
// server records who left (gone/<rank>, departed_peers); with another server (torchrun's agent,
// PyTorch's TCPStore) a rank that gives up leaves a note first, gave_up/<its rank> = the rank it
// blamed, before it exits and closes its sockets, so the ranks that see it go can name the rank
// that died.

// This process's connected TCP sockets: (fd, the local address as Gloo prints addresses, which
// is sin_port unconverted).
std::vector<std::pair<int, std::string>> connected_tcp_sockets() {
  std::vector<std::pair<int, std::string>> out;
  DIR* fds = ::opendir("/proc/self/fd");
  if (!fds) return out;
  while (const dirent* entry = ::readdir(fds)) {
    const int fd = std::atoi(entry->d_name);
    int type = 0;
    socklen_t type_size = sizeof type;
    sockaddr_storage self{}, peer{};
    socklen_t self_size = sizeof self, peer_size = sizeof peer;
    if (entry->d_name[0] == '.' || fd == ::dirfd(fds) ||
        ::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &type_size) != 0 || type != SOCK_STREAM ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&self), &self_size) != 0 ||
        (self.ss_family != AF_INET && self.ss_family != AF_INET6) ||
        ::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_size) != 0)
      continue;
    out.emplace_back(fd, gloo::transport::tcp::Address(self).str());
  }
  ::closedir(fds);
  return out;
}

}  // namespace

// ── the group's threads ─────────────────────────────────────────────────────────────────────

void ProcessGroup::Impl::Queue::start() {
  thread = std::thread([this] {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return (stopping && !busy) || (!tasks.empty() && !busy); });
        if (tasks.empty()) return;  // stopping, and everything queued has run
        task = std::move(tasks.front());
        tasks.pop_front();
        busy = true;
      }
      task();
      {
        std::lock_guard lock(mutex);
        busy = false;
      }
    }
  });
}

bool ProcessGroup::Impl::Queue::run_inline_if_idle(const std::function<void()>& task) {
  {
    std::lock_guard lock(mutex);
    if (busy || !tasks.empty() || stopping) return false;
    busy = true;
  }
  task();
  bool queued;
  {
    std::lock_guard lock(mutex);
    busy = false;
    queued = !tasks.empty();
  }
  if (queued) changed.notify_one();  // work given to the thread meanwhile; else let it sleep
  return true;
}

void ProcessGroup::Impl::Queue::push(std::function<void()> task) {
  {
    std::lock_guard lock(mutex);
    tasks.push_back(std::move(task));
  }
  changed.notify_one();
}

void ProcessGroup::Impl::Queue::stop() {
  {
    std::lock_guard lock(mutex);
    stopping = true;
  }
  changed.notify_one();
  if (thread.joinable()) thread.join();
}

// ── creation ────────────────────────────────────────────────────────────────────────────────

ProcessGroup::Impl::Impl(Config c) : config(std::move(c)) {
  backend = config.backend;
  if (backend != "gloo") {
    // A device backend needs no Gloo mesh: its communicators bootstrap through the store when
    // a collective first names their device.
    device_backend = find_device_backend(backend);
    EMBER_CHECK(device_backend, config.creator.c_str(), "backend '", backend,
                "' is not registered");
    rendezvous();
    return;
  }
  ignore_sigpipe_unless_handled();
  rendezvous();
  connect_mesh();
  shared_memory = SharedMemoryAllReduce::create(*this);
  collectives_.start();
  p2p_waits_.start();
}

ProcessGroup::Impl::Impl(std::vector<int> global_ranks, std::string name) {
  config.rank = -1;
  config.size = static_cast<int>(global_ranks.size());
  config.global_ranks = std::move(global_ranks);
  config.name = std::move(name);
}

ProcessGroup::Impl::~Impl() {
  collectives_.stop();
  p2p_waits_.stop();
  device_comms_.clear();  // before the store their bootstrap used
}

// Every member announces itself and waits for the others, so a rank that never comes is named
// (Gloo's own rendezvous would only name a store key).
void ProcessGroup::Impl::rendezvous() {
  Store& store = *config.store;
  std::vector<std::string> keys;
  for (int r = 0; r < config.size; ++r) keys.push_back("joined/" + std::to_string(r));
  store.set(keys[static_cast<size_t>(config.rank)], "");
  try {
    store.wait(keys, config.timeout);
  } catch (const Error& e) {
    std::vector<int> missing;
    for (int r = 0; r < config.size; ++r)
      if (!store.check({keys[static_cast<size_t>(r)]})) missing.push_back(config.global_ranks[r]);
    if (missing.empty()) throw;  // the store itself failed: its message says how
    fail(config.creator.c_str(), "rank ", config.global_ranks[config.rank], ": timed out after ",
         detail::format_duration(config.timeout), " waiting for rank(s) ", join_ranks(missing),
         " to join the group (world_size ", config.size,
         "); did they start, with the same MASTER_ADDR/MASTER_PORT?");
  }
}

void ProcessGroup::Impl::connect_mesh() {
  const int me = config.global_ranks[config.rank];
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = config.interface_address;
    auto device = gloo::transport::tcp::CreateDevice(attr);
    auto mesh = std::make_shared<gloo::rendezvous::Context>(config.rank, config.size);
    mesh->setTimeout(config.timeout);
    GlooStore gloo_store(std::make_shared<PrefixStore>("gloo", config.store));
    mesh->connectFullMesh(gloo_store, device);
    context = mesh;
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    fail(config.creator.c_str(), "rank ", me, ": connecting to the other ranks (Gloo over TCP on ",
         config.interface_address, ") failed: ", without_source_location(e.what()));
  }
  // Each rank publishes the address of its end of every pair; a peer's Gloo errors print that
  // address, so it tells which rank a failure came from. It keeps the socket of its end too
  // (Note [Naming the rank behind a Gloo error]).
  std::string mine;
  const auto sockets = connected_tcp_sockets();
  pair_sockets.assign(static_cast<size_t>(config.size), {-1, ""});
  for (int r = 0; r < config.size; ++r) {
    if (r == config.rank) {
      mine += "\n";
      continue;
    }
    const std::string address = context->getPair(r)->address().str();
    mine += address + "\n";
    for (const auto& [fd, local] : sockets)
      if (local == address) pair_sockets[static_cast<size_t>(r)] = {fd, local};
  }
  config.store->set("addresses/" + std::to_string(config.rank), mine);
  for (int r = 0; r < config.size; ++r) {
    if (r == config.rank) continue;
    std::istringstream lines(config.store->get("addresses/" + std::to_string(r)));
    std::string line;
    for (int i = 0; std::getline(lines, line); ++i)
      if (i == config.rank) rank_of_address[line] = r;
  }
}

// ── messages ────────────────────────────────────────────────────────────────────────────────

std::string ProcessGroup::Impl::rank_name(int group_rank) const {
  return "rank " + std::to_string(config.global_ranks[static_cast<size_t>(group_rank)]);
}

std::string ProcessGroup::Impl::prefix(const std::string& op, int64_t seq) const {
  std::string out = "[" + op + " #" + std::to_string(seq) + "] " + rank_name(config.rank);
  if (!config.name.empty()) out += " (" + config.name + ")";
  return out + ": ";
}

void ProcessGroup::Impl::refuse_if_not_member(const std::string& op) const {
  fail(op.c_str(), "this process is not a member of ", config.name, " (ranks ",
       join_ranks(config.global_ranks), "); only its members may call its collectives");
}

std::string ProcessGroup::Impl::describe_failure(const std::string& what,
                                                 const CollectiveCall& call) const {
  const std::string gloo = " — gloo: " + without_source_location(what);
  if (contains(what, "Timed out") || contains(what, "timed out")) {
    std::vector<int> peers;
    if (call.peers.empty()) {
      for (int r = 0; r < config.size; ++r)
        if (r != config.rank) peers.push_back(config.global_ranks[r]);
    } else {
      for (int r : call.peers) peers.push_back(config.global_ranks[static_cast<size_t>(r)]);
    }
    const std::string waited = "timed out after " + detail::format_duration(config.timeout) +
                               " waiting for rank" + (peers.size() > 1 ? "s " : " ") +
                               join_ranks(peers);
    // A death can leave this rank blocked on another peer, where only the timeout ends the wait:
    // Gloo does not wake a send that is partly written when its pair fails (signalException
    // skips unbound buffers queued in tx_; still so upstream), which ended 1 run in 80 of a
    // 3-rank ring with a rank SIGKILLed, even after the other survivor exited. The timeout says
    // nothing of the death; the store knows who left.
    if (const auto gone = departed_peers(); !gone.empty())
      return describe_departures(gone) + "; " + waited + gloo;
    return waited + (peers.size() > 1 ? " (one of them is hung, stopped or far behind)" : "") +
           gloo;
  }
  if (contains(what, "closed by peer") || contains(what, "reset by peer") ||
      contains(what, "Broken pipe") || contains(what, "Read error") ||
      contains(what, "Write error") || contains(what, "Connection refused")) {
    // The socket that failed may belong to a survivor that gave up (a cascade); the store knows
    // who really left, and in which order.
    if (const auto gone = departed_peers(); !gone.empty()) return describe_departures(gone) + gloo;
    std::vector<int> left;
    if (config.size == 2) left.push_back(1 - config.rank);
    for (const auto& [address, r] : rank_of_address)
      if (left.empty() && names_address(what, address)) left.push_back(r);
    if (left.empty()) left = hung_up_peers();
    if (left.empty()) return "a peer closed the connection (peer died?)" + gloo;
    // A store that does not record departures: the first to leave without a note died; a rank
    // that left a note gave up, blaming the rank that did.
    int cause = -1, first_blamed = -1;
    for (int r : left) {
      const int blamed = blamed_by(r);
      if (blamed < 0) {
        cause = r;
        break;
      }
      if (first_blamed < 0) first_blamed = blamed;
    }
    if (cause < 0) cause = first_blamed != config.rank ? first_blamed : left[0];
    std::vector<int> gone{cause};
    for (int r : left)
      if (r != cause) gone.push_back(r);
    leave_note(cause);
    return describe_departures(gone) + gloo;
  }
  return "Gloo failed: " + without_source_location(what);
}

// "rank 1 closed the connection (peer died?) (then rank 0 left too)": the first departure is the
// cause, later ones may be survivors that gave up.
std::string ProcessGroup::Impl::describe_departures(const std::vector<int>& gone) const {
  std::string also;
  for (size_t i = 1; i < gone.size(); ++i) also += (i > 1 ? ", " : "") + rank_name(gone[i]);
  return rank_name(gone[0]) + " closed the connection (peer died?)" +
         (also.empty() ? "" : " (then " + also + " left too)");
}

// Members whose end of this rank's pair the kernel reports hung up or Gloo has closed.
std::vector<int> ProcessGroup::Impl::hung_up_peers() const {
  std::vector<int> out;
  for (int r = 0; r < static_cast<int>(pair_sockets.size()); ++r) {
    const auto& [fd, address] = pair_sockets[static_cast<size_t>(r)];
    if (fd < 0) continue;
    sockaddr_storage self{};
    socklen_t size = sizeof self;
    pollfd probe{fd, POLLRDHUP, 0};
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&self), &size) != 0 ||
        gloo::transport::tcp::Address(self).str() != address ||  // closed; the fd reused
        (::poll(&probe, 1, 0) == 1 && (probe.revents & (POLLRDHUP | POLLHUP | POLLERR))))
      out.push_back(r);
  }
  return out;
}

// The group rank that `group_rank` blamed in its gave_up note, or -1 (no note, no job store).
int ProcessGroup::Impl::blamed_by(int group_rank) const {
  if (!config.job_store) return -1;
  try {
    const std::string key = "gave_up/" + std::to_string(config.global_ranks[group_rank]);
    if (!config.job_store->check({key})) return -1;
    const int global = std::stoi(config.job_store->get(key));
    const auto it = std::find(config.global_ranks.begin(), config.global_ranks.end(), global);
    return it == config.global_ranks.end() ? -1 : static_cast<int>(it - config.global_ranks.begin());
  } catch (const std::exception&) {
    return -1;
  }
}

// Before this rank gives up and closes its sockets: which rank it blames, for the others.
void ProcessGroup::Impl::leave_note(int blamed) const {
  if (!config.job_store) return;
  try {
    config.job_store->set("gave_up/" + std::to_string(config.global_ranks[config.rank]),
                          std::to_string(config.global_ranks[blamed]));
  } catch (const std::exception&) {
  }  // the store went with its host; the others fall back to Gloo's addresses
}

// Members whose watched store connection has closed, first departure first. The store server
// may learn of a death a little after Gloo does, so this waits up to half a second for one.
std::vector<int> ProcessGroup::Impl::departed_peers() const {
  if (!config.job_store) return {};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
  try {
    for (;;) {
      std::vector<std::pair<long long, int>> gone;  // (departure order, group rank)
      for (int r = 0; r < config.size; ++r) {
        const std::string key = "gone/" + std::to_string(config.global_ranks[r]);
        if (r != config.rank && config.job_store->check({key}))
          gone.emplace_back(std::stoll(config.job_store->get(key)), r);
      }
      if (!gone.empty() || std::chrono::steady_clock::now() >= deadline) {
        std::sort(gone.begin(), gone.end());
        std::vector<int> out;
        for (const auto& [order, r] : gone) out.push_back(r);
        return out;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  } catch (const std::exception&) {
    return {};  // the store went with its host: fall back to Gloo's addresses
  }
}

void ProcessGroup::Impl::record_error(const std::string& message) {
  std::lock_guard lock(error_mutex);
  if (first_error.empty()) first_error = message;
}

std::string ProcessGroup::Impl::check_usable(const std::string& op, int64_t seq) {
  std::lock_guard lock(error_mutex);
  if (first_error.empty()) return "";
  return prefix(op, seq) + "the process group is unusable after an earlier error (" +
         first_error +
         "); destroy it and start a new one (ember-run --max-restarts restarts the job)";
}

// ── running ─────────────────────────────────────────────────────────────────────────────────

Work ProcessGroup::Impl::run(CollectiveCall call, bool async,
                             std::function<void(uint32_t tag)> body) {
  const int64_t seq = ++sequence;
  if (auto refusal = check_usable(call.op, seq); !refusal.empty()) throw Error(refusal);
  auto state = std::make_shared<Work::State>();
  auto task = [this, state, call = std::move(call), seq, body = std::move(body)] {
    if (auto refusal = check_usable(call.op, seq); !refusal.empty())
      return state->finish(std::make_exception_ptr(Error(refusal)));
    try {
      if (config.debug) check_fingerprints(*this, call, seq);
      body(static_cast<uint32_t>(seq));
      state->finish();
    } catch (const Error& e) {  // ours (the debug mode's): already says who and what
      record_error(e.what());
      state->finish(std::current_exception());
    } catch (const std::exception& e) {
      const std::string message = prefix(call.op, seq) + describe_failure(e.what(), call);
      record_error(message);
      state->finish(std::make_exception_ptr(Error(message)));
    }
  };
  Work work(state);
  if (async || !collectives_.run_inline_if_idle(task)) collectives_.push(std::move(task));
  if (!async) work.wait();
  return work;
}

Work ProcessGroup::Impl::run_p2p(CollectiveCall call, bool async,
                                 std::function<std::function<void()>()> post) {
  int64_t seq;
  {
    std::lock_guard lock(error_mutex);
    seq = ++p2p_sequence;
  }
  if (auto refusal = check_usable(call.op, seq); !refusal.empty()) throw Error(refusal);
  auto fail_with = [this, call, seq](const std::exception& e) {
    const std::string message = prefix(call.op, seq) + describe_failure(e.what(), call);
    record_error(message);
    return std::make_exception_ptr(Error(message));
  };
  std::function<void()> wait_for_peer;
  try {
    wait_for_peer = post();
  } catch (const std::exception& e) {
    std::rethrow_exception(fail_with(e));
  }
  auto state = std::make_shared<Work::State>();
  p2p_waits_.push([state, wait_for_peer = std::move(wait_for_peer), fail_with] {
    try {
      wait_for_peer();
      state->finish();
    } catch (const std::exception& e) {
      state->finish(fail_with(e));
    }
  });
  Work work(state);
  if (!async) work.wait();
  return work;
}

// ── a device backend's calls ────────────────────────────────────────────────────────────────

DeviceCommunicator& ProcessGroup::Impl::device_communicator(Device device, const std::string& op,
                                                            int64_t seq) {
  last_device_ = device.index();
  auto& comm = device_comms_[device.index()];
  if (!comm) {
    const std::string space = "device_comm/" + std::to_string(device_comms_.size() - 1);
    auto store = std::make_shared<PrefixStore>(space, config.store);
    try {
      comm = device_backend->create({.store = store,
                                     .rank = config.rank,
                                     .size = config.size,
                                     .device = device,
                                     .timeout = config.timeout,
                                     .prefix = [this](const std::string& o, int64_t s) {
                                       return prefix(o, s);
                                     }});
    } catch (const std::exception& e) {
      device_comms_.erase(device.index());
      throw Error(prefix(op, seq) + "building the " + backend + " communicator on " +
                  device.str() + " failed: " + e.what());
    }
  }
  return *comm;
}

Device ProcessGroup::Impl::barrier_device() const {
  const int last = last_device_;
  return last == kNoDevice ? device_backend->default_device(config.rank)
                           : Device(device_backend->device_type, last);
}

Device collective_device(const ProcessGroup& group, Device preferred) {
  const ProcessGroup::Impl& g = resolve_group(group, "collective_device");
  if (!g.device_backend) return Device(kCPU);
  return preferred.type() == g.device_backend->device_type ? preferred : g.barrier_device();
}

Work ProcessGroup::Impl::run_on_device(CollectiveCall call, bool async, Device device,
                                       std::function<void(DeviceCommunicator&, int64_t)> body) {
  std::lock_guard lock(device_mutex_);
  const int64_t seq = ++sequence;
  // A watchdog that aborted a communicator since the last call broke the group.
  for (const auto& [index, comm] : device_comms_)
    if (std::string error = comm->error(); !error.empty()) record_error(error);
  if (auto refusal = check_usable(call.op, seq); !refusal.empty()) throw Error(refusal);
  auto state = std::make_shared<Work::State>();
  DeviceCommunicator* comm = nullptr;
  try {
    if (config.debug) check_fingerprints(*this, call, seq);
    comm = &device_communicator(device, call.op, seq);
    body(*comm, seq);
    state->finish();
  } catch (const std::exception& e) {
    // A collective that the watchdog aborted fails with the watchdog's error, which names it.
    std::string message = comm ? comm->error() : "";
    if (message.empty()) message = e.what();
    record_error(message);
    if (!async) throw Error(message);
    state->finish(std::make_exception_ptr(Error(message)));
  }
  return Work(state);
}

}  // namespace ember::dist
