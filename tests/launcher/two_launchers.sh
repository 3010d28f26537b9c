#!/usr/bin/env bash
# Two ember-run launchers (--nnodes 2, 2 workers each) on loopback, as two nodes would run:
# global ranks follow node ranks (given, or assigned by a c10d rendezvous), a failure on one
# node restarts both for the same attempt and both name the same root cause, a node that never
# joins is a timeout that names it, a launcher of another job is refused, and SIGINT on one node
# stops the other.
#   two_launchers.sh <ember-run> <worker>
source "$(dirname "$0")/lib.sh" "$@"

# node K ARGS...: the launcher of node K for a job at $port.
node() {
  local k=$1
  shift
  launch_node node$k --nnodes=2 --nproc-per-node=2 --node-rank=$k --master-addr=127.0.0.1 \
    --master-port=$port --rdzv-conf join_timeout=20 "$@"
  eval "pid$k=$pid"
}
finish() {  # finish K: wait for node K's launcher; sets $status
  local p
  eval "p=\$pid$1"
  wait "$p"
  status=$?
}

port=$(free_port)
node 1 "$worker" env "$dir"   # node 1 first: it retries until node 0's store is up
node 0 "$worker" env "$dir"
finish 0; [ $status -eq 0 ] || fail "node 0 exited $status: $(cat "$dir/node0.txt")"
finish 1; [ $status -eq 0 ] || fail "node 1 exited $status: $(cat "$dir/node1.txt")"
for r in 0 1 2 3; do
  for kv in RANK=$r LOCAL_RANK=$((r % 2)) GROUP_RANK=$((r / 2)) WORLD_SIZE=4 LOCAL_WORLD_SIZE=2 \
            GROUP_WORLD_SIZE=2 MASTER_PORT=$port; do
    grep -qx "$kv" "$dir/env.$r" || fail "rank $r: expected $kv, got: $(cat "$dir/env.$r")"
  done
done

# c10d without --node-rank: one launcher hosts the store at the endpoint, node ranks follow the
# order of joining, and each node's workers get consecutive global ranks.
port=$(free_port)
rm -f "$dir"/env.*
for k in a b; do
  launch_node c10d_$k --nnodes 2 --nproc_per_node 2 --rdzv_backend c10d \
    --rdzv_endpoint "127.0.0.1:$port" --rdzv_id c10d-job "$worker" env "$dir"
  eval "pid_$k=$pid"
done
for k in a b; do
  eval "wait \$pid_$k" || fail "c10d launcher $k failed: $(cat "$dir/c10d_$k.txt")"
done
for r in 0 1 2 3; do
  for kv in RANK=$r LOCAL_RANK=$((r % 2)) GROUP_RANK=$((r / 2)) WORLD_SIZE=4 TORCHELASTIC_RUN_ID=c10d-job; do
    grep -qx "$kv" "$dir/env.$r" || fail "c10d rank $r: expected $kv, got: $(cat "$dir/env.$r")"
  done
done

# Rank 1 (node 0) fails at step 7 of attempt 0; node 1's workers are not coupled to it, so
# node 1 learns it through the store, and both nodes restart into attempt 1.
port=$(free_port)
node 0 --max-restarts 1 "$worker" train "$dir" 20 7
node 1 --max-restarts 1 "$worker" train "$dir" 20 7
finish 0; [ $status -eq 0 ] || fail "node 0 exited $status: $(cat "$dir/node0.txt")"
finish 1; [ $status -eq 0 ] || fail "node 1 exited $status: $(cat "$dir/node1.txt")"
expect_in node0 "message   : ember::Error: \[train\] simulated failure at step 7 on rank 1"
expect_in node1 "\[0\]: on another node: rank 1 \(local_rank 1, host .*\): exitcode 1: ember::Error: \[train\] simulated failure at step 7"
for n in 0 1; do expect_in node$n "attempt 0, 1/1 attempts left; restarting the worker group"; done
for r in 0 1 2 3; do
  grep -qE "^attempt=1 first_step=[0-9]+ weights=210.000000$" "$dir/result.$r" ||
    fail "rank $r did not finish attempt 1: $(cat "$dir/result.$r" 2>/dev/null)"
done

# A node that never joins: the rendezvous times out naming it.
port=$(free_port)
launch_node alone --nnodes 2 --nproc-per-node 2 --node-rank 0 --master-port "$port" \
  --rdzv-conf join_timeout=1 "$worker" env "$dir"
wait "$pid"
[ $? -eq 1 ] || fail "a lone node 0 should fail"
expect_in alone "rendezvous of attempt 0 timed out after 1 s: node\(s\) 1 of --nnodes 2 never joined \(joined: 0\)"

# A launcher started for another job is refused by name.
port=$(free_port)
node 0 --rdzv-id job-a "$worker" wait "$dir"
launch_node stranger --nnodes 2 --nproc-per-node 2 --node-rank 1 --master-port "$port" \
  --rdzv-id job-b --rdzv-conf join_timeout=5 "$worker" wait "$dir"
wait "$pid"
[ $? -eq 1 ] || fail "a launcher of another job should be refused"
expect_in stranger "was started for job 'job-b nnodes=2' but the store at 127.0.0.1:$port belongs to job 'job-a nnodes=2'"
# ... and SIGINT on node 0 (still waiting for its partner) ends it with 130.
kill -INT "$pid0"
finish 0; [ $status -eq 130 ] || fail "node 0 exited $status after SIGINT"

# SIGINT on node 0 while both run: node 0 forwards it, node 1 stops its workers too.
port=$(free_port)
rm -f "$dir"/started.*
node 0 "$worker" wait "$dir"
node 1 "$worker" wait "$dir"
wait_for "$dir/started.0" "$dir/started.1" "$dir/started.2" "$dir/started.3"
kill -INT "$pid0"
finish 0; [ $status -eq 130 ] || fail "node 0 exited $status after SIGINT"
finish 1; [ $status -eq 1 ] || fail "node 1 exited $status, expected 1 (stopped by node 0)"
expect_in node1 "stopping: node 0 received SIGINT"
for r in 0 1; do [ -f "$dir/INT.$r" ] || fail "rank $r did not get SIGINT"; done
for r in 2 3; do [ -f "$dir/TERM.$r" ] || fail "rank $r (node 1) was not stopped with SIGTERM"; done
echo "ok: two launchers agree on ranks, restarts, root cause, timeouts and stops"
