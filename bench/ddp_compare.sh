#!/usr/bin/env bash
# 2-rank DDP training of the reference CNN (synthetic 28x28 images, batch 64 per rank, AdamW,
# clip_grad_norm_, 1 thread per rank): ember's DistributedDataParallel under ember-run against
# PyTorch 1.13's DDP over gloo under Debian's torchrun, interleaved in one run, plus the same
# step without any all-reduce ("local") and the local step with the ranks kept in lockstep by two
# 1-float all_reduces ("lockstep") on both sides. DDP/local is what DDP costs; lockstep/local is
# the part of it that only waiting for the slower rank costs, and DDP/lockstep the part that
# moving the gradients costs. ember's DDP line also gives the communication left exposed after
# backward. The same PyTorch script also runs through ember-python under ember-run ("ember_py":
# ember's Python DistributedDataParallel).
# Usage: bench/ddp_compare.sh <build dir> [rounds] [steps]
set -euo pipefail
build=${1:?usage: ddp_compare.sh BUILD_DIR [ROUNDS] [STEPS]}
rounds=${2:-2}
steps=${3:-30}
here=$(cd "$(dirname "$0")" && pwd)
unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
"$here/cpu_info.sh"
uptime
for round in $(seq "$rounds"); do
  echo "round $round"
  for mode in ddp local lockstep; do
    port=$((29700 + RANDOM % 1000))
    OMP_NUM_THREADS=1 "$build/tools/ember-run" --standalone --nproc-per-node 2 --master-port "$port" \
      "$build/bench/ddp_worker" "$mode" "$steps" 2>&1 | grep RESULT
    port=$((29700 + RANDOM % 1000))
    OMP_NUM_THREADS=1 "$build/tools/ember-run" --standalone --nproc-per-node 2 --master-port "$port" \
      "$here/ddp_torch.py" "$mode" "$steps" 2>&1 | grep RESULT
    OMP_NUM_THREADS=1 /usr/bin/python3 -m torch.distributed.run --standalone --nproc_per_node 2 -r 1 -t 1 \
      "$here/ddp_torch.py" "$mode" "$steps" 2>&1 | grep RESULT
  done
done
