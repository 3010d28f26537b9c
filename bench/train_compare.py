#!/usr/bin/env python3
"""Trains the reference CNN on Fashion-MNIST with ember (examples/fashion_mnist), PyTorch 1.13
(bench/train_torch.py), the same PyTorch script through ember-python (ember_py: ember's Python
package, when built) and LibTorch (bench/train_libtorch.cpp, when built; also built unchanged on ember's LibTorch
layer as train_libtorch_on_ember) — same model, data,
hyper-parameters and thread count — in rounds (A B C A B C ...), and prints per side: training
images/s over the whole run (data loading included, validation excluded), seconds of training
until the test accuracy first reaches 90% (at epoch granularity), the final accuracy and the
peak RSS. Ratios are ember / the faster of PyTorch and LibTorch. PyTorch runs in its best
configuration here (shared/BENCHMARKING.md); every side has OPENBLAS_CORETYPE/L2_SIZE unset.
With --seeds N it measures accuracy instead: each side trains with seeds 0..N-1 and the final
test accuracies' spread is printed (how often each reaches 0.92). --amp bf16 trains ember with
--amp bf16 and PyTorch under CPU bfloat16 autocast (the LibTorch twin has no autocast and is left
out then), and ember also trains in float32 for the ratio of its bf16 to its float32.
--limit / --val-limit train and test on the first N images (the LibTorch twin, which has no
limit, is left out then): PyTorch 1.13's CPU bfloat16 path is slow on CPUs without AVX512-BF16.

  bench/train_compare.py --build build [--epochs 2] [--rounds 1] [--threads 2] [--seeds N]
                         [--limit N] [--val-limit N]
                         [--amp none|bf16] [--isa native|avx2]
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TRAIN_IMAGES = 60000  # per epoch; --limit changes it
sys.path.insert(0, HERE)
from compare import TORCH_ENV, isa_env  # noqa: E402
ISA_ENV = {}  # --isa: every side's environment (compare.isa_env)


def run(argv, extra_env=None):
    """Runs argv; returns (stdout, peak RSS in MiB) of that process alone."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    env.update(extra_env or {})
    env.update(ISA_ENV)
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit(f"{argv[0]} failed with status {proc.returncode}")
    return out, usage.ru_maxrss / 1024.0


def twin_side(argv, env=TORCH_ENV):
    """A twin printing one JSON line per epoch: (epochs, peak RSS)."""
    out, rss = run(argv, env)
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")], rss


def ember_side(build, epochs, threads, seed, amp, limits):
    with tempfile.TemporaryDirectory() as d:
        _, rss = run([os.path.join(build, "examples", "ember-train-fashion-mnist"),
                      "--epochs", str(epochs), "--threads", str(threads), "--seed", str(seed),
                      "--amp", amp, "--output-dir", d] + limits)
        with open(os.path.join(d, "metrics.csv")) as f:
            rows = list(csv.DictReader(f))
    return [{"train_seconds": TRAIN_IMAGES / float(r["train_images_per_second"]),
             "accuracy": float(r["val_accuracy"])} for r in rows], rss


def summary(epochs):
    seconds = [e["train_seconds"] for e in epochs]
    to90, total = None, 0.0
    for e in epochs:
        total += e["train_seconds"]
        if to90 is None and e["accuracy"] >= 0.90:
            to90 = total
    return {"img_s": TRAIN_IMAGES * len(epochs) / sum(seconds), "to90": to90,
            "acc": epochs[-1]["accuracy"]}


