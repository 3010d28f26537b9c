"""PyTorch 1.13's side of bench/optim_bench.cpp: one optimizer step over 10M float32 parameters,
median of repeated timings, for the single-tensor (foreach=False, the CPU default) and foreach
implementations. Run with Debian's /usr/bin/python3."""
import statistics
import time

import torch


def time_step(make, reps=20):
    p = torch.randn(10_000_000, requires_grad=True)
    p.grad = torch.randn(10_000_000)
    opt = make([p])
    opt.step()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        opt.step()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1e3


if __name__ == "__main__":
    print("threads", torch.get_num_threads())
    for foreach in (False, True):
        print(f"adamw foreach={foreach}: %.2f ms" % time_step(
            lambda ps: torch.optim.AdamW(ps, lr=1e-3, weight_decay=0.01, foreach=foreach)))
        print(f"adam amsgrad foreach={foreach}: %.2f ms" % time_step(
            lambda ps: torch.optim.Adam(ps, lr=1e-3, amsgrad=True, foreach=foreach)))
        print(f"sgd momentum foreach={foreach}: %.2f ms" % time_step(
            lambda ps: torch.optim.SGD(ps, lr=1e-3, momentum=0.9, foreach=foreach)))
