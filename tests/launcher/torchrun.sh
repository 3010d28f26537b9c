#!/usr/bin/env bash
# Debian's torchrun (PyTorch 1.13) launching ember programs with --no_python, unchanged: 2 ranks
# of all_reduce calls, each checked; 2 ranks of a data-parallel loop under --max_restarts 1, where
# rank 1 is SIGKILLed, torchrun restarts the group and both ranks resume from the checkpoint; and
# the DDP example (2 steps per rank on a slice of Fashion-MNIST, when it is built and the data is
# there). Not --standalone itself: 1.13's puts the rendezvous on the fixed localhost:29400, which
# two test runs at once would share; lib.sh's torchrun is the same on a port the kernel picks.
# Skipped without python3-torch. 1.13's torchrun lets rank 0 host the store
# (TORCHELASTIC_USE_AGENT_STORE=False); pytorch_interop.sh covers a current torchrun's agent store.
#   torchrun.sh <ember-run> <worker> [<ember-train-fashion-mnist-ddp>]
source "$(dirname "$0")/lib.sh" "$@"
need_torch
ddp=${3:-}
launch_deadline=30

# Collectives: 20 all_reduce calls per rank, each result checked (the worker fails naming the call
# that differs); each rank writes its result file only after all of them and destroy_process_group.
mkdir "$dir/collectives"
torchrun collectives --nproc_per_node 2 --no_python "$worker" allreduce "$dir/collectives" 20
wait "$pid" || fail "torchrun with the all_reduce worker exited with $?"
for r in 0 1; do
  grep -qx "attempt=0 world=2 ok" "$dir/collectives/result.$r" ||
    fail "rank $r's all_reduce calls did not all finish: $(cat "$dir/collectives/result.$r" 2> /dev/null)"
done

# A data-parallel loop (an all_reduce and rank 0's checkpoint per step): rank 1 SIGKILLs itself
# at step 7, torchrun restarts the group and both ranks resume from the checkpoint to the
# uninterrupted result, weights = 1 + 2 + ... + 20 (restart_checkpoint.sh does it under ember-run).
torchrun restart --nproc_per_node 2 --max_restarts 1 --no_python "$worker" sync_train "$dir" 20 7
wait "$pid" || fail "torchrun --max_restarts 1 exited with $?"
# torchrun names whichever rank it saw fail first: rank 1 (exitcode -9), or rank 0, whose
# all_reduce failed naming rank 1.
expect_in restart "failed \(exitcode: -9\) local_rank: 1|rank 0: rank 1 (exited|closed the connection)"
for r in 0 1; do
  grep -qE "^attempt=1 first_step=[2-7] weights=210.000000$" "$dir/result.$r" ||
    fail "rank $r did not resume from the checkpoint: $(cat "$dir/result.$r" 2> /dev/null)"
done
[ "$(cut -d' ' -f2 "$dir/result.0")" = "$(cut -d' ' -f2 "$dir/result.1")" ] ||
  fail "the ranks resumed at different steps: $(cat "$dir"/result.*)"

if [ -z "$ddp" ]; then
  echo "ok (the DDP example is not built: not run)"
  exit 0
fi
[ -d /usr/share/datasets/fashion-mnist ] || { echo "ok (no Fashion-MNIST: the DDP example not run)"; exit 0; }
torchrun ddp --nproc_per_node 2 --no_python "$ddp" --epochs 1 --limit 256 --val-limit 64 \
  --batch-size 64 --workers 0 --output-dir "$dir/ddp"
wait "$pid" || fail "torchrun with the DDP example exited with $?"
expect_in ddp "with 2 ranks: 2 batches of 64 per rank and epoch"
expect_in ddp "Test accuracy [0-9.]+"
[ -f "$dir/ddp/checkpoint.pt" ] || fail "the DDP example wrote no checkpoint"
echo "ok"
