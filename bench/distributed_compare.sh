#!/usr/bin/env bash
# ember's Gloo process group against PyTorch 1.13's gloo (Debian torchrun), 2 ranks on this host,
# interleaved in one run: all_reduce of 4M float32 (bus bandwidth) and of 1 / 256 floats (median
# latency). ember runs three ways: shared memory (the default on one host), Gloo over TCP
# (EMBER_SHM=0), and TCP with EMBER_DISTRIBUTED_DEBUG=DETAIL (the debug mode's cost).
# Usage: bench/distributed_compare.sh <build dir with bench/distributed_bench> [rounds]
set -euo pipefail
build=${1:?usage: distributed_compare.sh BUILD_DIR [ROUNDS]}
rounds=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
"$here/cpu_info.sh"
uptime
ember_run() {  # two ranks through env://, rank 0 hosting the store
  local port=$((29600 + RANDOM % 1000)) pids=()
  for rank in 0 1; do
    RANK=$rank WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port OMP_NUM_THREADS=1 \
      "$build/bench/distributed_bench" & pids+=($!)
  done
  wait "${pids[@]}"
}
for round in $(seq "$rounds"); do
  echo "round $round"
  ember_run | sed 's/RESULT ember/RESULT ember-shm/'
  EMBER_SHM=0 ember_run | sed 's/RESULT ember/RESULT ember-tcp/'
  EMBER_SHM=0 EMBER_DISTRIBUTED_DEBUG=DETAIL ember_run | sed 's/RESULT ember/RESULT ember-tcp+debug/'
  OMP_NUM_THREADS=1 /usr/bin/python3 -m torch.distributed.run --standalone --nproc_per_node 2 -r 1 -t 1 \
    "$here/distributed_torch.py" 2>&1 | grep RESULT
done
