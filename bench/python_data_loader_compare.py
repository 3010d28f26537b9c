#!/usr/bin/python3
"""DataLoader throughput, ember against PyTorch 1.13, on the same dataset and machine.

    /usr/bin/python3 bench/python_data_loader_compare.py --build build [--workers 2] [--samples 20000]
                     [--rounds 3]

The dataset 'decodes' every sample in Python: a 3x32x32 uint8 image from its bytes, scaled to
float32 with NumPy, made a tensor with torch.tensor(array), plus an int label; batch_size 64,
default_collate. Each round runs PyTorch and ember one after the other, each in a fresh
interpreter (ember through PYTHONPATH=<build>/python, never both in one process; PyTorch in its best
configuration, shared/BENCHMARKING.md); the first 5 batches of a run are warm-up. Prints the CPU,
samples/s per round and the median.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from compare import TORCH_ENV  # noqa: E402

CHILD = r"""
import sys, time, json
import numpy as np
if sys.argv[1] == "ember":
    import ember as torch
    from ember.utils.data import DataLoader, Dataset
else:
    import torch
    from torch.utils.data import DataLoader, Dataset

RAW = [np.random.RandomState(i).randint(0, 256, 3 * 32 * 32, dtype=np.uint8).tobytes() for i in range(1024)]

class Decoded(Dataset):
    def __init__(self, n):
        self.n = n
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        a = np.frombuffer(RAW[i % 1024], dtype=np.uint8).reshape(3, 32, 32).astype(np.float32) / 255.0
        return torch.tensor(a), i % 10

workers, n, batch = int(sys.argv[2]), int(sys.argv[3]), 64
loader = DataLoader(Decoded(n), batch_size=batch, num_workers=workers, shuffle=True)
count, t0, checksum = 0, None, 0.0
for k, (x, y) in enumerate(loader):
    if k == 5:
        t0, count = time.perf_counter(), 0
    count += x.shape[0]
    checksum += float(x[0, 0, 0, 0]) + int(y[0])
dt = time.perf_counter() - t0
print(json.dumps({"samples_per_s": count / dt, "samples": count, "seconds": dt}))
"""


def run(which, workers, samples, build):
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    if which == "ember":
        env["PYTHONPATH"] = os.path.join(os.path.abspath(build), "python")
    else:
        env.pop("PYTHONPATH", None)
        env.update(TORCH_ENV)
    r = subprocess.run([sys.executable, "-c", CHILD, which, str(workers), str(samples)], env=env,
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise SystemExit("%s failed:\n%s" % (which, r.stderr))
    return json.loads(r.stdout.strip().splitlines()[-1])["samples_per_s"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build", help="build dir whose python/ holds the ember package")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--samples", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    subprocess.run([os.path.join(HERE, "cpu_info.sh")], check=False)
    results = {"torch": [], "ember": []}
    for r in range(args.rounds):
        for which in ("torch", "ember"):
            results[which].append(run(which, args.workers, args.samples, args.build))
            print("round %d %-5s %8.0f samples/s" % (r, which, results[which][-1]), flush=True)
    t, e = statistics.median(results["torch"]), statistics.median(results["ember"])
    print("median: PyTorch 1.13 %.0f samples/s, ember %.0f samples/s (ember/PyTorch %.2f), "
          "num_workers=%d, %d cores" % (t, e, e / t, args.workers, os.cpu_count()))


if __name__ == "__main__":
    main()
