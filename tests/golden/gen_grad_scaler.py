#!/usr/bin/python3
"""Writes grad_scaler.json: PyTorch 1.13's GradScaler trajectories (run with Debian's
/usr/bin/python3). tests/amp/grad_scaler_test.cpp replays them.

Note [Running 1.13's CUDA-only GradScaler on CPU]
torch.cuda.amp.GradScaler disables itself without CUDA, asserts that its tensors are CUDA
tensors, and calls two ops that have no CPU kernel in 1.13
(_amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_). To get its step-by-step
behaviour anyway, this script loads the installed torch/cuda/amp/grad_scaler.py source with
exactly these textual changes and nothing else:
  - `amp_definitely_not_available()` reads False (so enabled=True stays enabled);
  - `<tensor>.is_cuda or` reads `True or` (the device asserts);
  - `torch.cuda.FloatTensor` in update(new_scale=tensor) reads `torch.FloatTensor`;
and provides the two ops on CPU tensors, written from their CUDA kernels
(aten/src/ATen/native/cuda/AmpKernels.cu in 1.13):
  - non_finite_check_and_unscale: every element of every grad becomes `g * inv_scale` (computed
    in float32, float64 for float64 grads; unchanged when inv_scale == 1), and found_inf is set to 1.0 when any element is
    inf or NaN; all grads are unscaled even after an inf is found;
  - update_scale: found_inf -> scale *= backoff, tracker = 0; else tracker + 1 == interval ->
    the grown scale (rounded to float32) replaces the scale only if finite, tracker = 0; else
    tracker += 1.
(ShardedGradScaler's Python CPU fallbacks in 1.13 are not used: their unscale stops at the first
non-finite grad and iterates rows, which the CUDA kernel does not.)

The problem: w (3, 4), b (3,), loss = mean((x @ w.T + b - y)^2) with x (2, 4), y (2, 3), all from
fixed formulas; GradScaler(init_scale=2**16, growth_factor=2, backoff_factor=0.5,
growth_interval=3), 10 steps of
    opt.zero_grad(); scaler.scale(loss).backward(); [inject]; scaler.step(opt); scaler.update()
where [inject] sets w.grad[0, 0] = inf at step 3 and b.grad[1] = nan at step 6 (0-based), for
each optimizer. The "clip" case calls scaler.unscale_(opt) and clip_grad_norm_(params, 0.5)
before step, recording the returned norm.
"""
import json
import math
import os
import re
import types

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = 10
INJECT = {3: ("w", (0, 0), math.inf), 6: ("b", (1,), math.nan)}
OPTIONS = {"init_scale": 2.0 ** 16, "growth_factor": 2.0, "backoff_factor": 0.5,
           "growth_interval": 3}


def load_grad_scaler_on_cpu():
    import torch.cuda.amp.grad_scaler as original
    src = open(original.__file__).read()
    src = src.replace("amp_definitely_not_available()", "False")
    src, n = re.subn(r"[A-Za-z_.]+\.is_cuda or", "True or", src)
    assert n >= 3, n
    src = src.replace("torch.cuda.FloatTensor", "torch.FloatTensor")
    module = types.ModuleType("grad_scaler_on_cpu")
    module.__package__ = "torch.cuda.amp"
    exec(compile(src, original.__file__, "exec"), module.__dict__)
    return module.GradScaler


def non_finite_check_and_unscale(grads, found_inf, inv_scale):
    inv = inv_scale.item()
    for g in grads:
        if not torch.isfinite(g).all():
            found_inf.fill_(1.0)
        if inv != 1.0:  # in the op math type: float32, or float64 for float64 grads
            opmath = torch.float64 if g.dtype == torch.float64 else torch.float32
            g.copy_((g.to(opmath) * torch.tensor(inv, dtype=opmath)).to(g.dtype))


def update_scale(scale, tracker, found_inf, growth, backoff, interval):
    if found_inf.item():
        scale.copy_(scale.double() * backoff)
        tracker.fill_(0)
    else:
        successful = tracker.item() + 1
        if successful == interval:
            grown = torch.tensor(scale.item() * growth, dtype=torch.float32)
            if torch.isfinite(grown):
                scale.fill_(grown.item())
            tracker.fill_(0)
        else:
            tracker.fill_(successful)
    return scale


torch._amp_foreach_non_finite_check_and_unscale_ = non_finite_check_and_unscale
torch._amp_update_scale_ = update_scale
GradScaler = load_grad_scaler_on_cpu()


def problem():
    w = torch.tensor([0.3 * math.sin(i + 1) for i in range(12)]).reshape(3, 4).requires_grad_()
    b = torch.tensor([0.2 * math.cos(i + 2) for i in range(3)]).requires_grad_()
    x = torch.tensor([math.sin(0.7 * i) for i in range(8)]).reshape(2, 4)
    y = torch.tensor([math.cos(0.3 * i) for i in range(6)]).reshape(2, 3)
    return {"w": w, "b": b}, x, y


