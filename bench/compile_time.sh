#!/bin/bash
# The library's compile time, as issue 20 measures it: a clean native build of the library alone
# (-DEMBER_NATIVE=ON, no tests, `ninja ember`, no ccache), each object's compiler CPU time
# (user + sys) recorded by a compiler launcher and summed. The launcher would turn the batched
# (unity) build off, as ccache does, so it is asked for: the build a user gets without a launcher
# (commits from before it existed ignore the option). Each commit is built from its own git
# worktree; with several commits the builds alternate, round after round, because the machines
# here drift by 10% and more between runs (compare commits within one run of this script, never
# across runs or machines).
#
#   bench/compile_time.sh [--rounds N] [--jobs J] COMMIT [COMMIT...]
#
# Prints the CPU, every build's total, each commit's minimum and median, their ratio to the
# first commit's, and the largest objects of each commit's last build.
set -euo pipefail

usage() {  # the comment above, without its '#'
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}

rounds=1
jobs=2
commits=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=${2:-}; shift $(($# > 1 ? 2 : 1)) ;;
    --jobs) jobs=${2:-}; shift $(($# > 1 ? 2 : 1)) ;;
    -h|--help) usage; exit 0 ;;
    *) commits+=("$1"); shift ;;
  esac
done
[ ${#commits[@]} -gt 0 ] || { usage >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ && $jobs =~ ^[1-9][0-9]*$ ]] ||
  { echo "compile_time.sh: --rounds and --jobs take a positive count" >&2; exit 2; }

repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
work=$(mktemp -d /tmp/ember-compile-time.XXXXXX)
cleanup() {
  for i in "${!commits[@]}"; do git -C "$repo" worktree remove --force "$work/src$i" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# The launcher appends "<user+sys seconds> <object>" for every compile to $COMPILE_TIME_LOG.
cat > "$work/launcher.sh" <<'EOF'
#!/bin/bash
out=""; prev=""
for a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done
exec /usr/bin/time -f "%U %S $out" -a -o "$COMPILE_TIME_LOG" "$@"
EOF
chmod +x "$work/launcher.sh"

"$(dirname "$0")/cpu_info.sh"
echo "compiler: $(c++ --version | head -1); -j$jobs"

for i in "${!commits[@]}"; do
  git -C "$repo" worktree add -q --detach "$work/src$i" "${commits[$i]}"
done

for r in $(seq 1 "$rounds"); do
  for i in "${!commits[@]}"; do
    build="$work/build$i"; log="$work/times$i.$r"
    rm -rf "$build"
    cmake -S "$work/src$i" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_NATIVE=ON \
      -DEMBER_BUILD_TESTS=OFF -DCMAKE_CXX_COMPILER_LAUNCHER="$work/launcher.sh" \
      -DEMBER_UNITY_BUILD=ON > "$build.cfg" 2>&1 \
      || { echo "${commits[$i]}: configure failed (see $build.cfg)"; exit 1; }
    COMPILE_TIME_LOG=$log ninja -C "$build" -j"$jobs" ember > "$build.log" 2>&1 \
      || { tail -20 "$build.log"; echo "${commits[$i]}: build failed"; exit 1; }
    total=$(awk '{t += $1 + $2} END {printf "%.1f", t}' "$log")
    echo "round $r ${commits[$i]}: $total s in $(wc -l < "$log") objects"
    echo "$total" >> "$work/totals$i"
  done
done

echo
first=""
for i in "${!commits[@]}"; do
  read -r min median < <(sort -n "$work/totals$i" |
    awk '{v[NR] = $1} END {m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print v[1], m}')
  [ -n "$first" ] || first=$median
  printf "%-12s min %6.1f s  median %6.1f s  median / %s's %.3f\n" "${commits[$i]}" "$min" "$median" \
    "${commits[0]}" "$(echo "$median / $first" | bc -l)"
done
for i in "${!commits[@]}"; do
  echo; echo "largest objects of ${commits[$i]} (last build, user+sys s):"
  awk '{printf "%7.1f %s\n", $1 + $2, $3}' "$work/times$i.$rounds" | sort -rn | head -8
done
