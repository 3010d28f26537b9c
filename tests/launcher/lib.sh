# Shared by tests/launcher/*.sh and tests/train/ddp_restart.sh:  source lib.sh "$@"
#   (arguments: ember-run, the test worker)
# Gives $run (ember-run), $worker, a scratch $dir removed at exit, fail(), and launch(), which
# runs ember-run in the background under a deadline ($launch_deadline, 40 s unless set) and
# always kills it (and so, through PR_SET_PDEATHSIG, its workers) when the script exits.
set -uo pipefail
run=$1
worker=$2
dir=$(mktemp -d)
launcher_pids=()
launcher_groups=()
cleanup() {
  exec 2> /dev/null  # not bash's "Killed" notices for the watchdogs
  for group in "${launcher_groups[@]}"; do kill -KILL -- "-$group" 2>/dev/null; done
  for pid in "${launcher_pids[@]}"; do
    pkill -KILL -P "$pid" 2>/dev/null  # a watchdog's sleep
    kill -KILL "$pid" 2>/dev/null
  done
  wait 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for f in "$dir"/*.txt; do [ -f "$f" ] && { echo "--- $f"; cat "$f"; }; done
  exit 1
}
# launch_command NAME COMMAND...: COMMAND in the background, output to $dir/NAME.txt, killed
# after $launch_deadline seconds (40 unless the script sets it) at the latest; sets $pid.
launch_command() {
  local name=$1
  shift
  "$@" > "$dir/$name.txt" 2>&1 &
  pid=$!
  ( sleep "${launch_deadline:-40}"; kill -KILL "$pid" ) > /dev/null 2>&1 &
  launcher_pids+=("$pid" "$!")
}
# launch_group NAME COMMAND...: as launch_command, in a session of its own that the deadline and
# the script's exit kill whole: for launchers whose workers outlive them (torchrun).
launch_group() {
  local name=$1
  shift
  setsid "$@" > "$dir/$name.txt" 2>&1 &  # not a group leader, so setsid execs: $! leads it
  pid=$!
  launcher_groups+=("$pid")
  ( sleep "${launch_deadline:-40}"; kill -KILL -- "-$pid" ) > /dev/null 2>&1 &
  launcher_pids+=("$!")
}
# torchrun NAME ARGS...: Debian's torchrun (PyTorch 1.13) in the background with launch_group, on
# loopback with a rendezvous port the kernel picks, polling its workers every 0.1 s (5 s by
# default); -r 1 -t 1 because 1.13 fails on Python 3.11 with its default of no redirects (its
# Std.from_str("0") is None there). Sets $pid.
torchrun() {
  local name=$1
  shift
  launch_group "$name" /usr/bin/python3 -m torch.distributed.run --nnodes 1 --rdzv_backend c10d \
    --rdzv_endpoint 127.0.0.1:0 --monitor_interval 0.1 -r 1 -t 1 --log_dir "$dir/torchrun_logs" "$@"
}
# need_torch: exit 77 (CTest's skip) with the reason when Debian's python3-torch is missing.
need_torch() {
  /usr/bin/python3 -c 'import torch' 2> /dev/null ||
    { echo "SKIP: python3-torch is not installed (apt install python3-torch)"; exit 77; }
}
# launch ARGS...: ember-run ARGS in the background, output to $dir/out.txt; sets $pid.
launch() { launch_command out "$run" "$@"; }
# launch_node NAME ARGS...: ember-run ARGS in the background, output to $dir/NAME.txt.
launch_node() {
  local name=$1
  shift
  launch_command "$name" "$run" "$@"
}
# run_to_end ARGS...: ember-run ARGS in the foreground; sets $status.
run_to_end() {
  launch "$@"
  wait "$pid"
  status=$?
}
expect_status() { [ "$status" -eq "$1" ] || fail "ember-run exited with $status, expected $1"; }
expect_output() { grep -qE -- "$1" "$dir/out.txt" || fail "no line matching '$1' in the output"; }
# wait_for FILE...: until every file exists (a few seconds at most).
wait_for() {
  for _ in $(seq 200); do
    local all=1
    for f in "$@"; do [ -e "$f" ] || all=0; done
    [ $all = 1 ] && return 0
    sleep 0.05
  done
  fail "timed out waiting for $*"
}
expect_in() { grep -qE -- "$2" "$dir/$1.txt" || { cat "$dir/$1.txt"; fail "no line matching '$2' in $1's output"; }; }
# A port for a job's store: a free one the kernel picks (bound and released at once).
free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + RANDOM % 20000))
}
