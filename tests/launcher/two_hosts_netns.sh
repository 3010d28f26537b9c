#!/usr/bin/env bash
# Two hosts simulated with network namespaces: two namespaces joined by a veth pair, with 10.x
# addresses that exist only inside them. Node 0's launcher (namespace A) hosts the store at its
# address; node 1's (namespace B) joins across the link. 2 ranks each: the environment, an
# all_reduce over all 4 ranks, and a rank killed mid-all_reduce on node 1 restarting both nodes.
# Skips (77) only when namespaces cannot be created (not root, no ip).
#   two_hosts_netns.sh <ember-run> <worker>
source "$(dirname "$0")/lib.sh" "$@"

command -v ip > /dev/null || { echo "SKIP: no 'ip' (iproute2; scripts/bootstrap.sh installs it)"; exit 77; }
ns_a=ember-run-$$-a
ns_b=ember-run-$$-b
remove_namespaces() {
  ip netns pids "$ns_a" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
  ip netns pids "$ns_b" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
  ip netns del "$ns_a" 2>/dev/null
  ip netns del "$ns_b" 2>/dev/null  # deleting a namespace deletes its veth end and the peer
}
trap 'remove_namespaces; cleanup' EXIT
if ! ip netns add "$ns_a" 2>/dev/null; then
  echo "SKIP: cannot create network namespaces here (needs root: uid $(id -u))"
  exit 77
fi
ip netns add "$ns_b" || fail "ip netns add $ns_b"
net=10.$((100 + RANDOM % 100)).$((RANDOM % 250))
addr_a=$net.1
addr_b=$net.2
ip link add "erA$$" type veth peer name "erB$$" || fail "ip link add veth"
ip link set "erA$$" netns "$ns_a" && ip link set "erB$$" netns "$ns_b" || fail "moving the veth ends"
ip -n "$ns_a" addr add "$addr_a/24" dev "erA$$" && ip -n "$ns_b" addr add "$addr_b/24" dev "erB$$" ||
  fail "addresses"
for ns in "$ns_a" "$ns_b"; do ip -n "$ns" link set lo up; done
ip -n "$ns_a" link set "erA$$" up && ip -n "$ns_b" link set "erB$$" up || fail "link up"

# host K ARGS...: node K's launcher in its namespace, the seed's multi-node launch line.
host() {
  local k=$1 ns
  shift
  [ "$k" = 0 ] && ns=$ns_a || ns=$ns_b
  launch_command host$k ip netns exec "$ns" "$run" --nnodes=2 --nproc-per-node=2 --node-rank=$k \
    --master-addr=$addr_a --master-port=29500 --rdzv-conf join_timeout=20 "$@"
  eval "pid$k=$pid"
}
both_succeed() {
  wait "$pid0"; local s0=$?
  wait "$pid1"; local s1=$?
  [ $s0 -eq 0 ] || fail "node 0 exited $s0: $(cat "$dir/host0.txt")"
  [ $s1 -eq 0 ] || fail "node 1 exited $s1: $(cat "$dir/host1.txt")"
}

host 0 "$worker" env "$dir"
host 1 "$worker" env "$dir"
both_succeed
for r in 0 1 2 3; do
  for kv in RANK=$r GROUP_RANK=$((r / 2)) WORLD_SIZE=4 MASTER_ADDR=$addr_a MASTER_PORT=29500; do
    grep -qx "$kv" "$dir/env.$r" || fail "rank $r: expected $kv, got: $(cat "$dir/env.$r")"
  done
done

# The 4 ranks' all_reduce crosses the link; rank 1 dies in attempt 0, both nodes restart.
host 1 --max-restarts 1 "$worker" allreduce "$dir" 40 die
host 0 --max-restarts 1 "$worker" allreduce "$dir" 40 die
both_succeed
expect_in host0 "message   : Signal 9 \(SIGKILL\) received by PID"
for n in 0 1; do expect_in host$n "attempt 0, 1/1 attempts left; restarting the worker group"; done
for r in 0 1 2 3; do
  grep -qx "attempt=1 world=4 ok" "$dir/result.$r" || fail "rank $r did not finish attempt 1"
done
echo "ok: two namespaced hosts, 2 ranks each: rendezvous, all_reduce and a restart across the link"
