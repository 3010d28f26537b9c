#!/usr/bin/env python3
"""Side-by-side benchmark of ember against PyTorch 1.13 (Python) and LibTorch (C++).

Each side is a long-lived process reading case names on stdin (bench/ember_ops.cpp,
bench/torch_ops.py, bench/libtorch_ops.cpp); rounds run every case on every side in turn
(A B C A B C ...), so drift on this shared machine hits all sides alike. Prints one table of
medians over rounds and the ratio ember / best PyTorch (time; < 1 means ember is faster).

PyTorch runs in its best configuration here (shared/BENCHMARKING.md): OpenMP OpenBLAS, glibc
malloc tuned against page faults, the same thread count. Both sides unset OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE.

  bench/compare.py --build build-bench [--rounds 5] [--threads 2] [--cases add_16M,sum_4096x4096]
                   [--baseline /tmp/ember_ops.before] [--isa avx2]

--baseline runs another ember_ops binary (a copy kept from before a change) as one more side of
the same interleaved rounds, and adds the column ember/before.

--isa avx2 runs every side at its AVX2 code paths on a machine with AVX-512 (see isa_env).
"""
import argparse
import math
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH_ENV = {
    "LD_LIBRARY_PATH": "/usr/lib/x86_64-linux-gnu/openblas-openmp",
    "GLIBC_TUNABLES": "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967296:"
                      "glibc.malloc.top_pad=268435456",
}


def isa_env(isa):
    """The environment that holds every side to `isa`'s code paths: "native" (each side's best
    for this CPU) or "avx2", what an AVX2-only CPU (Zen 3, Haswell) runs, on a machine with
    AVX-512: ember's CPU level, ATen's kernels, oneDNN's JIT and OpenBLAS's core. The memory
    system and the cores stay this machine's, so it compares code paths, not CPUs."""
    if isa == "native":
        return {}
    return {"EMBER_CPU_CAPABILITY": "avx2", "ATEN_CPU_CAPABILITY": "avx2",
            "DNNL_MAX_CPU_ISA": "AVX2", "OPENBLAS_CORETYPE": "Haswell"}


def case_table():
    """(name, unit, work) from cases.h, so the table stays in one place."""
    import re
    text = open(os.path.join(HERE, "cases.h")).read()
    rows = re.findall(r'\{"(\w+)", "([^"]*)", ([^}]+)\}', text)
    def work(expr):
        return eval(expr.replace("<<", "<<"), {})  # arithmetic on literals only
    return [(n, u, work(w)) for n, u, w in rows]


class Side:
    def __init__(self, name, argv, extra_env=None):
        env = {k: v for k, v in os.environ.items()
               if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
        env.update(extra_env or {})
        self.name = name
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, env=env)

    def run(self, case):
        self.proc.stdin.write(case + "\n")
        self.proc.stdin.flush()
        name, value = self.proc.stdout.readline().split()
        assert name == case, (name, case)
        return float(value)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build", default="build-bench", help="cmake build dir with -DEMBER_BUILD_BENCH=ON")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cases", default="", help="comma-separated subset of cases")
    ap.add_argument("--baseline", default="", help="an earlier ember_ops binary to compare with")
    ap.add_argument("--isa", choices=["native", "avx2"], default="native")
    args = ap.parse_args()
    isa = isa_env(args.isa)

    table = case_table()
    if args.cases:
        wanted = set(args.cases.split(","))
        table = [row for row in table if row[0] in wanted]
    t = str(args.threads)
    torch_env = {**TORCH_ENV, **isa}
    sides = [Side("ember", [os.path.join(args.build, "bench", "ember_ops"), t], isa)]
    sides.append(Side("pytorch", ["/usr/bin/python3", os.path.join(HERE, "torch_ops.py"), t], torch_env))
    libtorch = os.path.join(args.build, "bench", "libtorch_ops")
    if os.path.exists(libtorch):
        sides.append(Side("libtorch", [libtorch, t], torch_env))
    if args.baseline:
        sides.append(Side("before", [args.baseline, t], isa))
    mine = ("ember", "before")

    results = {(s.name, n): [] for s in sides for n, _, _ in table}
    for r in range(args.rounds):
        for name, _, _ in table:
            for s in sides:
                results[(s.name, name)].append(s.run(name))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    for s in sides:
        s.close()

    def fmt_time(x):
        if math.isnan(x):
            return "-"
        return f"{x * 1e6:.3f} us" if x < 1e-3 else f"{x * 1e3:.3f} ms"

    header = f"{'case':26} " + " ".join(f"{s.name:>12}" for s in sides) + f" {'throughput':>16} {'ember/best':>11}"
    if args.baseline:
        header += f" {'ember/before':>13}"
    print(header)
    print("-" * len(header))
    for name, unit, work in table:
        med = {s.name: statistics.median(results[(s.name, name)]) for s in sides}
        others = [v for k, v in med.items() if k not in mine and not math.isnan(v)]
        best = min(others) if others else float("nan")
        ratio = med["ember"] / best if others and not math.isnan(med["ember"]) else float("nan")
        thr = ""
        if unit and not math.isnan(med["ember"]):
            scale = 1e9
            thr = f"{work / med['ember'] / scale:.1f} {unit}"
        line = (f"{name:26} " + " ".join(f"{fmt_time(med[s.name]):>12}" for s in sides)
                + f" {thr:>16} {ratio:>11.2f}")
        if args.baseline:
            line += f" {med['ember'] / med['before']:>13.2f}"
        print(line)


if __name__ == "__main__":
    main()