OPTIMIZERS = {
    "sgd": lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9),
    "adam": lambda ps: torch.optim.Adam(ps, lr=0.01),
    "adamw": lambda ps: torch.optim.AdamW(ps, lr=0.01),
    "adamax": lambda ps: torch.optim.Adamax(ps, lr=0.01),
    "nadam": lambda ps: torch.optim.NAdam(ps, lr=0.01),
    "radam": lambda ps: torch.optim.RAdam(ps, lr=0.01),
    "rmsprop": lambda ps: torch.optim.RMSprop(ps, lr=0.01),
    "adagrad": lambda ps: torch.optim.Adagrad(ps, lr=0.1),
}


def num(v):
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return v


def flat(t):
    return [num(v) for v in t.detach().reshape(-1).tolist()]


def trajectory(make_opt, clip):
    ps, x, y = problem()
    opt = make_opt([ps["w"], ps["b"]])
    scaler = GradScaler(**OPTIONS)
    steps = []
    for i in range(STEPS):
        opt.zero_grad()
        loss = ((x @ ps["w"].t() + ps["b"] - y) ** 2).mean()
        scale_before = scaler.get_scale()
        scaled = scaler.scale(loss)
        scaled.backward()
        if i in INJECT:
            name, index, value = INJECT[i]
            with torch.no_grad():
                ps[name].grad[index] = value
        row = {"loss": loss.item(), "scale_before": scale_before, "scaled_loss": scaled.item(),
               "scaled_shape": list(scaled.shape)}
        before = {k: p.detach().clone() for k, p in ps.items()}
        if clip:
            scaler.unscale_(opt)
            row["clip_norm"] = num(torch.nn.utils.clip_grad_norm_([ps["w"], ps["b"]], 0.5).item())
        scaler.step(opt)
        row["stepped"] = not all(torch.equal(before[k], p.detach()) for k, p in ps.items())
        row["w_grad"] = flat(ps["w"].grad)
        row["b_grad"] = flat(ps["b"].grad)
        scaler.update()
        row["scale_after"] = scaler.get_scale()
        row["tracker_after"] = scaler._get_growth_tracker()
        row["w"] = flat(ps["w"])
        row["b"] = flat(ps["b"])
        steps.append(row)
    return {"steps": steps, "state_dict": scaler.state_dict()}


def errors():
    """PyTorch's messages for misuse, from the real source."""
    out = {}
    ps, x, y = problem()
    opt = torch.optim.SGD([ps["w"], ps["b"]], lr=0.1)
    scaler = GradScaler(**OPTIONS)

    def message(fn):
        try:
            fn()
        except (RuntimeError, AssertionError, ValueError) as e:
            return str(e)
        return None

    out["unscale_before_scale"] = message(lambda: scaler.unscale_(opt))
    out["update_before_scale"] = message(lambda: scaler.update())
    scaler.scale(((x @ ps["w"].t() + ps["b"] - y) ** 2).mean()).backward()
    out["update_without_inf_checks"] = message(lambda: scaler.update())
    scaler.unscale_(opt)
    out["unscale_twice"] = message(lambda: scaler.unscale_(opt))
    scaler.step(opt)
    out["unscale_after_step"] = message(lambda: scaler.unscale_(opt))
    out["step_twice"] = message(lambda: scaler.step(opt))
    scaler.update()
    no_grad_opt = torch.optim.SGD([torch.zeros(2, requires_grad=True)], lr=0.1)
    out["step_without_grads"] = message(lambda: scaler.step(no_grad_opt))
    out["load_empty"] = message(lambda: GradScaler().load_state_dict({}))
    out["growth_factor"] = message(lambda: GradScaler(growth_factor=1.0))
    out["backoff_factor"] = message(lambda: GradScaler(backoff_factor=1.0))
    return out


def main():
    out = {"torch_version": torch.__version__, "options": OPTIONS,
           "inject": {str(k): [v[0], list(v[1]), num(v[2])] for k, v in INJECT.items()},
           "defaults_state_dict": GradScaler().state_dict(),
           "trajectories": {k: trajectory(f, clip=False) for k, f in OPTIMIZERS.items()},
           "errors": errors()}
    out["trajectories"]["sgd_clip"] = trajectory(OPTIMIZERS["sgd"], clip=True)

    # The scale never grows past float32's range: 2**127 * 2 is inf in float32, so it stays.
    ps, x, y = problem()
    opt = torch.optim.SGD([ps["w"], ps["b"]], lr=0.0)
    scaler = GradScaler(init_scale=2.0 ** 127, growth_interval=1)
    scaler.scale(((x @ ps["w"].t() + ps["b"] - y) ** 2).mean() * 0).backward()
    scaler.step(opt)
    scaler.update()
    out["growth_capped"] = {"init_scale": 2.0 ** 127, "scale_after": scaler.get_scale()}

    with open(os.path.join(HERE, "grad_scaler.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
