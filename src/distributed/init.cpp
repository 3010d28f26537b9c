// The default group and its life: init_process_group (env://, tcp://, file://, or a given store),
// new_group, destroy_process_group, and finding the group a call runs on.
// Note [Who hosts the store]: env:// and tcp:// rendezvous through a TCPStore at MASTER_ADDR:
// MASTER_PORT. Rank 0 hosts its server, as PyTorch does, unless the launcher hosts it; then every
// rank, rank 0 included, is a client. A launcher says so with TORCHELASTIC_USE_AGENT_STORE=True
// (torchrun's agent store, which current torchrun shares with its workers; 1.13's sets False) or
// EMBER_RUN_HOSTS_STORE=1 (ember-run, which sets both). The store speaks PyTorch's protocol, so
// the agent's store is PyTorch's own TCPStore server here (tcp_store_protocol.h). Under a launcher
// that restarts the job, TORCHELASTIC_RESTART_COUNT=<n> puts every key under "attempt_<n>/", so
// a restarted group never reads the previous attempt's rendezvous.
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>

#include "distributed/device_communicator.h"
#include "distributed/group.h"
#include "distributed/launch_environment.h"
#include "distributed/tcp_store_workers.h"
#include "ember/error.h"

namespace ember::dist {
namespace {

constexpr const char* kInit = "init_process_group";

struct World {
  std::mutex mutex;
  std::shared_ptr<Store> store;  // the job's rendezvous store (after the attempt prefix)
  std::shared_ptr<ProcessGroup::Impl> group;
  std::vector<std::shared_ptr<ProcessGroup::Impl>> subgroups;
  int groups_made = 0;
};

World& world() {
  static World w;
  return w;
}

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}


// The IPv4 address of a network interface (GLOO_SOCKET_IFNAME, as in PyTorch).
std::string interface_address(const std::string& name) {
  ifaddrs* list = nullptr;
  EMBER_CHECK(::getifaddrs(&list) == 0, kInit, "cannot list network interfaces: ",
              std::strerror(errno));
  std::string found;
  for (ifaddrs* a = list; a; a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || name != a->ifa_name) continue;
    char text[INET_ADDRSTRLEN];
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, text,
                sizeof text);
    found = text;
    break;
  }
  ::freeifaddrs(list);
  EMBER_CHECK(!found.empty(), kInit, "GLOO_SOCKET_IFNAME='", name,
              "' names no interface with an IPv4 address");
  return found;
}

// The local address this host uses to reach host:port, which the other ranks can therefore
// reach too (a connected UDP socket sends nothing); loopback for a loopback master.
std::string address_towards(const std::string& host, uint16_t port) {
  if (auto name = environment("GLOO_SOCKET_IFNAME"); !name.empty()) return interface_address(name);
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* result = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &result) != 0)
    return "127.0.0.1";
  std::string local = "127.0.0.1";
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && ::connect(fd, result->ai_addr, result->ai_addrlen) == 0) {
    sockaddr_in self{};
    socklen_t length = sizeof self;
    char text[INET_ADDRSTRLEN];
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&self), &length) == 0 &&
        ::inet_ntop(AF_INET, &self.sin_addr, text, sizeof text))
      local = text;
  }
  if (fd >= 0) ::close(fd);
  ::freeaddrinfo(result);
  return local;
}

uint16_t parse_port(const std::string& text, const std::string& what) {
  const auto port = detail::parse_int(text);
  EMBER_CHECK(port && *port > 0 && *port < 65536, kInit, what, " '", text,
              "' is not a port number (1-65535)");
  return static_cast<uint16_t>(*port);
}

// EMBER_DISTRIBUTED_DEBUG (or TORCH_DISTRIBUTED_DEBUG) INFO or DETAIL: say where the rank and
// the world size came from.
bool launch_log_enabled() {
  for (const char* name : {"EMBER_DISTRIBUTED_DEBUG", "TORCH_DISTRIBUTED_DEBUG"}) {
    std::string value = environment(name);
    std::transform(value.begin(), value.end(), value.begin(), ::toupper);
    if (!value.empty()) return value == "INFO" || value == "DETAIL";
  }
  return false;
}

// Note [Who hosts the store]. torchrun writes Python's str(bool): "True" or "False".
bool launcher_hosts_store() {
  std::string agent = environment("TORCHELASTIC_USE_AGENT_STORE");
  std::transform(agent.begin(), agent.end(), agent.begin(), ::tolower);
  return agent == "true" || agent == "1" || environment("EMBER_RUN_HOSTS_STORE") == "1";
}

struct Rendezvous {
  std::shared_ptr<Store> store;
  std::string interface = "127.0.0.1";
  int rank = -1, world_size = -1;
};

