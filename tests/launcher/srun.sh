#!/usr/bin/env bash
# A real Slurm job step, without ember-run: Debian's slurm-wlm (scripts/bootstrap.sh installs it)
# run as a one-node cluster in the scratch directory (its own munged, slurmctld and slurmd, on
# loopback ports the kernel gives; the node is called localhost so the step's node list, which
# gives MASTER_ADDR, names loopback). `srun -n 2` starts the worker with only what Slurm gives its
# tasks: the two ranks rendezvous and all_reduce. Then a step whose rank 1 SIGKILLs itself
# mid-loop: rank 0 ends within the timeout with an error naming rank 1 (Note [Launch
# environments] in src/distributed/launch_environment.cpp).
#   srun.sh <ember-run> <worker>
source "$(dirname "$0")/lib.sh" "$@"
launch_deadline=40
for tool in munged slurmctld slurmd srun sinfo scancel; do
  command -v "$tool" > /dev/null || fail "$tool not found: run scripts/bootstrap.sh (slurm-wlm)"
done
[ "$(id -u)" -eq 0 ] || { echo "SKIP: a private Slurm cluster's daemons need root"; exit 77; }
unset RANK WORLD_SIZE LOCAL_RANK MASTER_ADDR MASTER_PORT TORCHELASTIC_RESTART_COUNT
unset $(env | sed -n 's/^\(SLURM_[A-Z_]*\|OMPI_[A-Z_]*\|PMI_[A-Z_]*\)=.*/\1/p')

# The cluster. munged refuses a key others can read, and runs as root only when forced.
mkdir -p "$dir/state" "$dir/spool"
install -m 600 /etc/munge/munge.key "$dir/munge.key"
export SLURM_CONF=$dir/slurm.conf
cat > "$SLURM_CONF" << EOF
ClusterName=ember-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=2 State=UP OverSubscribe=YES
EOF
# The daemons in the foreground, so lib.sh's cleanup stops them; the steps' tasks are Slurm's
# (slurmstepd leaves slurmd's process group): scancel ends them first.
stop_cluster() {
  scancel --quiet --full --user root 2> /dev/null
  cleanup
}
trap stop_cluster EXIT
launch_command munged munged --foreground --force --socket="$dir/munge.socket" \
  --key-file="$dir/munge.key" --pid-file="$dir/munged.pid" --seed-file="$dir/munge.seed" \
  --log-file="$dir/munged.log"
launch_command slurmctld slurmctld -D -f "$SLURM_CONF"
launch_command slurmd slurmd -D -N localhost -f "$SLURM_CONF"
for _ in $(seq 100); do
  sinfo --noheader --states=idle 2> /dev/null | grep -q localhost && break
  sleep 0.1
done
sinfo --noheader --states=idle 2> /dev/null | grep -q localhost ||
  { cat "$dir"/slurm*.log; fail "the one-node Slurm cluster did not come up in 10 s"; }

# A job step of two tasks: SLURM_PROCID/NTASKS/LOCALID and the node list, nothing else.
launch_command step srun -n 2 -t 1 env EMBER_DISTRIBUTED_DEBUG=INFO "$worker" allreduce "$dir" 3
wait "$pid" || fail "srun exited with $?"
for r in 0 1; do
  grep -q "world=2 ok" "$dir/result.$r" 2> /dev/null || fail "srun: rank $r has no result"
  expect_in step "rank $r of 2 from Slurm"
done

# Rank 1 dies mid-loop; rank 0 names it within its 5 s timeout, and the step ends.
rm -f "$dir"/result.*
launch_command dead srun -n 2 -t 1 --kill-on-bad-exit=0 "$worker" allreduce "$dir" 40 die
wait "$pid" && fail "a step whose rank 1 was killed should fail"
expect_in dead "rank 0: rank 1 exited \(peer died\?\)"
echo "ok"
