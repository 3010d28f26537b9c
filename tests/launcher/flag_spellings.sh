#!/usr/bin/env bash
# torchrun's flags in both spellings (--nproc-per-node and --nproc_per_node, = or a space), the
# seed's launch lines, bad values refused before anything runs, and per-rank log prefixes
# (--tee) and files (--redirects) in --log-dir; PET_* defaults; .py programs and --no-python.
#   flag_spellings.sh <ember-run> <worker>
source "$(dirname "$0")/lib.sh" "$@"

# The same job in both spellings must give the same environment (error file paths aside).
env_without_paths() { grep -v TORCHELASTIC_ERROR_FILE "$dir/env.$1"; }
for spelling in dash underscore; do
  rm -f "$dir"/env.*
  if [ $spelling = dash ]; then
    run_to_end --nnodes=1 --nproc-per-node=2 --node-rank=0 --master-addr=127.0.0.1 --master-port 29531 \
      --max-restarts=2 --monitor-interval=0.5 --rdzv-id=job7 --log-dir "$dir/logs" "$worker" env "$dir"
  else
    run_to_end --nnodes 1 --nproc_per_node 2 --node_rank 0 --master_addr 127.0.0.1 --master_port=29531 \
      --max_restarts 2 --monitor_interval 0.5 --rdzv_id job7 --log_dir="$dir/logs" "$worker" env "$dir"
  fi
  expect_status 0
  for r in 0 1; do env_without_paths $r > "$dir/$spelling.$r"; done
done
for r in 0 1; do
  diff "$dir/dash.$r" "$dir/underscore.$r" || fail "rank $r's environment differs between spellings"
  grep -qx "MASTER_PORT=29531" "$dir/dash.$r" || fail "--master-port was not used"
  grep -qx "TORCHELASTIC_MAX_RESTARTS=2" "$dir/dash.$r" || fail "--max-restarts was not used"
  grep -qx "TORCHELASTIC_RUN_ID=job7" "$dir/dash.$r" || fail "--rdzv-id was not used"
done
# --rdzv-endpoint is --master-addr:--master-port.
rm -f "$dir"/env.*
run_to_end --rdzv-endpoint=127.0.0.1:29533 --nproc_per_node=1 "$worker" env "$dir"
expect_status 0
grep -qx "MASTER_PORT=29533" "$dir/env.0" || fail "--rdzv-endpoint's port was not used"

# The seed's standalone line.
rm -f "$dir"/env.*
run_to_end --standalone --nproc-per-node=2 "$worker" env "$dir"
expect_status 0
[ -f "$dir/env.1" ] || fail "--standalone --nproc-per-node=2 did not start rank 1"

# PET_<FLAG> (torchrun's, set by Kubeflow's TrainJob) is a flag's default; the command line wins.
rm -f "$dir"/env.*
PET_NPROC_PER_NODE=2 PET_MASTER_PORT=29534 PET_RDZV_ID=pet7 run_to_end "$worker" env "$dir"
expect_status 0
[ -f "$dir/env.1" ] || fail "PET_NPROC_PER_NODE=2 did not start rank 1"
grep -qx "MASTER_PORT=29534" "$dir/env.0" || fail "PET_MASTER_PORT was not used"
grep -qx "TORCHELASTIC_RUN_ID=pet7" "$dir/env.0" || fail "PET_RDZV_ID was not used"
rm -f "$dir"/env.*
PET_NPROC_PER_NODE=2 run_to_end --nproc-per-node 1 "$worker" env "$dir"
expect_status 0
[ ! -f "$dir/env.1" ] || fail "PET_NPROC_PER_NODE won over --nproc-per-node"

# A .py program: --no-python (--no_python) runs it as given, --python through that interpreter
# (the default, ember-python, is the Python package's to test).
printf '#!/bin/sh\necho "$0 $RANK" > "$1/ran.$RANK"\n' > "$dir/prog.py"
chmod +x "$dir/prog.py"
for flag in --no-python --no_python; do
  rm -f "$dir"/ran.*
  run_to_end --nproc-per-node=1 $flag "$dir/prog.py" "$dir"
  expect_status 0
  grep -qx "$dir/prog.py 0" "$dir/ran.0" || fail "$flag did not run the script as given"
done
rm -f "$dir"/ran.*
run_to_end --nproc-per-node=1 --python /bin/sh "$dir/prog.py" "$dir"
expect_status 0
grep -qx "$dir/prog.py 0" "$dir/ran.0" || fail "--python /bin/sh did not run the script"

# Bad values: status 2, a message naming the flag, no worker started.
rm -f "$dir"/env.*
refuse() {  # refuse PATTERN ARGS...
  local pattern=$1
  shift
  run_to_end "$@"
  expect_status 2
  expect_output "$pattern"
  ! ls "$dir"/env.* > /dev/null 2>&1 || fail "a worker ran despite '$*'"
}
refuse "--nproc-per-node: expected >= 1" --nproc-per-node 0 "$worker" env "$dir"
refuse "--no-python runs the program as given" --no-python --python /bin/sh "$worker" env "$dir"
refuse "--nnodes: expected N >= 1 or N:N" --nnodes 1:4 "$worker" env "$dir"
refuse "--node-rank: expected 0..1" --nnodes 2 --node-rank 2 "$worker" env "$dir"
refuse "--tee: expected 0 \(none\)" --tee 7 "$worker" env "$dir"
refuse "missing: give the program" --nproc-per-node 2
refuse "--standalone runs one node" --standalone --nnodes 2 "$worker" env "$dir"
run_to_end --help
expect_status 0
for flag in --nproc-per-node,--nproc_per_node --max-restarts,--max_restarts --rdzv-endpoint,--rdzv_endpoint \
            --log-dir,--log_dir --standalone --monitor-interval,--monitor_interval; do
  expect_output -- "$flag"
done
# A program that cannot run: said once, no restarts.
run_to_end --max-restarts 3 "$dir/no-such-program"
expect_status 1
expect_output "cannot run '$dir/no-such-program': No such file or directory"

# --tee 3: each line on the console prefixed [default<rank>]:, and in the log files unprefixed.
run_to_end --nproc-per-node 2 --tee 3 --log-dir "$dir/tee" "$worker" echo "$dir"
expect_status 0
for r in 0 1; do
  expect_output "^\[default$r\]:hello from rank $r$"
  expect_output "^\[default$r\]:warning from rank $r$"
  grep -qx "hello from rank $r" "$dir"/tee/none_*/attempt_0/$r/stdout.log || fail "rank $r: no stdout.log"
  grep -qx "warning from rank $r" "$dir"/tee/none_*/attempt_0/$r/stderr.log || fail "rank $r: no stderr.log"
done
# --redirects per rank: rank 0's stdout to its file only; rank 1 untouched.
run_to_end --nproc-per-node 2 --redirects 0:1 --log-dir "$dir/redirect" "$worker" echo "$dir"
expect_status 0
grep -q "hello from rank 0" "$dir/out.txt" && fail "--redirects 0:1 still printed rank 0's stdout"
expect_output "^hello from rank 1$"
expect_output "^warning from rank 0$"
grep -qx "hello from rank 0" "$dir"/redirect/none_*/attempt_0/0/stdout.log || fail "rank 0's stdout.log"
echo "ok: both spellings, bad values refused, log prefixes and files"