Rendezvous rendezvous_from(const InitOptions& o) {
  Rendezvous r{o.store, "127.0.0.1", o.rank, o.world_size};
  const std::string method = o.init_method;
  const detail::LaunchPlace place = detail::launch_place();
  auto from_launcher = [&](int value, const char* name, const char* what) {
    EMBER_CHECK(value >= 0, kInit, name, " is not set (", what,
                "); launch with ember-run, torchrun, srun or mpirun, or pass it in InitOptions");
    return value;
  };
  if (r.rank < 0 && (!r.store || place.rank >= 0))
    r.rank = from_launcher(place.rank, "RANK", "this process's rank");
  if (r.world_size < 0 && (!r.store || place.world_size >= 0))
    r.world_size = from_launcher(place.world_size, "WORLD_SIZE", "the number of ranks");
  if (launch_log_enabled())
    std::fprintf(stderr, "[ember.distributed] rank %d of %d from %s; rendezvous %s%s\n", r.rank,
                 r.world_size,
                 o.rank >= 0 && o.world_size >= 0 ? "InitOptions" : place.source.c_str(),
                 r.store ? "through the given store" : method.c_str(),
                 r.store                  ? ""
                 : launcher_hosts_store() ? " (the launcher hosts the store)"
                                          : " (rank 0 hosts the store)");
  EMBER_CHECK(r.world_size >= 1, kInit, "world_size must be >= 1, got ", r.world_size);
  EMBER_CHECK(r.rank >= 0 && r.rank < r.world_size, kInit, "rank ", r.rank,
              " is outside the world of ", r.world_size, " ranks");
  if (r.store) {
    if (auto* tcp = dynamic_cast<TCPStore*>(r.store.get()))
      r.interface = address_towards(tcp->host(), tcp->port());
    return r;
  }
  std::string host;
  uint16_t port = 0;
  if (method == "env://") {
    host = place.master_addr;  // Slurm's and MPI's defaults included (launch_environment.cpp)
    EMBER_CHECK(!host.empty(), kInit,
                "MASTER_ADDR is not set (the host of the rendezvous store, env://); launch with "
                "ember-run or torchrun, or set it");
    const std::string& port_text = place.master_port;
    EMBER_CHECK(!port_text.empty(), kInit,
                "MASTER_PORT is not set (the rendezvous store's port, env://); launch with "
                "ember-run or torchrun, or set it");
    port = parse_port(port_text, "MASTER_PORT");
  } else if (method.rfind("tcp://", 0) == 0) {
    const std::string address = method.substr(6);
    const auto colon = address.rfind(':');
    EMBER_CHECK(colon != std::string::npos && colon > 0, kInit, "init_method '", method,
                "' must be tcp://host:port");
    host = address.substr(0, colon);
    port = parse_port(address.substr(colon + 1), "the port of init_method");
  } else if (method.rfind("file://", 0) == 0) {
    const std::string path = method.substr(7);
    EMBER_CHECK(!path.empty(), kInit, "init_method '", method, "' must be file:///path");
    r.store = std::make_shared<FileStore>(path, o.timeout);
    if (auto name = environment("GLOO_SOCKET_IFNAME"); !name.empty())
      r.interface = interface_address(name);
    return r;
  } else {
    fail(kInit, "init_method '", method,
         "' is not one of env://, tcp://host:port, file:///path");
  }
  const bool launcher_hosts = launcher_hosts_store();
  auto store = std::make_shared<TCPStore>(
      host, port,
      TCPStoreOptions{.is_master = !launcher_hosts && r.rank == 0, .timeout = o.timeout});
  // A PyTorch rank 0 hosting the store waits for every rank's count (Note [PyTorch's init/
  // counter] in tcp_store_workers.h).
  const int64_t joined = detail::count_as_worker(*store, kInit, r.rank);
  if (launch_log_enabled())
    std::fprintf(stderr, "[ember.distributed] rank %d counted itself in init/: %lld of %d\n",
                 r.rank, static_cast<long long>(joined), r.world_size);
  r.store = store;
  r.interface = address_towards(host, port);
  return r;
}

}  // namespace

bool debug_mode_from_environment() {
  for (const char* name : {"EMBER_DISTRIBUTED_DEBUG", "TORCH_DISTRIBUTED_DEBUG"}) {
    std::string value = environment(name);
    if (value.empty()) continue;
    std::transform(value.begin(), value.end(), value.begin(), ::toupper);
    EMBER_CHECK(value == "OFF" || value == "INFO" || value == "DETAIL", kInit, name, "='",
                environment(name), "' is not one of OFF, INFO, DETAIL");
    return value == "DETAIL";
  }
  return false;
}

