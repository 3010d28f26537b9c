#!/usr/bin/env bash
# Ctrl-C on the real program (examples/fashion_mnist/main.cpp): a SIGINT during training stops
# after the current step with a checkpoint, exits with status 130 and a line that says how to
# continue, and --resume then finishes the run from there.
#   ctrl_c.sh <ember-train-fashion-mnist>
set -uo pipefail
bin=$1
if [ ! -d /usr/share/datasets/fashion-mnist ]; then
  echo "dataset-fashion-mnist is not installed (scripts/bootstrap.sh installs it)"
  exit 77  # SKIP_RETURN_CODE, as the other job tests skip without the data
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; echo "--- first run:"; cat "$dir/first.txt"; echo "--- resumed run:";
         cat "$dir/resumed.txt" 2>/dev/null; exit 1; }
args=(--epochs 3 --limit 6400 --val-limit 500 --workers 2 --output-dir "$dir/run")

"$bin" "${args[@]}" > "$dir/first.txt" 2>&1 &
pid=$!
# Interrupt as soon as epoch 0 is reported: two epochs (100 steps) are still to come.
for _ in $(seq 1200); do
  grep -q "^Epoch 0 |" "$dir/first.txt" && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
kill -INT "$pid" 2>/dev/null || fail "the run ended before it could be interrupted"
wait "$pid"
status=$?
[ "$status" -eq 130 ] || fail "exit status $status after SIGINT, expected 130"
grep -q "^Stopped after .*Continue with --resume; checkpoint in $dir/run/checkpoint.pt" \
  "$dir/first.txt" || fail "no 'Stopped after ... Continue with --resume' line"
[ -s "$dir/run/checkpoint.pt" ] || fail "no checkpoint.pt"
[ ! -e "$dir/run/checkpoint.pt.tmp" ] || fail "a temporary checkpoint was left behind"

"$bin" "${args[@]}" --resume > "$dir/resumed.txt" 2>&1 || fail "the resumed run failed"
grep -q "^Epoch 0 |" "$dir/resumed.txt" && fail "the resumed run trained epoch 0 again"
grep -q "^Epoch 2 |" "$dir/resumed.txt" || fail "the resumed run did not reach epoch 2"
grep -q "^Test accuracy " "$dir/resumed.txt" || fail "no final line"
rows=$(($(wc -l < "$dir/run/metrics.csv") - 1))
[ "$rows" -eq 3 ] || fail "metrics.csv has $rows epochs, expected 3"
[ -s "$dir/run/model.pt" ] || fail "no model.pt"
echo "ok: interrupted with status 130, resumed to the end"
