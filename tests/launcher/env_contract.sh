#!/usr/bin/env bash
# The environment ember-run gives each worker: torchrun 1.13's variables (measured in
# shared/reference/pytorch-1.13-probes/torchrun_out2.txt), the store protocol (EMBER_RUN_HOSTS_STORE),
# OMP_NUM_THREADS=1 unless set, the parent's environment, and the program's arguments untouched.
#   env_contract.sh <ember-run> <worker>
source "$(dirname "$0")/lib.sh" "$@"

value() { sed -n "s/^$2=//p" "$dir/env.$1"; }
expect() {  # expect RANK KEY VALUE
  [ "$(value "$1" "$2")" = "$3" ] || fail "rank $1: $2='$(value "$1" "$2")', expected '$3'"
}

EMBER_TEST_INHERITED=yes run_to_end --standalone --nproc-per-node=3 --log-dir "$dir/logs" \
  "$worker" env "$dir" --epochs 3 -x "two words"
expect_status 0
port=$(value 0 MASTER_PORT)
[ "$port" -gt 0 ] 2>/dev/null || fail "MASTER_PORT='$port': --standalone should pick a free port"
run_id=$(value 0 TORCHELASTIC_RUN_ID)
[ -n "$run_id" ] && [ "$run_id" != none ] || fail "--standalone should give a fresh run id, got '$run_id'"
for r in 0 1 2; do
  [ -f "$dir/env.$r" ] || fail "rank $r did not run"
  for kv in RANK=$r LOCAL_RANK=$r ROLE_RANK=$r WORLD_SIZE=3 LOCAL_WORLD_SIZE=3 ROLE_WORLD_SIZE=3 \
            GROUP_RANK=0 GROUP_WORLD_SIZE=1 ROLE_NAME=default MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
            TORCHELASTIC_RESTART_COUNT=0 TORCHELASTIC_MAX_RESTARTS=0 TORCHELASTIC_RUN_ID=$run_id \
            TORCHELASTIC_USE_AGENT_STORE=True EMBER_RUN_HOSTS_STORE=1 OMP_NUM_THREADS=1 \
            NCCL_ASYNC_ERROR_HANDLING=1 EMBER_TEST_INHERITED=yes "ARGV=--epochs|3|-x|two words"; do
    expect $r "${kv%%=*}" "${kv#*=}"
  done
  # torchrun's layout: <log_dir>/<run_id>_<random>/attempt_<k>/<local_rank>/error.json
  error_file=$(value $r TORCHELASTIC_ERROR_FILE)
  [[ "$error_file" == "$dir/logs/${run_id}_"*"/attempt_0/$r/error.json" ]] ||
    fail "rank $r: TORCHELASTIC_ERROR_FILE='$error_file' is not in --log-dir's layout"
done

# A value the user set wins; one worker per node keeps all threads (torchrun sets it for > 1).
rm -f "$dir"/env.*
OMP_NUM_THREADS=5 run_to_end --nproc-per-node 2 "$worker" env "$dir"
expect_status 0
expect 1 OMP_NUM_THREADS 5
expect 1 MASTER_PORT 29500   # without --standalone: --master-port's default
expect 1 TORCHELASTIC_RUN_ID none
rm -f "$dir"/env.*
env -u OMP_NUM_THREADS "$run" --nproc-per-node 1 "$worker" env "$dir" > "$dir/out.txt" 2>&1 ||
  fail "one worker failed"
[ -z "$(value 0 OMP_NUM_THREADS)" ] || fail "one worker per node got OMP_NUM_THREADS=$(value 0 OMP_NUM_THREADS)"
echo "ok: the worker environment is torchrun's"
