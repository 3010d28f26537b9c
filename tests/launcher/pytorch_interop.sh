#!/usr/bin/env bash
# ember and PyTorch 1.13 sharing one launcher's TCPStore (Debian's python3-torch; skipped
# without it):
#  - the agent-store arrangement of current torchrun: a PyTorch TCPStore server plays torchrun's
#    agent, and 2 ember ranks with TORCHELASTIC_USE_AGENT_STORE=True, MASTER_PORT = the agent's
#    store, rendezvous there (rank 0 a client too) and all_reduce; when rank 1 is SIGKILLed
#    mid-loop, the others fail within their 5 s timeout with errors naming the op, themselves
#    and rank 1: 2 ranks over shared memory and over Gloo's TCP (EMBER_SHM=0), 3 over TCP;
#  - ember-run launching a PyTorch script (--python /usr/bin/python3): its store serves PyTorch's
#    workers, which all_reduce and take a DDP step with the same result on both ranks, and the
#    same results as under Debian's torchrun.
#   pytorch_interop.sh <ember-run> <worker>
source "$(dirname "$0")/lib.sh" "$@"
need_torch

# The agent: PyTorch's own server on a free port, until this script kills it; one per job, as
# every torchrun has its own (a second job with the same TORCHELASTIC_RESTART_COUNT would find the
# first one's keys).
launch_command agent /usr/bin/python3 -c '
import datetime, time, torch.distributed as d
stores = [d.TCPStore("127.0.0.1", 0, None, True, datetime.timedelta(seconds=30),
                     wait_for_workers=False) for _ in range(4)]
print(*(s.port for s in stores), flush=True)
time.sleep(60)'
for _ in $(seq 300); do grep -q . "$dir/agent.txt" && break; sleep 0.05; done
read -r port dies_ports < "$dir/agent.txt"
dies_ports=($dies_ports)
[ "${dies_ports[2]:-0}" -gt 0 ] 2> /dev/null || fail "the PyTorch agent stores did not start: $(cat "$dir/agent.txt")"
pids=()
for rank in 0 1; do
  RANK=$rank LOCAL_RANK=$rank WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 GROUP_RANK=0 ROLE_RANK=$rank \
    MASTER_ADDR=127.0.0.1 MASTER_PORT=$port TORCHELASTIC_USE_AGENT_STORE=True \
    TORCHELASTIC_RESTART_COUNT=0 timeout 30 "$worker" allreduce "$dir" 3 > "$dir/rank$rank.txt" 2>&1 &
  pids+=($!)
done
for rank in 0 1; do
  wait "${pids[$rank]}" || fail "ember rank $rank failed against PyTorch's agent store"
done
# A rank that dies: PyTorch's server says nothing of it (ember's would), the transports do; with
# 3 ranks over TCP the survivors tell a death from a survivor that gave up (group.cpp: Note
# [Naming the rank behind a Gloo error]). Cases: EMBER_SHM, world size.
job=0
for case in "1 2" "0 2" "0 3"; do
  read -r shm world <<< "$case"
  start=$EPOCHREALTIME
  for ((rank = 0; rank < world; rank++)); do
    RANK=$rank LOCAL_RANK=$rank WORLD_SIZE=$world LOCAL_WORLD_SIZE=$world GROUP_RANK=0 \
      ROLE_RANK=$rank MASTER_ADDR=127.0.0.1 MASTER_PORT=${dies_ports[$job]} \
      TORCHELASTIC_USE_AGENT_STORE=True TORCHELASTIC_RESTART_COUNT=0 EMBER_SHM=$shm \
      timeout 30 "$worker" allreduce "$dir" 40 die > "$dir/dies$rank.txt" 2>&1 &
    pids[$rank]=$!
  done
  for ((rank = 0; rank < world; rank++)); do
    [ $rank = 1 ] && continue
    wait "${pids[$rank]}" && fail "rank $rank finished although rank 1 died (EMBER_SHM=$shm)"
    expect_in dies$rank "^ember::Error: \[all_reduce #21\] rank $rank: rank 1 (exited|closed the connection)"
  done
  took=$(echo "$EPOCHREALTIME - $start" | bc)
  [ "$(echo "$took < 5" | bc)" = 1 ] || fail "the survivors took ${took} s to fail ($case)"
  wait "${pids[1]}"
  job=$((job + 1))
done 2> /dev/null  # not bash's notice of the SIGKILL

# ember-run hosting the store for PyTorch's workers.
run_to_end --standalone --nproc-per-node 2 --python /usr/bin/python3 \
  "$(dirname "$0")/torch_ddp.py" "$dir"
expect_status 0
for rank in 0 1; do
  [ -f "$dir/torch.$rank" ] || fail "PyTorch rank $rank wrote no result"
  grep -qx "sum 3" "$dir/torch.$rank" || fail "rank $rank: all_reduce gave $(head -1 "$dir/torch.$rank")"
done
[ "$(tail -1 "$dir/torch.0")" = "$(tail -1 "$dir/torch.1")" ] ||
  fail "the DDP step left different weights: $(cat "$dir"/torch.*)"

# The same script under torchrun: the same printed results.
mkdir "$dir/torchrun"
torchrun torchrun --nproc_per_node 2 "$(dirname "$0")/torch_ddp.py" "$dir/torchrun"
wait "$pid" || fail "torchrun with torch_ddp.py exited with $?"
for rank in 0 1; do
  cmp -s "$dir/torch.$rank" "$dir/torchrun/torch.$rank" ||
    fail "rank $rank: ember-run gave $(cat "$dir/torch.$rank"), torchrun $(cat "$dir/torchrun/torch.$rank" 2> /dev/null)"
done
echo "ok"
