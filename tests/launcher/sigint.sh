#!/usr/bin/env bash
# SIGINT/SIGTERM to ember-run reach every worker (which here exit for it), and ember-run exits
# 128+signal; a worker that ignores SIGTERM is SIGKILLed after --stop-timeout.
#   sigint.sh <ember-run> <worker>
source "$(dirname "$0")/lib.sh" "$@"

for sig in INT TERM; do
  rm -f "$dir"/started.* "$dir"/INT.* "$dir"/TERM.*
  launch --nproc-per-node 2 "$worker" wait "$dir"
  wait_for "$dir/started.0" "$dir/started.1"
  kill -$sig "$pid"
  wait "$pid"
  status=$?
  expect_status $((128 + $(kill -l $sig)))
  expect_output "received SIG$sig: forwarding it to the workers"
  for r in 0 1; do [ -f "$dir/$sig.$r" ] || fail "rank $r did not get SIG$sig"; done
done

# A worker that ignores SIGTERM (a shell script trapping it) is SIGKILLed after --stop-timeout.
cat > "$dir/stubborn.sh" <<'SH'
#!/usr/bin/env bash
trap '' TERM
touch "$1/started.$RANK"
sleep 30
touch "$1/not_stopped.$RANK"
SH
chmod +x "$dir/stubborn.sh"
rm -f "$dir"/started.*
launch --nproc-per-node 1 --stop-timeout 0.5 "$dir/stubborn.sh" "$dir"
wait_for "$dir/started.0"
kill -TERM "$pid"
wait "$pid"
status=$?
expect_status 143
expect_output "rank 0 \(pid [0-9]+\) did not exit within 0.5.* s of SIGTERM; sending SIGKILL"
[ ! -f "$dir/not_stopped.0" ] || fail "the stubborn worker kept running"
# Ctrl-C while a failed group is being stopped ends the job: no restart despite --max-restarts.
cat > "$dir/fail_then_linger.sh" <<'SH'
#!/usr/bin/env bash
if [ "$RANK" = 1 ]; then sleep 0.2; exit 1; fi
trap '' TERM
touch "$1/started.$RANK.$TORCHELASTIC_RESTART_COUNT"
sleep 30
SH
chmod +x "$dir/fail_then_linger.sh"
launch --nproc-per-node 2 --max-restarts 3 --stop-timeout 3 "$dir/fail_then_linger.sh" "$dir"
wait_for "$dir/started.0.0"
sleep 1  # rank 1 has failed; rank 0 ignores the SIGTERM, so the stop lasts --stop-timeout
kill -INT "$pid"
wait "$pid"
status=$?
expect_status 130
expect_output "received SIGINT while stopping the workers: not restarting"
[ ! -e "$dir/started.0.1" ] || fail "the group was restarted after SIGINT"
echo "ok: signals are forwarded; stragglers are killed; no restart after Ctrl-C"
