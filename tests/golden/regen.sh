#!/usr/bin/env bash
# Regenerates every golden file in tests/golden with PyTorch 1.13 (Debian's /usr/bin/python3 with
# python3-torch and python3-numpy: scripts/bootstrap.sh --golden), then shows what changed.
#
#   tests/golden/regen.sh              every gen_*.py
#   tests/golden/regen.sh gen_conv.py  only the ones named
#
# Each gen_<x>.py writes its files next to itself (see its docstring for the format) through
# golden_json.py, the one encoding of numbers and tensors that tests/golden_support.h reads.
# Commit a generator together with its regenerated files: the golden_cases_<gen> CTests fail
# when a generator's cases and its committed files disagree (check_cases.py).
#
# Regenerated (here or on another host), a few files differ without a change in any generator:
#   nn_layers.json         float32 convolution/norm gradients in the last bits (up to ~5e-6
#                          relative): PyTorch's vectorised sums depend on where the allocator
#                          places each tensor, so one extra allocation anywhere moves them
#   checkpoints/           expected.json's "storage" fields are storage addresses (the C++ test
#                          only compares which tensors share one); legacy.pt, torchscript.pt and
#                          the hand-made zips embed addresses or timestamps
# Keep the committed version of those unless the generator changed.
set -euo pipefail
cd "$(dirname "$0")"
python=/usr/bin/python3
check='import torch, numpy; assert torch.__version__.startswith("1.13"), torch.__version__'
if ! "$python" -c "$check"; then
  echo "regen.sh: $python needs PyTorch 1.13 and numpy (scripts/bootstrap.sh --golden)" >&2
  exit 1
fi
if [ $# -gt 0 ]; then generators=("$@"); else generators=(gen_*.py); fi
for gen in "${generators[@]}"; do
  echo "== $gen"
  "$python" "$gen"
done
git status --short -- .
