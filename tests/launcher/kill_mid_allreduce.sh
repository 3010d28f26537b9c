#!/usr/bin/env bash
# SIGKILL of one rank mid-all_reduce (the real process group over Gloo): the survivors fail
# with errors that name the dead rank, ember-run's summary shows the signal as the root cause
# and the survivors' messages, restarts the group, and attempt 1 finishes.
#   kill_mid_allreduce.sh <ember-run> <worker>
source "$(dirname "$0")/lib.sh" "$@"

# --monitor-interval 3: a generous window for the survivors to fail by themselves (they do in
# milliseconds) before the launcher stops them, so their messages are in the summary.
run_to_end --nproc-per-node 3 --max-restarts 1 --monitor-interval 3 "$worker" allreduce "$dir" 40 die
expect_status 0
expect_output "attempt 0, 1/1 attempts left; restarting the worker group"
expect_output "^  rank      : 1 \(local_rank: 1\)$"
expect_output "^  message   : Signal 9 \(SIGKILL\) received by PID [0-9]+$"
# Both survivors fail in the all_reduce, which goes through shared memory by default on one host:
# each sees the dead rank's pid gone and names it.
expect_output "^  message   : ember::Error: \[all_reduce #[0-9]+\] rank 0: rank 1 exited \(peer died\?\)"
expect_output "^  message   : ember::Error: \[all_reduce #[0-9]+\] rank 2: rank 1 exited \(peer died\?\)"
for r in 0 1 2; do
  grep -qx "attempt=1 world=3 ok" "$dir/result.$r" || fail "rank $r did not finish attempt 1"
done
echo "ok: a killed rank is named, the group restarts and finishes"