void init_process_group(const InitOptions& o) {
  World& w = world();
  std::lock_guard lock(w.mutex);
  EMBER_CHECK(!w.group, kInit, "the default process group is already initialized (rank ",
              w.group ? w.group->config.rank : -1, " of ", w.group ? w.group->config.size : 0,
              "); call destroy_process_group() first");
  // "nccl" is registered by a CUDA build with NCCL; tests register fakes (device_communicator.h).
  const bool known = o.backend == "gloo" || find_device_backend(o.backend);
  EMBER_CHECK(known || o.backend != "nccl", kInit, "backend 'nccl' needs ember built with CUDA "
              "(-DEMBER_CUDA=ON) and NCCL; this build has no NCCL (PyTorch: \"Distributed "
              "package doesn't have NCCL built in\"). Use backend 'gloo' for CPU tensors");
  EMBER_CHECK(known, kInit, "unknown backend '", o.backend,
              "' (expected 'gloo', or 'nccl' in a CUDA build)");
  Rendezvous r = rendezvous_from(o);
  const std::string attempt = environment("TORCHELASTIC_RESTART_COUNT");
  // A TCP store can tell the others when this process is gone (group.cpp: departed_peers).
  auto* tcp = dynamic_cast<TCPStore*>(r.store.get());
  if (tcp)
    tcp->watch_connection((attempt.empty() ? "" : "attempt_" + attempt + "/") + "gone/" +
                          std::to_string(r.rank));
  if (!attempt.empty()) r.store = std::make_shared<PrefixStore>("attempt_" + attempt, r.store);
  ProcessGroup::Impl::Config config;
  config.store = std::make_shared<PrefixStore>("default_pg", r.store);
  if (tcp) config.job_store = r.store;
  config.rank = r.rank;
  config.size = r.world_size;
  for (int i = 0; i < r.world_size; ++i) config.global_ranks.push_back(i);
  config.interface_address = r.interface;
  config.timeout = o.timeout;
  config.debug = debug_mode_from_environment();
  config.backend = o.backend;
  w.group = std::make_shared<ProcessGroup::Impl>(std::move(config));
  w.store = r.store;
}

bool is_initialized() {
  World& w = world();
  std::lock_guard lock(w.mutex);
  return w.group != nullptr;
}

void destroy_process_group() {
  World& w = world();
  std::lock_guard lock(w.mutex);
  EMBER_CHECK(w.group, "destroy_process_group", "the default process group is not initialized");
  if (w.group->config.debug) announce_departure(*w.group);
  w.subgroups.clear();
  w.group.reset();
  w.store.reset();
  w.groups_made = 0;
}

ProcessGroup new_group(const std::vector<int>& ranks, std::chrono::milliseconds timeout) {
  World& w = world();
  std::lock_guard lock(w.mutex);
  EMBER_CHECK(w.group, "new_group", "the default process group is not initialized; call "
              "dist::init_process_group() first");
  const int world_size = w.group->config.size;
  std::vector<int> members = ranks;
  if (members.empty())
    for (int i = 0; i < world_size; ++i) members.push_back(i);
  std::vector<int> sorted = members;
  std::sort(sorted.begin(), sorted.end());
  EMBER_CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), "new_group",
              "ranks must be distinct");
  for (int r : members)
    EMBER_CHECK(r >= 0 && r < world_size, "new_group", "rank ", r,
                " is outside the world of ", world_size, " ranks");
  const int index = ++w.groups_made;
  const std::string name = "group " + std::to_string(index);
  const int me = w.group->config.rank;
  const auto position = std::find(members.begin(), members.end(), me);
  std::shared_ptr<ProcessGroup::Impl> group;
  if (position == members.end()) {
    group = std::make_shared<ProcessGroup::Impl>(members, name);
  } else {
    ProcessGroup::Impl::Config config = w.group->config;
    config.store = std::make_shared<PrefixStore>("group_" + std::to_string(index), w.store);
    config.rank = static_cast<int>(position - members.begin());
    config.size = static_cast<int>(members.size());
    config.global_ranks = members;
    config.name = name;
    config.creator = "new_group";
    if (timeout.count() > 0) config.timeout = timeout;
    group = std::make_shared<ProcessGroup::Impl>(std::move(config));
  }
  w.subgroups.push_back(group);
  return ProcessGroup(group);
}

ProcessGroup::Impl& resolve_group(const ProcessGroup& group, const char* op) {
  if (auto& impl = group.impl()) {
    if (impl->config.rank < 0) impl->refuse_if_not_member(op);
    return *impl;
  }
  World& w = world();
  std::lock_guard lock(w.mutex);
  EMBER_CHECK(w.group, op, "the default process group is not initialized; call "
              "dist::init_process_group() first (e.g. dist::init_process_group({.backend = "
              "\"gloo\"}) under ember-run)");
  return *w.group;
}

namespace {
const ProcessGroup::Impl& any_group(const ProcessGroup& group, const char* op) {
  if (group.impl()) return *group.impl();
  return resolve_group(group, op);
}
}  // namespace

int ProcessGroup::rank() const { return any_group(*this, "get_rank").config.rank; }
int ProcessGroup::size() const { return any_group(*this, "get_world_size").config.size; }
const std::vector<int>& ProcessGroup::ranks() const {
  return any_group(*this, "ProcessGroup.ranks").config.global_ranks;
}
const std::string& ProcessGroup::backend() const {
  return any_group(*this, "ProcessGroup.backend").backend;
}

int get_rank(const ProcessGroup& group) { return group.rank(); }
int get_world_size(const ProcessGroup& group) { return group.size(); }

}  // namespace ember::dist
