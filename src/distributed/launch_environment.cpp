// Note [Launch environments]
// init_process_group (env://) finds its rank, the world size and the rendezvous store's address
// in the environment of whatever started the process, first match wins:
// - RANK and WORLD_SIZE (torchrun, ember-run, Kubeflow's PyTorchJob, or by hand): as given,
//   with MASTER_ADDR and MASTER_PORT, which those launchers always set. A launcher run inside a
//   Slurm or MPI job (torchrun under srun) sets them too, so they come before the rest.
// - Slurm's srun: SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, but only inside a job step
//   (SLURM_STEP_ID set): a batch script itself also has SLURM_PROCID=0 and the allocation's
//   SLURM_NTASKS, and would wait for ranks nobody starts. MASTER_ADDR defaults to the first
//   host of the step's node list (rank 0 runs there), MASTER_PORT to 29500 + SLURM_JOB_ID mod
//   1000, so that two jobs sharing a node do not take the same port.
// - Open MPI's mpirun: OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK; PMI launchers (MPICH's and
//   Intel MPI's mpiexec): PMI_RANK, PMI_SIZE, MPI_LOCALRANKID. MPI says nothing about rank 0's
//   host: MASTER_ADDR defaults to 127.0.0.1 when every rank is on this host (local size = size)
//   and must be given otherwise (mpirun -x MASTER_ADDR=host); MASTER_PORT defaults to 29500.
#include "distributed/launch_environment.h"

#include <cstdlib>
#include <optional>

#include "ember/error.h"

