#!/usr/bin/env bash
# ember and PyTorch 1.13 sharing one launcher's TCPStore (Debian's python3-torch; skipped
# without it):
#  - the agent-store arrangement of current torchrun: a PyTorch TCPStore server plays torchrun's
#    agent, and 2 ember ranks with TORCHELASTIC_USE_AGENT_STORE=True, MASTER_PORT = the agent's
#    store, rendezvous there (rank 0 a client too) and all_reduce;
#  - ember-run launching a PyTorch script (--python /usr/bin/python3): its store serves PyTorch's
#    workers, which all_reduce and take a DDP step with the same result on both ranks.
#   pytorch_interop.sh <ember-run> <worker>
source "$(dirname "$0")/lib.sh" "$@"
/usr/bin/python3 -c 'import torch' 2> /dev/null ||
  { echo "SKIP: python3-torch is not installed (apt install python3-torch)"; exit 77; }

# The agent: PyTorch's own server on a free port, until this script kills it.
launch_command agent /usr/bin/python3 -c '
import datetime, time, torch.distributed as d
s = d.TCPStore("127.0.0.1", 0, None, True, datetime.timedelta(seconds=30), wait_for_workers=False)
print(s.port, flush=True)
time.sleep(60)'
for _ in $(seq 300); do grep -q . "$dir/agent.txt" && break; sleep 0.05; done
port=$(head -1 "$dir/agent.txt")
[ "$port" -gt 0 ] 2> /dev/null || fail "the PyTorch agent store did not start: '$port'"
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
echo "ok"
