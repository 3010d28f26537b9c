#!/usr/bin/env bash
# --max-restarts: rank 1 fails mid-run; ember-run stops rank 0, restarts the whole group with
# TORCHELASTIC_RESTART_COUNT=1, and both resume from their checkpoints (ember::save/load) to the
# same result as an uninterrupted run: weights = 1 + 2 + ... + 20 = 210.
#   restart_checkpoint.sh <ember-run> <worker>
source "$(dirname "$0")/lib.sh" "$@"

run_to_end --nproc-per-node 2 --max-restarts 1 "$worker" train "$dir" 20 7
expect_status 0
expect_output "attempt 0, 1/1 attempts left; restarting the worker group"
expect_output "message   : ember::Error: \[train\] simulated failure at step 7 on rank 1"
grep -qx "attempt=1 first_step=7 weights=210.000000" "$dir/result.1" ||
  fail "rank 1: $(cat "$dir/result.1" 2>/dev/null)"
grep -qE "^attempt=1 first_step=([2-9]|1[0-9]|2[01]) weights=210.000000$" "$dir/result.0" ||
  fail "rank 0 did not resume from its checkpoint: $(cat "$dir/result.0" 2>/dev/null)"

# Without restarts left the failure is final.
rm -f "$dir"/checkpoint.* "$dir"/result.*
run_to_end --nproc-per-node 2 --max-restarts 0 "$worker" train "$dir" 20 7
expect_status 1
expect_output "attempt 0, no restarts left"
[ ! -f "$dir/result.1" ] || fail "rank 1 finished without a restart"
echo "ok: the group restarts and resumes from its checkpoints"
