#!/usr/bin/python3
"""bench/conv_bench's convolution cases (the reference CNN's, batch 128) in float32 and bfloat16,
ember against PyTorch 1.13 side by side: in rounds (ember, PyTorch, ember, ...) on the same thread
count, the median time per case over the rounds, and the ratios that issue 42 asks about:
ember bfloat16 / ember float32 (speed-up, > 1 = bfloat16 faster) and time ratios ember / PyTorch
per dtype (< 1 = ember faster). The CPU's model and flags are printed first (bench/cpu_info.sh);
OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are unset for both sides.

  /usr/bin/python3 bench/conv_compare.py --build build [--rounds 3] [--threads 2]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from py_timing import median_seconds  # noqa: E402

# (name in conv_bench, cin, cout, hw, backward)
CASES = [("BM_conv2d/1/32/28", 1, 32, 28, False), ("BM_conv2d/32/64/14", 32, 64, 14, False),
         ("BM_conv2d_backward/32/64/14", 32, 64, 14, True)]
DTYPES = {0: ("float32", torch.float32), 1: ("bfloat16", torch.bfloat16)}


def ember_round(build, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        env.pop(var, None)
    out = subprocess.run([os.path.join(build, "bench", "conv_bench"), "--benchmark_filter=BM_conv2d",
                          "--benchmark_format=json", "--benchmark_min_time=0.5"],
                         env=env, check=True, capture_output=True, text=True).stdout
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}  # to milliseconds
    return {b["name"].removesuffix("/real_time"): b["real_time"] * scale[b["time_unit"]]
            for b in json.loads(out)["benchmarks"]}


def torch_case(cin, cout, hw, backward, dtype):
    x = torch.randn(128, cin, hw, hw).to(dtype)
    w, b = torch.randn(cout, cin, 3, 3).to(dtype), torch.randn(cout).to(dtype)
    if not backward:
        return median_seconds(lambda: F.conv2d(x, w, b, padding=1), 15)
    g = torch.randn(128, cout, hw, hw).to(dtype)
    return median_seconds(lambda: torch.ops.aten.convolution_backward(
        g, x, w, [cout], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True]), 15)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--build", default="build")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        os.environ.pop(var, None)
    torch.set_num_threads(a.threads)
    subprocess.run([os.path.join(os.path.dirname(os.path.abspath(__file__)), "cpu_info.sh")])
    ember, ref = {}, {}
    for _ in range(a.rounds):
        for name, t in ember_round(a.build, a.threads).items():
            ember.setdefault(name, []).append(t)
        for name, cin, cout, hw, backward in CASES:
            for code, (_, dtype) in DTYPES.items():
                ref.setdefault(f"{name}/{code}", []).append(
                    torch_case(cin, cout, hw, backward, dtype) * 1e3)
    med = lambda d, k: statistics.median(d[k])  # noqa: E731
    print(f"ms per call, median of {a.rounds} rounds, {a.threads} threads, batch 128")
    print(f"{'case':30} {'ember f32':>9} {'ember bf16':>10} {'torch f32':>9} {'torch bf16':>10}"
          f" {'ember bf16/f32 speed-up':>23} {'ember/torch f32':>15} {'ember/torch bf16':>16}")
    for name, *_ in CASES:
        ef, eb = med(ember, f"{name}/0"), med(ember, f"{name}/1")
        tf, tb = med(ref, f"{name}/0"), med(ref, f"{name}/1")
        print(f"{name:30} {ef:9.2f} {eb:10.2f} {tf:9.2f} {tb:10.2f} {ef / eb:23.2f}"
              f" {ef / tf:15.2f} {eb / tb:16.2f}")


if __name__ == "__main__":
    main()
