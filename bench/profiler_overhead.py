#!/usr/bin/env python3
"""The profiler's cost per op, ember against PyTorch 1.13, interleaved in one run (compare.py's
sides): add_16elem with no profile, inside a recording profile, and with record_shapes; the
difference is what recording adds to one op. With --base, a second ember build (e.g. the commit
before the profiler) also runs the rows without a profile, to show they did not move.

  bench/profiler_overhead.py --build build [--base ../other/build] [--rounds 7] [--threads 1]
"""
import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compare import TORCH_ENV, Side  # noqa: E402

PLAIN = ["add_16elem", "add_16elem_grad", "mlp8_step"]
PROFILED = ["add_16elem_profiled", "add_16elem_profiled_shapes"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--base", default="", help="another build dir whose ember_ops is the baseline")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    lscpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    for line in lscpu.splitlines():
        if line.startswith(("Model name", "Flags")):
            print(line if len(line) < 400 else line[:400] + " ...")
    t = str(args.threads)
    sides = [Side("ember", [os.path.join(args.build, "bench", "ember_ops"), t]),
             Side("pytorch", ["/usr/bin/python3", os.path.join(HERE, "torch_ops.py"), t],
                  TORCH_ENV)]
    if args.base:
        sides.append(Side("ember-base", [os.path.join(args.base, "bench", "ember_ops"), t]))
    results = {}
    for r in range(args.rounds):
        for case in PLAIN + PROFILED:
            for s in sides:
                if s.name == "ember-base" and case in PROFILED:
                    continue
                results.setdefault((s.name, case), []).append(s.run(case))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    for s in sides:
        s.close()
    med = {k: statistics.median(v) for k, v in results.items()}
    print(f"threads {args.threads}, {args.rounds} rounds, medians (us per call)")
    names = [s.name for s in sides]
    print(f"{'case':28}" + "".join(f"{n:>14}" for n in names))
    for case in PLAIN + PROFILED:
        print(f"{case:28}" + "".join(
            f"{med[(n, case)] * 1e6:14.3f}" if (n, case) in med else f"{'-':>14}" for n in names))
    for case in PROFILED:
        cost = {n: (med[(n, case)] - med[(n, 'add_16elem')]) * 1e6 for n in ("ember", "pytorch")}
        print(f"profiler cost per op ({case}): ember {cost['ember']:.3f} us, "
              f"pytorch {cost['pytorch']:.3f} us")
    if args.base:
        for case in PLAIN:
            print(f"{case}: this build / base = {med[('ember', case)] / med[('ember-base', case)]:.3f}")


if __name__ == "__main__":
    main()
