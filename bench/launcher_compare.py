#!/usr/bin/env python3
# ember-run vs Debian's torchrun (PyTorch 1.13), side by side, interleaved (A B A B ...):
#   start-up: from launching `<launcher> --standalone --nproc-per-node 2 <worker>` to the end of
#             the workers' first all_reduce (after init_process_group);
#   restart:  rank 1 fails after the first all_reduce; from its failure to the end of the first
#             all_reduce of the restarted group (--max-restarts 1).
# Usage: bench/launcher_compare.py BUILD_DIR [--runs N]
# (BUILD_DIR configured with -DEMBER_BUILD_BENCH=ON; needs python3-torch: bootstrap.sh --bench)
import argparse, os, statistics, subprocess, sys, tempfile, time

here = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser()
parser.add_argument("build_dir")
parser.add_argument("--runs", type=int, default=7)
args = parser.parse_args()
ember_run = os.path.join(args.build_dir, "tools", "ember-run")
worker = os.path.join(args.build_dir, "bench", "launcher_worker")

def command(side, mode, out):
    if side == "ember":
        return [ember_run, "--standalone", "--nproc-per-node", "2", "--max-restarts", "1",
                worker, out, mode]
    # -r 1 -t 1: Debian's torchrun 1.13 crashes on Python 3.11 with the default 0 (facts §0).
    # --monitor_interval 1 as measured in distributed-notes.md (the default is 5 s).
    return ["/usr/bin/python3", "-m", "torch.distributed.run", "--standalone",
            "--nproc_per_node", "2", "--max_restarts", "1", "--monitor_interval", "1",
            "-r", "1", "-t", "1", "--log_dir", os.path.join(out, "logs"),
            os.path.join(here, "launcher_torch.py"), out, mode]

def read_ns(path):
    with open(path) as f:
        return int(f.read())

def once(side, mode):
    with tempfile.TemporaryDirectory() as out:
        start = time.time_ns()
        done = subprocess.run(command(side, mode, out), stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, timeout=120)
        if done.returncode != 0:
            sys.exit(f"{side} {mode} failed ({done.returncode}):\n{done.stderr[-3000:]}")
        if mode == "startup":
            return (read_ns(f"{out}/first.0") - start) / 1e9
        return (read_ns(f"{out}/first.1") - read_ns(f"{out}/fail")) / 1e9

lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
for line in lscpu.splitlines():
    if line.startswith(("Model name", "CPU(s):", "Flags")):
        print(line)
print(f"load average: {os.getloadavg()}")
results = {}
for mode in ("startup", "restart"):
    for i in range(args.runs):
        for side in ("ember", "torch"):   # interleaved
            results.setdefault((side, mode), []).append(once(side, mode))
print(f"\n{'':28}{'ember-run':>12}{'torchrun':>12}{'ratio':>9}   (median of {args.runs}, seconds)")
for mode, label in (("startup", "start-up to first all_reduce"), ("restart", "restart after a failure")):
    e = statistics.median(results[("ember", mode)])
    t = statistics.median(results[("torch", mode)])
    print(f"{label:28}{e:12.3f}{t:12.3f}{e / t:9.3f}")
    print(f"{'':28}{'min ' + format(min(results[('ember', mode)]), '.3f'):>12}"
          f"{'min ' + format(min(results[('torch', mode)]), '.3f'):>12}")
