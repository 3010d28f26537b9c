#!/usr/bin/env python3
"""Per-op overhead from Python: ember's Python package against PyTorch 1.13 from Python, the
same code (bench/python_ops.py) on both, interleaved rounds (A B A B ...), medians and the ratio
ember / PyTorch (time; < 1 means ember is faster). With --build-bench (a build with
-DEMBER_BUILD_BENCH=ON) it adds ember's C++ time for the cases bench/ember_ops.cpp has too, and
the Python layer's cost over it.

  bench/python_compare.py --build build [--build-bench build-bench] [--rounds 5] [--threads 2]

PyTorch runs in its best configuration here (shared/BENCHMARKING.md); both sides unset
OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE. Run with Debian's /usr/bin/python3.
"""
import argparse
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compare import TORCH_ENV, Side  # noqa: E402

CASES = ["add_16elem", "add_scalar_16elem", "sum_16elem", "sum_dim_16elem", "slice_16elem",
         "index_2d", "zeros_3x4", "add_16elem_grad", "mlp8_step", "matmul_1024"]
CPP_CASES = {"add_16elem", "add_16elem_grad", "mlp8_step", "matmul_1024"}


def import_seconds(module, env, runs=7):
    """Median wall time of a fresh interpreter importing `module`, less the bare interpreter's."""
    import time

    def timed(code):
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, env=env)
            times.append(time.perf_counter() - t)
        return statistics.median(times)
    return timed("import " + module) - timed("pass")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build", default="build", help="build dir whose python/ holds the ember package")
    ap.add_argument("--build-bench", default="", help="build dir with bench/ember_ops (optional)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    subprocess.run([os.path.join(HERE, "cpu_info.sh")], check=False)
    t = str(args.threads)
    ops = os.path.join(HERE, "python_ops.py")
    sides = [Side("ember", [sys.executable, ops, "ember", t],
                  {"PYTHONPATH": os.path.join(os.path.abspath(args.build), "python")}),
             Side("pytorch", [sys.executable, ops, "torch", t], TORCH_ENV)]
    cpp = None
    if args.build_bench:
        cpp = Side("ember_cpp", [os.path.join(args.build_bench, "bench", "ember_ops"), t])
    ember_env = {**os.environ, "PYTHONPATH": os.path.join(os.path.abspath(args.build), "python")}
    torch_env = {**os.environ, **TORCH_ENV}
    print(f"import: ember {import_seconds('ember', ember_env) * 1e3:.1f} ms, "
          f"torch {import_seconds('torch', torch_env) * 1e3:.1f} ms")
    results = {}
    for r in range(args.rounds):
        for name in CASES:
            for s in sides + ([cpp] if cpp and name in CPP_CASES else []):
                results.setdefault((s.name, name), []).append(s.run(name))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    for s in sides + ([cpp] if cpp else []):
        s.close()

    def us(x):
        return f"{x * 1e6:9.3f} us" if x < 1e-3 else f"{x * 1e3:9.3f} ms"

    print(f"{'case':20} {'ember (py)':>13} {'pytorch (py)':>13} {'ember/pytorch':>14}"
          + (f" {'ember (C++)':>13} {'py layer':>10}" if cpp else ""))
    for name in CASES:
        e = statistics.median(results[("ember", name)])
        p = statistics.median(results[("pytorch", name)])
        line = f"{name:20} {us(e):>13} {us(p):>13} {e / p:>14.2f}"
        if cpp and name in CPP_CASES:
            c = statistics.median(results[("ember_cpp", name)])
            line += f" {us(c):>13} {(e - c) * 1e6:>7.3f} us"
        print(line)


if __name__ == "__main__":
    main()