def accuracy_over_seeds(sides, seeds):
    """Final test accuracy per side and seed; the target (0.92) is a single run's bar, so the
    spread says how much of it is the recipe and how much the seed."""
    acc = {name: [] for name in sides}
    for seed in range(seeds):
        for name, side in sides.items():
            acc[name].append(side(seed)[0][-1]["accuracy"])
            print(f"seed {seed}: {name} {acc[name][-1]:.4f}", file=sys.stderr)
    print(f"{'side':10} {'mean':>7} {'stdev':>7} {'min':>7} {'max':>7} {'>= 0.92':>8}  per seed")
    for name, a in acc.items():
        stdev = statistics.stdev(a) if len(a) > 1 else 0.0
        passed = sum(x >= 0.92 for x in a)
        print(f"{name:10} {statistics.mean(a):7.4f} {stdev:7.4f} {min(a):7.4f} {max(a):7.4f} "
              f"{passed:>4}/{len(a):<3}  {' '.join(f'{x:.4f}' for x in a)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build", default="build")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seeds", type=int, default=0,
                    help="accuracy mode: train every side with seeds 0..N-1")
    ap.add_argument("--amp", choices=["none", "bf16"], default="none")
    ap.add_argument("--isa", choices=["native", "avx2"], default="native",
                    help="avx2: every side at its AVX2 code paths (compare.isa_env)")
    ap.add_argument("--limit", type=int, default=0,
                    help="train on the first N images per epoch (0: all 60,000)")
    ap.add_argument("--val-limit", type=int, default=0,
                    help="test on the first N images (0: all 10,000)")
    args = ap.parse_args()
    global TRAIN_IMAGES
    TRAIN_IMAGES = args.limit or 60000
    ISA_ENV.update(isa_env(args.isa))
    limits = ["--limit", str(args.limit), "--val-limit", str(args.val_limit)]
    e, t = str(args.epochs), str(args.threads)
    sides = {
        "ember": lambda seed: ember_side(args.build, args.epochs, args.threads, seed, args.amp,
                                         limits),
        "pytorch": lambda seed: twin_side(["/usr/bin/python3", os.path.join(HERE, "train_torch.py"),
                                           "--epochs", e, "--threads", t, "--seed", str(seed),
                                           "--amp", args.amp] + limits),
    }
    if args.amp != "none":
        # ember's own float32 beside its bf16: the ratio on CPUs with AVX512-BF16/AMX.
        sides["ember_f32"] = lambda seed: ember_side(args.build, args.epochs, args.threads, seed,
                                                     "none", limits)
    # The PyTorch twin itself, unchanged, through ember's Python package (ember-python), at
    # ember's defaults (no PyTorch tuning in its environment).
    ember_python = os.path.join(args.build, "python", "ember-python")
    if os.path.exists(ember_python):
        sides["ember_py"] = lambda seed: twin_side(
            [ember_python, os.path.join(HERE, "train_torch.py"), "--epochs", e, "--threads", t,
             "--seed", str(seed), "--amp", args.amp] + limits, env={})
    libtorch = os.path.join(args.build, "bench", "train_libtorch")
    if os.path.exists(libtorch) and args.amp == "none" and not args.limit and not args.val_limit:
        sides["libtorch"] = lambda seed: twin_side(
            [libtorch, e, t, "/usr/share/datasets/fashion-mnist", str(seed)])
    # The same LibTorch source, unchanged, built on ember's LibTorch layer (include/ember/libtorch).
    on_ember = os.path.join(args.build, "bench", "train_libtorch_on_ember")
    if os.path.exists(on_ember) and args.amp == "none" and not args.limit and not args.val_limit:
        sides["libtorch_on_ember"] = lambda seed: twin_side(
            [on_ember, e, t, "/usr/share/datasets/fashion-mnist", str(seed)])
    if args.seeds:
        return accuracy_over_seeds(sides, args.seeds)
    results = {name: [] for name in sides}
    for r in range(args.rounds):
        for name, side in sides.items():
            epochs, rss = side(0)
            results[name].append(dict(summary(epochs), rss=rss))
            print(f"round {r + 1}: {name} {results[name][-1]}", file=sys.stderr)

    def med(name, key):
        values = [x[key] for x in results[name] if x[key] is not None]
        return statistics.median(values) if values else None

    print(f"{'side':10} {'img/s':>8} {'s to 90%':>9} {'final acc':>9} {'peak RSS':>10}")
    for name in sides:
        to90 = med(name, "to90")
        print(f"{name:10} {med(name, 'img_s'):8.0f} "
              f"{(f'{to90:.1f}' if to90 else '-'):>9} {med(name, 'acc'):9.4f} "
              f"{med(name, 'rss'):7.0f} MiB")
    if "ember_f32" in sides:
        print(f"throughput ember {args.amp} / ember float32: "
              f"{med('ember', 'img_s') / med('ember_f32', 'img_s'):.2f}x")
    others = [n for n in sides if n not in ("ember", "ember_f32", "ember_py", "libtorch_on_ember")]
    best_img = max(med(n, "img_s") for n in others)
    print(f"throughput ember / best: {med('ember', 'img_s') / best_img:.2f}x (target >= 1.3)")
    if "ember_py" in sides:
        print(f"throughput ember from Python / pytorch: "
              f"{med('ember_py', 'img_s') / med('pytorch', 'img_s'):.2f}x (target >= 1.3); "
              f"/ ember's C++ program: {med('ember_py', 'img_s') / med('ember', 'img_s'):.2f}x "
              "(target >= 0.9)")
    if "libtorch_on_ember" in sides and "libtorch" in sides:
        print(f"throughput of the LibTorch program on ember / on LibTorch: "
              f"{med('libtorch_on_ember', 'img_s') / med('libtorch', 'img_s'):.2f}x (target >= 1)")
    lt = "libtorch" if "libtorch" in sides else "pytorch"
    if med("ember", "to90") and med(lt, "to90"):
        print(f"seconds to 90% ember / {lt}: {med('ember', 'to90') / med(lt, 'to90'):.2f} "
              "(target <= 0.75)")
    print(f"peak RSS ember / pytorch: {med('ember', 'rss') / med('pytorch', 'rss'):.2f} "
          "(target <= 1)")


if __name__ == "__main__":
    main()