namespace ember::dist::detail {
namespace {

constexpr const char* kOp = "init_process_group";

// The variable as an int; -1 when unset.
int integer(const Getenv& env, const char* name) {
  const std::string text = env(name);
  if (text.empty()) return -1;
  const auto value = parse_int(text);
  EMBER_CHECK(value && *value >= 0, kOp, name, "='", text, "' is not a non-negative integer");
  return *value;
}

// MPI gives no host for rank 0: loopback when all ranks are on this host, else MASTER_ADDR.
void mpi_master(LaunchPlace& p, int local_size, const char* launcher) {
  EMBER_CHECK(p.world_size >= 1, kOp, launcher, " gave this process's rank but not the number ",
              "of ranks; set RANK and WORLD_SIZE instead");
  if (p.master_addr.empty()) {
    EMBER_CHECK(local_size == p.world_size, kOp, "MASTER_ADDR is not set and the ", p.world_size,
                " ranks ", launcher, " started are not all on this host: give rank 0's host, e.g. ",
                "mpirun -x MASTER_ADDR=<host> (and MASTER_PORT, default ", kDefaultMasterPort, ")");
    p.master_addr = "127.0.0.1";
  }
  if (p.master_port.empty()) p.master_port = std::to_string(kDefaultMasterPort);
}

}  // namespace

std::optional<int> parse_int(const std::string& text) {
  size_t used = 0;
  try {
    const int value = std::stoi(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

std::vector<std::string> expand_hostlist(const std::string& list) {
  // Split at the commas outside brackets, then expand each name's bracket groups left to right.
  std::vector<std::string> names;
  std::string current;
  int depth = 0;
  for (char c : list) {
    if (c == '[') ++depth;
    if (c == ']') --depth;
    EMBER_CHECK(depth == 0 || depth == 1, kOp, "host list '", list, "' has unbalanced brackets");
    if (c == ',' && depth == 0) {
      if (!current.empty()) names.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  EMBER_CHECK(depth == 0, kOp, "host list '", list, "' has an unclosed '['");
  if (!current.empty()) names.push_back(current);

  std::vector<std::string> hosts;
  for (const std::string& name : names) {
    std::vector<std::string> partial{""};
    size_t i = 0;
    while (i < name.size()) {
      if (name[i] != '[') {
        for (std::string& h : partial) h += name[i];
        ++i;
        continue;
      }
      const size_t close = name.find(']', i);
      const std::string ranges = name.substr(i + 1, close - i - 1);
      std::vector<std::string> suffixes;
      size_t start = 0;
      while (start <= ranges.size()) {
        size_t comma = ranges.find(',', start);
        if (comma == std::string::npos) comma = ranges.size();
        const std::string range = ranges.substr(start, comma - start);
        const size_t dash = range.find('-');
        const std::string lo = range.substr(0, dash);
        const std::string hi = dash == std::string::npos ? lo : range.substr(dash + 1);
        const auto a = parse_int(lo), b = parse_int(hi);
        EMBER_CHECK(!lo.empty() && a && b && *a <= *b && *b - *a < 100000, kOp, "host list '", list,
                    "': '", range, "' is not a number or a range lo-hi");
        for (int v = *a; v <= *b; ++v) {
          std::string digits = std::to_string(v);
          if (digits.size() < lo.size()) digits.insert(0, lo.size() - digits.size(), '0');
          suffixes.push_back(digits);
        }
        start = comma + 1;
      }
      std::vector<std::string> next;
      for (const std::string& h : partial)
        for (const std::string& s : suffixes) next.push_back(h + s);
      partial = std::move(next);
      i = close + 1;
    }
    hosts.insert(hosts.end(), partial.begin(), partial.end());
  }
  return hosts;
}

LaunchPlace launch_place(const Getenv& env) {
  LaunchPlace p;
  p.master_addr = env("MASTER_ADDR");
  p.master_port = env("MASTER_PORT");
  if (!env("RANK").empty() || !env("WORLD_SIZE").empty()) {
    p.source = "RANK/WORLD_SIZE";
    p.rank = integer(env, "RANK");
    p.world_size = integer(env, "WORLD_SIZE");
    p.local_rank = integer(env, "LOCAL_RANK");
    return p;
  }
  if (!env("SLURM_PROCID").empty() && !env("SLURM_STEP_ID").empty()) {
    p.source = "Slurm";
    p.rank = integer(env, "SLURM_PROCID");
    p.world_size = integer(env, "SLURM_NTASKS");
    EMBER_CHECK(p.world_size >= 1, kOp, "SLURM_PROCID is set but SLURM_NTASKS is not: srun sets ",
                "both; set RANK and WORLD_SIZE instead");
    p.local_rank = integer(env, "SLURM_LOCALID");
    if (p.master_addr.empty()) {
      std::string nodes = env("SLURM_STEP_NODELIST");
      if (nodes.empty()) nodes = env("SLURM_JOB_NODELIST");
      if (nodes.empty()) nodes = env("SLURM_NODELIST");
      EMBER_CHECK(!nodes.empty(), kOp, "MASTER_ADDR is not set and Slurm gave no node list ",
                  "(SLURM_STEP_NODELIST, SLURM_JOB_NODELIST): set MASTER_ADDR to rank 0's host");
      p.master_addr = expand_hostlist(nodes).at(0);
    }
    if (p.master_port.empty()) {
      const int job = integer(env, "SLURM_JOB_ID");
      p.master_port = std::to_string(kDefaultMasterPort + (job < 0 ? 0 : job % 1000));
    }
    return p;
  }
  if (!env("OMPI_COMM_WORLD_RANK").empty()) {
    p.source = "Open MPI";
    p.rank = integer(env, "OMPI_COMM_WORLD_RANK");
    p.world_size = integer(env, "OMPI_COMM_WORLD_SIZE");
    p.local_rank = integer(env, "OMPI_COMM_WORLD_LOCAL_RANK");
    mpi_master(p, integer(env, "OMPI_COMM_WORLD_LOCAL_SIZE"), "mpirun");
    return p;
  }
  if (!env("PMI_RANK").empty()) {
    p.source = "PMI";
    p.rank = integer(env, "PMI_RANK");
    p.world_size = integer(env, "PMI_SIZE");
    p.local_rank = integer(env, "MPI_LOCALRANKID");
    mpi_master(p, integer(env, "MPI_LOCALNRANKS"), "the PMI launcher (mpiexec)");
    return p;
  }
  return p;
}

LaunchPlace launch_place() {
  return launch_place([](const char* name) {
    const char* value = std::getenv(name);
    return std::string(value ? value : "");
  });
}

}  // namespace ember::dist::detail
