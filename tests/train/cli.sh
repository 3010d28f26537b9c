#!/usr/bin/env bash
# The Fashion-MNIST program's command line (examples/fashion_mnist/main.cpp): --help names every
# option the job takes, and bad options or a missing dataset are refused with a message and a
# non-zero status before anything is trained or written.
#   cli.sh <ember-train-fashion-mnist>
set -uo pipefail
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

help=$("$bin" --help) || fail "--help exited with status $?"
for option in --epochs --batch-size --lr --weight-decay --workers --threads --seed --data-dir \
              --output-dir --model --resume --limit --val-limit --stop-after --amp --device; do
  grep -q -- "$option" <<< "$help" || fail "--help does not mention $option"
done
grep -q -- "--epochs INT=5" <<< "$help" || fail "--help does not show the default of 5 epochs"

# refused <expected message> <args...>: a non-zero status and the message on stdout or stderr.
refused() {
  local want=$1
  shift
  local out
  out=$("$bin" --output-dir "$dir/run" "$@" 2>&1) && fail "'$*' was accepted"
  grep -qF -- "$want" <<< "$out" || fail "'$*' said: $out (expected: $want)"
}
refused "--model: resnet not in {cnn,mlp}" --model resnet
refused "--epochs must be positive, got -1" --epochs -1
refused "--amp: fp8 not in {none,bf16,fp16}" --amp fp8
refused "dataset directory $dir/none not found: expected train-images-idx3-ubyte" \
  --data-dir "$dir/none"
refused "--limit must be >= 0, got -5" --limit -5
refused "--stop-after must be >= 0, got -1" --stop-after -1
refused "Could not convert: --batch-size = 1.5" --batch-size 1.5
refused "--device must be cpu, cuda or cuda:N, got 'tpu'" --device tpu
# A machine without a GPU (every CPU-only build) refuses cuda before training.
if ! nvidia-smi -L > /dev/null 2>&1; then
  refused "--device cuda: no CUDA device here (ember built without CUDA, or no GPU visible)" \
    --device cuda
fi
[ ! -e "$dir/run/checkpoint.pt" ] || fail "a refused run wrote a checkpoint"
echo "ok"
