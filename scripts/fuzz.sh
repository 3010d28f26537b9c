#!/usr/bin/env bash
# Builds ember's libFuzzer targets (tests/fuzz: load_fuzzer, dcp_metadata_fuzzer, tcp_store_fuzzer,
# idx_fuzzer, python_args_fuzzer) with Debian's clang 14, ASan and UBSan in build-fuzz (the library
# itself with clang, unsanitized; the Python extension instrumented for python_args_fuzzer), then runs each for a bounded time on its seed corpus (made from the golden files
# by tests/fuzz/make_seeds.py) and, first, on its committed regression inputs
# (tests/fuzz/regressions/<target>/: every finding fixed so far). New corpus entries go to
# build-fuzz/corpus/<target>; a crash leaves its input in build-fuzz/findings/<target>/ and fails
# the script. CI runs it for a short time; run it longer locally.
# Usage: scripts/fuzz.sh [seconds per target (default 60)] [target...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
build=${FUZZ_BUILD_DIR:-build-fuzz}
all=(load_fuzzer dcp_metadata_fuzzer tcp_store_fuzzer idx_fuzzer python_args_fuzzer)
targets=("${all[@]}")
[ $# -gt 0 ] && targets=("$@")

CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DEMBER_BUILD_FUZZ=ON \
  -DEMBER_BUILD_TESTS=OFF -DEMBER_BUILD_EXAMPLES=OFF > /dev/null
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"

seeds=$build/seeds
rm -rf "$seeds"
/usr/bin/python3 tests/fuzz/make_seeds.py . "$seeds"
status=0
for t in "${targets[@]}"; do
  corpus=$build/corpus/$t findings=$build/findings/$t
  mkdir -p "$corpus" "$findings"
  dict=()
  [[ $t == load_fuzzer || $t == dcp_metadata_fuzzer ]] && dict=(-dict=tests/fuzz/pickle.dict)
  regressions=tests/fuzz/regressions/$t
  if compgen -G "$regressions/*" > /dev/null; then
    echo "== $t: the committed regressions"
    "$build/tests/fuzz/$t" -rss_limit_mb=2048 "$regressions"/* || status=1
  fi
  echo "== $t: ${seconds} s"
  "$build/tests/fuzz/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$findings/" -print_final_stats=1 "${dict[@]}" "$corpus" "$seeds/$t" \
    2>&1 | tail -n 12 || status=1
done
exit $status
