"""Writes lr_scheduler.json: PyTorch 1.13's LR sequences (run with Debian's /usr/bin/python3).
Every case builds SGD (momentum 0.9) or Adam over two parameter groups with lr 0.1 and 0.05,
attaches the scheduler(s), and records get_last_lr() (and the groups' momentum or beta1) after
construction and after each step. tests/optim/lr_scheduler_test.cpp rebuilds each case by name."""
import json
import math
import os

import torch
from torch.optim import lr_scheduler as S

STEPS = 300


def optimizer(kind="sgd"):
    a, b = torch.zeros(2, requires_grad=True), torch.zeros(3, requires_grad=True)
    groups = [{"params": [a], "lr": 0.1}, {"params": [b], "lr": 0.05}]
    if kind == "adam":
        return torch.optim.Adam(groups)
    return torch.optim.SGD(groups, lr=0.1, momentum=0.9)


def momentum(opt):
    return [g["betas"][0] if "betas" in g else g["momentum"] for g in opt.param_groups]


def warmup_cosine(warmup, total):
    def f(step):
        if step < warmup:
            return float(step) / float(max(1, warmup))
        progress = float(step - warmup) / float(max(1, total - warmup))
        return max(0.0, 0.5 * (1.0 + math.cos(math.pi * 0.5 * 2.0 * progress)))
    return f


def warmup_linear(warmup, total):
    def f(step):
        if step < warmup:
            return float(step) / float(max(1, warmup))
        return max(0.0, float(total - step) / float(max(1, total - warmup)))
    return f


def plateau_metric(i):  # improves, then plateaus with small wiggles, then improves again
    if i < 40:
        return 1.0 / (1 + i)
    if i < 200:
        return 0.025 + 0.0005 * math.sin(i)
    return 0.025 - 0.0001 * (i - 200)


CASES = {
    "step": lambda o: S.StepLR(o, step_size=30, gamma=0.1),
    "multistep": lambda o: S.MultiStepLR(o, milestones=[30, 80, 80, 200], gamma=0.5),
    "constant": lambda o: S.ConstantLR(o, factor=0.5, total_iters=40),
    "linear": lambda o: S.LinearLR(o, start_factor=0.1, end_factor=1.0, total_iters=50),
    "linear_down": lambda o: S.LinearLR(o, start_factor=1.0, end_factor=0.2, total_iters=120),
    "exponential": lambda o: S.ExponentialLR(o, gamma=0.99),
    "polynomial": lambda o: S.PolynomialLR(o, total_iters=150, power=2.0),
    "cosine": lambda o: S.CosineAnnealingLR(o, T_max=100, eta_min=1e-4),
    "warm_restarts": lambda o: S.CosineAnnealingWarmRestarts(o, T_0=10, T_mult=2, eta_min=1e-5),
    "warm_restarts_mult1": lambda o: S.CosineAnnealingWarmRestarts(o, T_0=25),
    "cyclic_triangular2": lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=20,
                                               mode="triangular2"),
    "cyclic_exp_range": lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=20,
                                             step_size_down=30, mode="exp_range", gamma=0.995),
    "one_cycle": lambda o: S.OneCycleLR(o, max_lr=0.1, total_steps=STEPS),
    "one_cycle_adam_linear_3phase": ("adam", lambda o: S.OneCycleLR(
        o, max_lr=[0.1, 0.01], total_steps=STEPS, anneal_strategy="linear", three_phase=True)),
    "lambda": lambda o: S.LambdaLR(o, [lambda e: 0.95 ** e, lambda e: 1.0 / (1 + e)]),
    "multiplicative": lambda o: S.MultiplicativeLR(o, lambda e: 0.99),
    "warmup_cosine": lambda o: S.LambdaLR(o, warmup_cosine(30, STEPS)),
    "warmup_linear": lambda o: S.LambdaLR(o, warmup_linear(30, STEPS)),
    "sequential": lambda o: S.SequentialLR(o, [S.LinearLR(o, start_factor=0.1, total_iters=50),
                                               S.CosineAnnealingLR(o, T_max=250)], milestones=[50]),
    "sequential_3": lambda o: S.SequentialLR(o, [S.ConstantLR(o, factor=0.5, total_iters=20),
                                                 S.ExponentialLR(o, gamma=0.98),
                                                 S.StepLR(o, step_size=10, gamma=0.5)],
                                             milestones=[20, 100]),
    "chained": lambda o: S.ChainedScheduler([S.ConstantLR(o, factor=0.1, total_iters=20),
                                             S.ExponentialLR(o, gamma=0.99)]),
}


def run_case(name, spec):
    kind, make = spec if isinstance(spec, tuple) else ("sgd", spec)
    opt = optimizer(kind)
    sched = make(opt)
    steps = STEPS - 1 if name.startswith("one_cycle") else STEPS
    lrs, moms = [list(sched.get_last_lr())], [momentum(opt)]
    for _ in range(steps):
        opt.step()
        sched.step()
        lrs.append(list(sched.get_last_lr()))
        moms.append(momentum(opt))
    return {"name": name, "optimizer": kind, "lrs": lrs, "momentum": moms}


def run_fractional():
    # CosineAnnealingWarmRestarts stepped with fractional epochs: epoch + batch / batches.
    opt = optimizer()
    sched = S.CosineAnnealingWarmRestarts(opt, T_0=5, T_mult=2, eta_min=1e-4)
    lrs = [list(sched.get_last_lr())]
    epochs = []
    for epoch in range(30):
        for batch in range(10):
            e = epoch + batch / 10
            sched.step(e)
            epochs.append(e)
            lrs.append(list(sched.get_last_lr()))
    return {"name": "warm_restarts_fractional", "epochs": epochs, "lrs": lrs}


def run_plateau(name, **kw):
    opt = optimizer()
    sched = S.ReduceLROnPlateau(opt, **kw)
    lrs, metrics = [], []
    for i in range(STEPS):
        m = plateau_metric(i) if kw.get("mode", "min") == "min" else -plateau_metric(i)
        sched.step(m)
        metrics.append(m)
        lrs.append([g["lr"] for g in opt.param_groups])
    return {"name": name, "metrics": metrics, "lrs": lrs}


def main():
    out = {"cases": [run_case(n, s) for n, s in CASES.items()]}
    out["fractional"] = run_fractional()
    out["plateau"] = [
        run_plateau("plateau_min_rel", mode="min", factor=0.5, patience=5, threshold=1e-3,
                    cooldown=3, min_lr=[1e-3, 5e-4]),
        run_plateau("plateau_max_abs", mode="max", factor=0.3, patience=8, threshold=1e-4,
                    threshold_mode="abs", cooldown=0, min_lr=1e-4),
        run_plateau("plateau_eps", mode="min", factor=0.9, patience=2, min_lr=0.049, eps=1e-3),
    ]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lr_scheduler.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
