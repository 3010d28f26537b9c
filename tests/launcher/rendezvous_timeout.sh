#!/usr/bin/env bash
# A rank that never reaches init_process_group: the others' rendezvous times out (2 s) with an
# error naming it, and ember-run's summary carries that message; the late rank is stopped.
#   rendezvous_timeout.sh <ember-run> <worker>
source "$(dirname "$0")/lib.sh" "$@"

run_to_end --nproc-per-node 3 "$worker" late "$dir" 2
expect_status 1
expect_output "^  message   : ember::Error: \[init_process_group\] rank [01]: timed out after 2 s waiting for rank\(s\) 2 to join"
[ -f "$dir/started.2" ] || fail "rank 2 never started"
[ ! -f "$dir/not_stopped.2" ] || fail "rank 2 was not stopped"
echo "ok: the missing rank is named"
