#!/usr/bin/env bash
# The DDP program's equivalences (the issue's targets, on the real program and a small slice):
# one epoch of the MLP without dropout gives the same model on 1 rank x batch 128, on 2 ranks x
# batch 64, and on 2 ranks x batch 32 with --accumulation-steps 2 (no_sync on every other step):
# DistributedSampler hands each optimizer step the same 128 images in all three. A run with a
# different effective batch must not compare equal (so the comparison can fail).
#   ddp_accumulation.sh <ember-run> <ember-train-fashion-mnist-ddp> <checkpoint_models_close>
source "$(dirname "$0")/../launcher/lib.sh" "$@"  # $run, $dir, fail, launch_command
bin=$worker
close=$3
# float32 rounding differs with the reduction order (one rank's sum of 128 against two ranks'
# averaged sums of 64): up to 1e-5 after 8 AdamW steps here; another batch size differs by 1e-2.
atol=5e-5
launch_deadline=60
[ -d /usr/share/datasets/fashion-mnist ] || { echo "skip: no Fashion-MNIST"; exit 77; }
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
       echo $((20000 + RANDOM % 20000)))
slice=(--model mlp --dropout 0 --epochs 1 --limit 1024 --val-limit 100 --workers 0)
# run NAME RANKS ARGS...: one ember-run job to its end.
run_job() {
  local name=$1 ranks=$2
  shift 2
  launch_command "$name" "$run" --standalone --nproc-per-node="$ranks" --master-port "$port" \
    "$bin" "${slice[@]}" --output-dir "$dir/$name" "$@"
  wait "$pid" || fail "$name exited with $?"
}
run_job one 1 --batch-size 128
run_job two 2 --batch-size 64
run_job accumulated 2 --batch-size 32 --accumulation-steps 2
run_job bigger 2 --batch-size 64 --accumulation-steps 2
grep -q "effective batch 128 (batch 32 x accumulation 2 x world 2)" "$dir/accumulated.txt" ||
  fail "no effective batch line for --accumulation-steps 2"
"$close" "$dir/one/checkpoint.pt" "$dir/two/checkpoint.pt" $atol ||
  fail "2 ranks x 64 differ from 1 rank x 128"
"$close" "$dir/one/checkpoint.pt" "$dir/accumulated/checkpoint.pt" $atol ||
  fail "2 ranks x 32 x accumulation 2 differ from 1 rank x 128"
if "$close" "$dir/one/checkpoint.pt" "$dir/bigger/checkpoint.pt" $atol; then
  fail "effective batch 256 compared equal to 128: the comparison cannot tell runs apart"
fi
echo "ok: 1x128, 2x64 and 2x32x2 train the same model"
