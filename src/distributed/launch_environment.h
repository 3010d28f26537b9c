// Where this process sits in its job, as whatever started it says (Note [Launch environments]
// in launch_environment.cpp): torchrun's and ember-run's variables, Slurm's srun, Open MPI's
// mpirun, or a PMI launcher (MPICH, Intel MPI).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ember::dist::detail {

struct LaunchPlace {
  int rank = -1, world_size = -1, local_rank = -1;  // -1: not given
  std::string master_addr, master_port;             // empty: not given
  std::string source;  // "RANK/WORLD_SIZE", "Slurm", "Open MPI", "PMI"; empty: none of them
};

/// Reads the environment through `getenv` (which returns "" for an unset variable).
using Getenv = std::function<std::string(const char* name)>;
LaunchPlace launch_place(const Getenv& getenv);
/// The same over the process's environment.
LaunchPlace launch_place();

/// Slurm's host-list syntax expanded: "node[01-03,07],gpu-[1-2]a" -> node01 node02 node03
/// node07 gpu-1a gpu-2a (brackets may repeat within a name; zero padding is kept).
std::vector<std::string> expand_hostlist(const std::string& list);

/// The whole of text as an int, or nothing ("12x", "" and out-of-range values give nothing).
std::optional<int> parse_int(const std::string& text);

/// MASTER_PORT when neither it nor the launcher gives one (torchrun's default); under Slurm
/// the job's id moves it (see the Note), so that two jobs sharing a node do not collide.
constexpr int kDefaultMasterPort = 29500;

}  // namespace ember::dist::detail
