#!/usr/bin/env bash
# The FSDP example (examples/fsdp_transformer/main.cpp) under ember-run: 16 steps on 2 ranks with
# a distributed checkpoint every 8; then the step-8 checkpoint alone, resumed on 1 rank and on 3
# ranks (dcp::load reshards the model and AdamW state), trains steps 9..16 again. Each resumed
# run must continue at step 9 and give the 2-rank run's losses (bfloat16 compute: within 0.03),
# and the loss must have fallen well below its start. A checkpoint without .metadata (an
# interrupted save) is skipped by message.
#   fsdp_resume.sh <ember-run> <ember-train-transformer-fsdp>
source "$(dirname "$0")/../launcher/lib.sh" "$@"  # $run, $dir, fail, launch_command
bin=$worker
launch_deadline=40
port=$(free_port)
args=(--steps 16 --checkpoint-every 8 --log-every 1 --lr 1e-2 --threads 1)
# job NAME RANKS OUTPUT-DIR: the example on RANKS ranks in the background (killed after 40 s).
job() {
  launch_command "$1" "$run" --standalone --nproc-per-node "$2" --master-port "$port" \
    "$bin" "${args[@]}" --output-dir "$3"
  wait "$pid" || fail "$1 exited with $?"
}
loss() { grep -oE "^Step $2 \| loss [0-9.]+" "$dir/$1.txt" | awk '{print $5}'; }

job whole 2 "$dir/whole"
for s in 8 16; do
  [ -f "$dir/whole/step_$s/.metadata" ] || fail "no complete checkpoint step_$s"
done
grep -q "units (encoder.layers.0) (encoder.layers.1) ()" "$dir/whole.txt" || fail "not one unit per layer"
grep -q "FSDP FULL_SHARD, bfloat16" "$dir/whole.txt" || fail "not FULL_SHARD in bfloat16"
grep -q ", 2 checkpointed layers" "$dir/whole.txt" || fail "the layers are not checkpointed"
first=$(loss whole 1)
last=$(loss whole 16)
[ -n "$first" ] && [ -n "$last" ] || fail "no loss lines"
awk -v a="$first" -v b="$last" 'BEGIN { exit !(b < 0.7 * a) }' ||
  fail "the loss fell only from $first to $last in 16 steps"

for ranks in 1 3; do
  mkdir -p "$dir/on$ranks"
  cp -r "$dir/whole/step_8" "$dir/on$ranks/"
  mkdir -p "$dir/on$ranks/step_12"  # an interrupted save: files, no .metadata
  cp "$dir/whole/step_16/"__0_* "$dir/on$ranks/step_12/"
  job "on$ranks" "$ranks" "$dir/on$ranks"
  expect_in "on$ranks" "Skipping .*step_12: incomplete"
  expect_in "on$ranks" "Resumed from .*step_8 at step 8 \(saved on 2 ranks, now $ranks\)"
  grep -q "^Step 8 " "$dir/on$ranks.txt" && fail "the run on $ranks ranks repeated step 8"
  for s in 9 12 16; do
    got=$(loss "on$ranks" $s)
    want=$(loss whole $s)
    [ -n "$got" ] || fail "no step $s on $ranks ranks"
    awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(d <= 0.03 && d >= -0.03) }' ||
      fail "step $s: loss $got resumed on $ranks ranks, $want on 2"
  done
  [ -f "$dir/on$ranks/step_16/.metadata" ] || fail "no checkpoint step_16 on $ranks ranks"
done
echo "ok: loss $first -> $last on 2 ranks; resumed at step 8 on 1 and 3 ranks, the same losses"
