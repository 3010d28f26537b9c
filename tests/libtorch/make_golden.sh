#!/usr/bin/env bash
# Writes tests/libtorch/golden/<name>.txt: the output of programs/<name>.cpp built against
# Debian's real LibTorch (libtorch-dev: scripts/bootstrap.sh --bench), run in a directory with
# the synthetic MNIST files (make_mnist.py), as the tests run them on ember.
#   tests/libtorch/make_golden.sh [name...]     (all programs without names)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$here/make_mnist.py" "$work/data"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in "$here"/programs/*.cpp; do names+=("$(basename "$f" .cpp)"); done
fi
for name in "${names[@]}"; do
  g++ -std=c++17 -O1 "$here/programs/$name.cpp" -I/usr/include/torch/csrc/api/include \
    -ltorch -ltorch_cpu -lc10 -o "$work/$name"
  (cd "$work" && OMP_NUM_THREADS=1 "./$name" > "$here/golden/$name.txt")
  echo "golden/$name.txt: $(wc -l < "$here/golden/$name.txt") lines"
done
