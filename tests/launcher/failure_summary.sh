#!/usr/bin/env bash
# A failing worker: the others are stopped (not left running), ember-run exits 1 with torchrun's
# summary naming the rank, its exit code or signal and the message from its error file.
#   failure_summary.sh <ember-run> <worker>
source "$(dirname "$0")/lib.sh" "$@"

stopped_not_finished() {  # the other ranks ran, and were stopped before their 30 s wait ended
  for r in "$@"; do
    [ -f "$dir/started.$r" ] || fail "rank $r never started"
    [ ! -f "$dir/not_stopped.$r" ] || fail "rank $r was not stopped"
  done
}

run_to_end --nproc-per-node 3 --log-dir "$dir/logs" "$worker" fail "$dir" 1 "boom from rank 1"
expect_status 1
expect_output "ember_run_test_worker FAILED: attempt 0, no restarts left"
expect_output "Root Cause \(first observed failure\):"
expect_output "^  rank      : 1 \(local_rank: 1\)$"
expect_output "^  exitcode  : 1 \(pid: [0-9]+\)$"
expect_output "^  message   : ember::Error: \[worker\] boom from rank 1$"
expect_output "^  error_file: $dir/logs/none_.*/attempt_0/1/error.json$"
expect_output "<NO_OTHER_FAILURES>"
stopped_not_finished 0 2
# The error file is torchelastic's layout.
grep -q '"message":{"extraInfo":{"py_callstack":"ember::Error: \[worker\] boom from rank 1","timestamp":"[0-9]*"},"message":"ember::Error: \[worker\] boom from rank 1"}' \
  "$dir"/logs/none_*/attempt_0/1/error.json || fail "error.json: $(cat "$dir"/logs/none_*/attempt_0/1/error.json)"

# An exit code without an error file, and a signal: named as torchrun names them.
rm -f "$dir"/started.* "$dir"/not_stopped.*
run_to_end --nproc-per-node 2 "$worker" exit "$dir" 0 3
expect_status 1
expect_output "^  rank      : 0 \(local_rank: 0\)$"
expect_output "^  exitcode  : 3 "
expect_output "^  error_file: <N/A>$"
expect_output "exitcode 3 without an error file"
stopped_not_finished 1
rm -f "$dir"/started.* "$dir"/not_stopped.*
run_to_end --nproc-per-node 2 "$worker" kill "$dir" 1
expect_status 1
expect_output "^  exitcode  : -9 \(pid: [0-9]+\)$"
expect_output "^  message   : Signal 9 \(SIGKILL\) received by PID [0-9]+$"
stopped_not_finished 0
echo "ok: failures are summarised with rank, exit code or signal and message; the rest stopped"
