"""Writes optim.json: PyTorch 1.13's optimizer trajectories and state dicts (run with Debian's
/usr/bin/python3). Each case optimizes three parameters in two groups — w (4, 3) in group 0,
b (5,) and a frozen z (3,) that never gets a gradient in group 1 — on the gradient
g = a * (p - c) + 0.1 * p^3, for 30 steps, recording every parameter after every step and the
final state_dict() with each value's Python type. tests/optim/optimizer_test.cpp replays them."""
import json
import math
import os

import torch

STEPS = 30
SHAPES = {"w": (4, 3), "b": (5,), "z": (3,)}


def values(n, f):
    return [f(i) for i in range(n)]


def problem(dtype):
    ps, coef = {}, {}
    for k, (name, shape) in enumerate(SHAPES.items()):
        n = math.prod(shape)
        init = values(n, lambda i: 0.5 * math.sin(i + 1 + 7 * k))
        a = values(n, lambda i: 0.5 + 0.25 * ((i + k) % 3))
        c = values(n, lambda i: 0.3 * math.cos(i + 3 * k))
        ps[name] = torch.tensor(init, dtype=dtype).reshape(shape).requires_grad_()
        coef[name] = (torch.tensor(a, dtype=dtype).reshape(shape),
                      torch.tensor(c, dtype=dtype).reshape(shape))
        coef[name + "_raw"] = {"init": init, "a": a, "c": c}
    return ps, coef


def set_grads(ps, coef):
    with torch.no_grad():
        for name in ("w", "b"):  # z is frozen: no grad, so every optimizer skips it
            p = ps[name]
            a, c = coef[name]
            p.grad = a * (p - c) + 0.1 * p * p * p


def enc(v):
    if v is None:
        return {"t": "None"}
    if isinstance(v, str):
        return {"t": "str", "v": v}
    if isinstance(v, bool):
        return {"t": "bool", "v": v}
    if isinstance(v, int):
        return {"t": "int", "v": v}
    if isinstance(v, float):
        return {"t": "float", "v": v}
    if isinstance(v, tuple):
        return {"t": "tuple", "v": [enc(x) for x in v]}
    if isinstance(v, list):
        return {"t": "list", "v": [enc(x) for x in v]}
    if isinstance(v, dict):
        return {"t": "dict", "v": [[enc(k), enc(x)] for k, x in v.items()]}
    if torch.is_tensor(v):
        return {"t": "tensor", "dtype": str(v.dtype).replace("torch.", ""),
                "shape": list(v.shape), "v": v.detach().double().reshape(-1).tolist()}
    raise TypeError(type(v))


CASES = [
    ("sgd_momentum", "SGD", {"momentum": 0.9, "dampening": 0.1},
     [{"lr": 0.1}, {"lr": 0.05, "weight_decay": 0.01}]),
    ("sgd_nesterov", "SGD", {"lr": 0.05, "momentum": 0.9, "weight_decay": 0.01, "nesterov": True},
     [{}, {"lr": 0.02}]),
    ("sgd_plain_maximize", "SGD", {"lr": 0.05}, [{}, {"maximize": True}]),
    ("adam", "Adam", {"lr": 0.05}, [{}, {"lr": 0.02, "weight_decay": 0.1, "amsgrad": True}]),
    ("adam_maximize", "Adam", {"lr": 0.01, "betas": (0.8, 0.99), "maximize": True}, [{}, {"eps": 1e-3}]),
    ("adamw", "AdamW", {"lr": 0.05, "weight_decay": 0.1}, [{}, {"lr": 0.02, "amsgrad": True}]),
    ("rmsprop", "RMSprop", {"lr": 0.01}, [{}, {"momentum": 0.9, "centered": True, "weight_decay": 0.01}]),
    ("rmsprop_maximize", "RMSprop", {"lr": 0.01, "alpha": 0.9, "maximize": True}, [{}, {"momentum": 0.5}]),
    ("adagrad", "Adagrad", {"lr": 0.1, "lr_decay": 0.01},
     [{}, {"weight_decay": 0.01, "initial_accumulator_value": 0.1}]),
    ("adamax", "Adamax", {"lr": 0.05}, [{}, {"betas": (0.8, 0.99), "weight_decay": 0.01}]),
    ("nadam", "NAdam", {"lr": 0.05}, [{}, {"weight_decay": 0.01, "momentum_decay": 0.01}]),
    ("radam", "RAdam", {"lr": 0.05}, [{}, {"weight_decay": 0.01}]),
]


def run(case, dtype):
    name, cls, defaults, groups = case
    ps, coef = problem(dtype)
    param_groups = [dict(params=[ps["w"]], **groups[0]), dict(params=[ps["b"], ps["z"]], **groups[1])]
    opt = getattr(torch.optim, cls)(param_groups, **defaults)
    trajectory = []
    for _ in range(STEPS):
        set_grads(ps, coef)
        opt.step()
        trajectory.append({k: p.detach().double().reshape(-1).tolist() for k, p in ps.items()})
    return {
        "name": name, "optimizer": cls, "dtype": str(dtype).replace("torch.", ""),
        "defaults": enc(defaults), "groups": [enc(g) for g in groups],
        "trajectory": trajectory, "state_dict": enc(opt.state_dict()),
    }


def main():
    out = {"steps": STEPS, "problem": {}, "cases": []}
    _, coef = problem(torch.float64)
    for k in SHAPES:
        out["problem"][k] = dict(coef[k + "_raw"], shape=list(SHAPES[k]))
    for case in CASES:
        for dtype in (torch.float64, torch.float32):
            out["cases"].append(run(case, dtype))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "optim.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))


if __name__ == "__main__":
    main()
