#!/usr/bin/env bash
# Writes tests/libtorch/golden/<name>.txt: the output of programs/<name>.cpp built against
# Debian's real LibTorch (libtorch-dev: scripts/bootstrap.sh --bench), run in a directory with
# the synthetic MNIST files (make_mnist.py), as the tests run them on ember.
#   tests/libtorch/make_golden.sh [name...]     (all programs without names)
# With COMPILER=clang the programs are built with clang++ and the output goes to
# golden/clang/<name>.txt where it differs from g++'s (and nowhere where it does not): a program
# that draws random numbers in two arguments of one call (nn::Sequential(nn::Linear(...),
# nn::Linear(...))) draws them in the order its compiler evaluates arguments — g++ right to
# left, clang++ left to right — on LibTorch as on ember, so a Clang build compares with these.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$here/make_mnist.py" "$work/data"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in "$here"/programs/*.cpp; do names+=("$(basename "$f" .cpp)"); done
fi
case "${COMPILER:-gcc}" in
  gcc) cxx=g++; out_dir="$here/golden" ;;
  clang) cxx=clang++; out_dir="$here/golden/clang"; mkdir -p "$out_dir" ;;
  *) echo "COMPILER must be gcc or clang, not '$COMPILER'" >&2; exit 2 ;;
esac
for name in "${names[@]}"; do
  $cxx -std=c++17 -O1 "$here/programs/$name.cpp" -I/usr/include/torch/csrc/api/include \
    -ltorch -ltorch_cpu -lc10 -o "$work/$name"
  (cd "$work" && OMP_NUM_THREADS=1 "./$name" > "$work/$name.txt")
  if [ "$out_dir" != "$here/golden" ] && cmp -s "$work/$name.txt" "$here/golden/$name.txt"; then
    rm -f "$out_dir/$name.txt"
    echo "$name: the same with $cxx as with g++"
    continue
  fi
  cp "$work/$name.txt" "$out_dir/$name.txt"
  echo "$out_dir/$name.txt: $(wc -l < "$out_dir/$name.txt") lines"
done
