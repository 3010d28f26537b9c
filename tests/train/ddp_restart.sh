#!/usr/bin/env bash
# The DDP program (examples/fashion_mnist/ddp_main.cpp) under ember-run on 2 ranks and a small
# slice: a 3-epoch run; the same run with one rank SIGKILLed in epoch 2 under --max-restarts 1,
# which restarts, resumes every rank from rank 0's checkpoint and ends with the uninterrupted
# run's test accuracy (within 0.3 points: it is in fact the same run); and --accumulation-steps 2,
# which prints its effective batch and trains.
#   ddp_restart.sh <ember-run> <ember-train-fashion-mnist-ddp> [program arguments]
# With program arguments instead of the small slice (and a longer DDP_RESTART_DEADLINE), the
# same check runs on the full job, e.g. the issue's 3-epoch target:
#   DDP_RESTART_DEADLINE=1800 DDP_RESTART_KILL_AFTER=20 ddp_restart.sh build/tools/ember-run \
#     build/examples/ember-train-fashion-mnist-ddp --epochs 3 --workers 1
source "$(dirname "$0")/../launcher/lib.sh" "$@"  # $run, $dir, fail, launch_command
bin=$worker
launch_deadline=${DDP_RESTART_DEADLINE:-60}
[ -d /usr/share/datasets/fashion-mnist ] || { echo "skip: no Fashion-MNIST"; exit 77; }
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
       echo $((20000 + RANDOM % 20000)))
slice=(--epochs 3 --limit 1024 --val-limit 500 --batch-size 64 --workers 0)
[ $# -gt 2 ] && slice=("${@:3}")
# job NAME ARGS...: ember-run on 2 ranks in the background (killed after 60 s at the latest).
job() {
  local name=$1
  shift
  launch_command "$name" "$run" --standalone --nproc-per-node=2 --master-port "$port" "$@"
}
accuracy() { grep -oE "^Test accuracy [0-9.]+" "$dir/$1.txt" | awk '{print $3}'; }

job whole "$bin" "${slice[@]}" --output-dir "$dir/whole"
wait "$pid" || fail "the uninterrupted run exited with $?"
want=$(accuracy whole)
[ -n "$want" ] || fail "no test accuracy from the uninterrupted run"
grep -q "effective batch 128 (batch 64 x accumulation 1 x world 2)" "$dir/whole.txt" ||
  fail "no effective batch line"
[ "$(grep -c '^Epoch ' "$dir/whole.txt")" = 3 ] || fail "expected 3 epoch lines (rank 0 only)"

job killed --max-restarts 1 "$bin" "${slice[@]}" --output-dir "$dir/killed"
launcher=$pid
for _ in $(seq $((launch_deadline * 20))); do grep -q "^Epoch 0 " "$dir/killed.txt" && break; sleep 0.05; done
grep -q "^Epoch 0 " "$dir/killed.txt" || fail "epoch 0 never finished"
sleep "${DDP_RESTART_KILL_AFTER:-0}"  # seconds into epoch 1
victim=$(pgrep -P "$launcher" | tail -1)
[ -n "$victim" ] || fail "no worker to kill"
kill -KILL "$victim"
wait "$launcher" || fail "the restarted job exited with $?"
grep -q "restarting the worker group" "$dir/killed.txt" || fail "no restart"
grep -qE "Resumed from .*checkpoint.pt at epoch [12]" "$dir/killed.txt" || fail "no resume"
got=$(accuracy killed)
[ -n "$got" ] || fail "no test accuracy after the restart"
awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(d <= 0.003 && d >= -0.003) }' ||
  fail "accuracy $got after the restart, $want uninterrupted"

job accumulate "$bin" --epochs 1 --limit 512 --val-limit 200 --batch-size 32 --workers 0 \
    --accumulation-steps 2 --output-dir "$dir/accumulate"
wait "$pid" || fail "the accumulation run exited with $?"
grep -q "effective batch 128 (batch 32 x accumulation 2 x world 2)" "$dir/accumulate.txt" ||
  fail "no effective batch line for --accumulation-steps 2"
echo "ok: killed rank restarted and resumed to accuracy $got (uninterrupted: $want)"
