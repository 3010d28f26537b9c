// Where init_process_group finds its rank and rendezvous (Note [Launch environments]): torchrun's
// variables first, then Slurm's srun (inside a job step), Open MPI's mpirun and PMI launchers,
// with their defaults for MASTER_ADDR and MASTER_PORT; Slurm's host-list syntax.
#include "distributed/launch_environment.h"

#include <gtest/gtest.h>

#include <map>

#include "ember/error.h"

namespace ember::dist::detail {
namespace {

LaunchPlace place_of(const std::map<std::string, std::string>& env) {
  return launch_place([&](const char* name) {
    auto it = env.find(name);
    return it == env.end() ? std::string() : it->second;
  });
}

TEST(LaunchEnvironment, HostListsExpandAsSlurmWritesThem) {
  using V = std::vector<std::string>;
  EXPECT_EQ(expand_hostlist("node7"), V{"node7"});
  EXPECT_EQ(expand_hostlist("a,b"), V({"a", "b"}));
  EXPECT_EQ(expand_hostlist("node[01-03,07]"), V({"node01", "node02", "node03", "node07"}));
  EXPECT_EQ(expand_hostlist("gpu-[8-10]a,cpu1"), V({"gpu-8a", "gpu-9a", "gpu-10a", "cpu1"}));
  EXPECT_EQ(expand_hostlist("r[1-2]n[1,3]"), V({"r1n1", "r1n3", "r2n1", "r2n3"}));
  EXPECT_THROW(expand_hostlist("node[1-"), Error);
  EXPECT_THROW(expand_hostlist("node[3-1]"), Error);
  EXPECT_THROW(expand_hostlist("node[a]"), Error);
}

TEST(LaunchEnvironment, TorchrunsVariablesComeFirst) {
  const LaunchPlace p = place_of({{"RANK", "3"},
                                  {"WORLD_SIZE", "4"},
                                  {"LOCAL_RANK", "1"},
                                  {"MASTER_ADDR", "10.0.0.1"},
                                  {"MASTER_PORT", "29400"},
                                  {"SLURM_PROCID", "0"},
                                  {"SLURM_STEP_ID", "0"},
                                  {"SLURM_NTASKS", "8"}});
  EXPECT_EQ(p.source, "RANK/WORLD_SIZE");
  EXPECT_EQ(p.rank, 3);
  EXPECT_EQ(p.world_size, 4);
  EXPECT_EQ(p.local_rank, 1);
  EXPECT_EQ(p.master_addr, "10.0.0.1");
  EXPECT_EQ(p.master_port, "29400");
}

TEST(LaunchEnvironment, SrunsTasks) {
  LaunchPlace p = place_of({{"SLURM_PROCID", "5"},
                            {"SLURM_NTASKS", "8"},
                            {"SLURM_LOCALID", "1"},
                            {"SLURM_STEP_ID", "0"},
                            {"SLURM_JOB_ID", "123456"},
                            {"SLURM_STEP_NODELIST", "n[003-004]"},
                            {"SLURM_JOB_NODELIST", "n[001-004]"}});
  EXPECT_EQ(p.source, "Slurm");
  EXPECT_EQ(p.rank, 5);
  EXPECT_EQ(p.world_size, 8);
  EXPECT_EQ(p.local_rank, 1);
  EXPECT_EQ(p.master_addr, "n003");   // the step's first node, where rank 0 runs
  EXPECT_EQ(p.master_port, "29956");  // 29500 + 123456 % 1000
  p = place_of({{"SLURM_PROCID", "0"},
                {"SLURM_NTASKS", "2"},
                {"SLURM_STEP_ID", "3"},
                {"SLURM_JOB_NODELIST", "big[10-11]"},
                {"MASTER_PORT", "1234"}});
  EXPECT_EQ(p.master_addr, "big10");
  EXPECT_EQ(p.master_port, "1234");
  // The batch script itself is no task of a step.
  EXPECT_EQ(place_of({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}}).source, "");
  EXPECT_THROW(place_of({{"SLURM_PROCID", "x"}, {"SLURM_STEP_ID", "0"}, {"SLURM_NTASKS", "2"}}),
               Error);
  EXPECT_THROW(place_of({{"SLURM_PROCID", "0"}, {"SLURM_STEP_ID", "0"}, {"SLURM_NTASKS", "2"}}),
               Error);  // no node list and no MASTER_ADDR
}

TEST(LaunchEnvironment, MpirunAndPmiLaunchers) {
  LaunchPlace p = place_of({{"OMPI_COMM_WORLD_RANK", "1"},
                            {"OMPI_COMM_WORLD_SIZE", "2"},
                            {"OMPI_COMM_WORLD_LOCAL_RANK", "1"},
                            {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}});
  EXPECT_EQ(p.source, "Open MPI");
  EXPECT_EQ(p.rank, 1);
  EXPECT_EQ(p.local_rank, 1);
  EXPECT_EQ(p.master_addr, "127.0.0.1");
  EXPECT_EQ(p.master_port, "29500");
  p = place_of({{"PMI_RANK", "2"},
                {"PMI_SIZE", "4"},
                {"MPI_LOCALRANKID", "0"},
                {"MPI_LOCALNRANKS", "2"},
                {"MASTER_ADDR", "head"}});
  EXPECT_EQ(p.source, "PMI");
  EXPECT_EQ(p.rank, 2);
  EXPECT_EQ(p.world_size, 4);
  EXPECT_EQ(p.master_addr, "head");
  try {  // two hosts and no MASTER_ADDR: MPI cannot say where rank 0 is
    place_of({{"OMPI_COMM_WORLD_RANK", "0"},
              {"OMPI_COMM_WORLD_SIZE", "4"},
              {"OMPI_COMM_WORLD_LOCAL_SIZE", "2"}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("mpirun -x MASTER_ADDR=<host>"), std::string::npos);
  }
  EXPECT_THROW(place_of({{"PMI_RANK", "0"}}), Error);  // no size
  EXPECT_EQ(place_of({}).source, "");
}

}  // namespace
}  // namespace ember::dist::detail
