#!/usr/bin/env bash
# Without a launcher: two workers started by hand with only the variables Slurm's srun, Open
# MPI's mpirun or a PMI launcher (MPICH's mpiexec) gives its tasks (no RANK, WORLD_SIZE,
# MASTER_ADDR or MASTER_PORT) rendezvous and all_reduce, and so do two ranks of a real mpirun;
# EMBER_DISTRIBUTED_DEBUG=INFO names the source. Note [Launch environments] in src/distributed/launch_environment.cpp.
#   slurm_mpi_env.sh <ember-run> <worker>
source "$(dirname "$0")/lib.sh" "$@"
launch_deadline=30
unset RANK WORLD_SIZE LOCAL_RANK MASTER_ADDR MASTER_PORT TORCHELASTIC_RESTART_COUNT
unset $(env | sed -n 's/^\(SLURM_[A-Z_]*\|OMPI_[A-Z_]*\|PMI_[A-Z_]*\|MPI_LOCAL[A-Z_]*\)=.*/\1/p')

# two_workers NAME VAR=VALUE...: both workers with the variables given, each "@" replaced by the
# worker's rank; waits for both and checks their results and the source they report.
two_workers() {
  local name=$1 source=$2
  shift 2
  local pids=()
  rm -f "$dir"/result.*
  for r in 0 1; do
    launch_command "$name$r" env EMBER_DISTRIBUTED_DEBUG=INFO "${@//@/$r}" "$worker" allreduce "$dir" 3
    pids+=("$pid")
  done
  for p in "${pids[@]}"; do wait "$p" || fail "$name: a worker exited with $?"; done
  for r in 0 1; do
    grep -q "world=2 ok" "$dir/result.$r" 2>/dev/null || fail "$name: rank $r has no result"
    expect_in "$name$r" "rank $r of 2 from $source"
  done
}

# srun: MASTER_ADDR is the first host of the step's node list, MASTER_PORT 29500 + job id % 1000.
job=$((RANDOM % 1000 + 1000))
two_workers slurm Slurm SLURM_STEP_ID=0 SLURM_PROCID=@ SLURM_NTASKS=2 SLURM_LOCALID=@ \
  SLURM_JOB_ID=$job "SLURM_STEP_NODELIST=localhost,gpu-[01-03]"
expect_in slurm0 "rendezvous env://"

# mpirun on one host: every rank local, so the store is on 127.0.0.1 (port 29500 by default).
two_workers ompi "Open MPI" OMPI_COMM_WORLD_RANK=@ OMPI_COMM_WORLD_SIZE=2 \
  OMPI_COMM_WORLD_LOCAL_RANK=@ OMPI_COMM_WORLD_LOCAL_SIZE=2

# MPICH's mpiexec (PMI), with the port given.
two_workers pmi PMI PMI_RANK=@ PMI_SIZE=2 MPI_LOCALRANKID=@ MPI_LOCALNRANKS=2 \
  MASTER_PORT=$(free_port)

# A real Open MPI mpirun (Debian's openmpi-bin, which scripts/bootstrap.sh installs).
command -v mpirun > /dev/null || fail "mpirun not found: run scripts/bootstrap.sh (openmpi-bin)"
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -f "$dir"/result.*
launch_command mpirun mpirun -n 2 --oversubscribe env EMBER_DISTRIBUTED_DEBUG=INFO \
  MASTER_PORT=$(free_port) "$worker" allreduce "$dir" 3
wait "$pid" || fail "mpirun exited with $?"
for r in 0 1; do
  grep -q "world=2 ok" "$dir/result.$r" 2>/dev/null || fail "mpirun: rank $r has no result"
  expect_in mpirun "rank $r of 2 from Open MPI"
done

# Across hosts MPI does not say where rank 0 is: a named error, not a wait.
launch_command across env OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 \
  OMPI_COMM_WORLD_LOCAL_RANK=0 OMPI_COMM_WORLD_LOCAL_SIZE=1 "$worker" allreduce "$dir" 1
wait "$pid" && fail "a rank of a 2-host mpirun without MASTER_ADDR should fail"
expect_in across "MASTER_ADDR is not set and the 2 ranks mpirun started are not all on this host"

# A batch script itself (no job step) is not a rank: RANK is still asked for.
launch_command batch env SLURM_PROCID=0 SLURM_NTASKS=2 SLURM_JOB_ID=7 "$worker" allreduce "$dir" 1
wait "$pid" && fail "a Slurm batch script without a job step should not join a job"
expect_in batch "RANK is not set"
echo "ok"
