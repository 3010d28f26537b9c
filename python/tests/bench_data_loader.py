#!/usr/bin/python3
"""DataLoader throughput, ember against PyTorch 1.13, on the same dataset and machine.

    /usr/bin/python3 python/tests/bench_data_loader.py [--workers 2] [--samples 20000] [--rounds 3]

The dataset 'decodes' every sample in Python: a 3x32x32 uint8 image from its bytes, scaled to
float32 with NumPy, made a tensor with torch.tensor(array), plus an int label; batch_size 64,
default_collate. Each round runs PyTorch and ember one after the other, each in a fresh
interpreter (ember through PYTHONPATH=<repo>/python, never both in one process); the first 5
batches of a run are warm-up. Prints samples/s per round and the median.
Not a pytest file (not collected): run by hand.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)

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


def run(which, workers, samples):
    env = dict(os.environ)
    if which == "ember":
        env["PYTHONPATH"] = PYTHON_DIR
    else:
        env.pop("PYTHONPATH", None)
    r = subprocess.run([sys.executable, "-c", CHILD, which, str(workers), str(samples)], env=env,
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise SystemExit("%s failed:\n%s" % (which, r.stderr))
    return json.loads(r.stdout.strip().splitlines()[-1])["samples_per_s"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--samples", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    results = {"torch": [], "ember": []}
    for r in range(args.rounds):
        for which in ("torch", "ember"):
            results[which].append(run(which, args.workers, args.samples))
            print("round %d %-5s %8.0f samples/s" % (r, which, results[which][-1]), flush=True)
    t, e = statistics.median(results["torch"]), statistics.median(results["ember"])
    print("median: PyTorch 1.13 %.0f samples/s, ember %.0f samples/s (ember/PyTorch %.2f), "
          "num_workers=%d, %d cores" % (t, e, e / t, args.workers, os.cpu_count()))


if __name__ == "__main__":
    main()
