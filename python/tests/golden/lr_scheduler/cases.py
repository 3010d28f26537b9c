"""The learning-rate scheduler cases and the code that runs one, shared by generate.py (under
PyTorch 1.13) and python/tests/test_lr_scheduler.py (under ember). Imports neither torch nor
ember: the caller passes an Env with the scheduler module and an optimizer factory.

A case:
  name    unique id
  optim   {"kind": "sgd" | "adam" | "none", "kw": optimizer keyword arguments,
           "groups": [per-group options]}  (each group gets one parameter; "none" is not an
           optimizer at all: the list [1, 2])
  sched   [class name, keyword arguments]. lr_lambda / scale_fn name entries of LAMBDAS (or
          {"callable": class, "args": [...]} for a callable object in CALLABLES); SequentialLR
          and ChainedScheduler take nested [class, kwargs] in "schedulers"; "_other": true
          builds that scheduler on a second optimizer (same spec).
  plan    actions, each a list:
            ["steps", n]          n times: optimizer.step(); scheduler.step()
            ["step", *args]       optimizer.step(); scheduler.step(*args) (epoch, or a metric)
            ["step_kw", kwargs]   optimizer.step(); scheduler.step(**kwargs)
            ["epochs", [e, ...]]  optimizer.step(); scheduler.step(e) for each e
            ["metrics", [m, ...]] optimizer.step(); scheduler.step(m) for each m
            ["sched_only"]        scheduler.step() without optimizer.step()
            ["override_opt_step"] optimizer.step replaced by a plain function
            ["set_lr", group, lr] an lr changed outside the scheduler
            ["get_lr"]            scheduler.get_lr() called outside step() (value recorded)
            ["roundtrip"]         state_dict() of both, a fresh optimizer and scheduler built
                                  from the spec, load_state_dict() into them, continue with them
            ["mutate_lambda", i, attr, value]  setattr on lr_lambdas[i]
  track   extra per-group values recorded at each snapshot: "momentum", "betas"

The result records a snapshot after construction and after every scheduler step (group lrs,
get_last_lr() when it differs, last_epoch, tracked values), the encoded state_dict at each
round trip, the scheduler-owned keys of every group at the end, the warnings raised from
lr_scheduler.py, stdout, and the error (type, message, snapshot count) if one is raised.
"""
import contextlib
import io
import math
import os
import warnings
from collections import Counter


class Env:
    """What a run needs: the lr_scheduler module and make_optimizer(kind, groups, kw)."""

    def __init__(self, lr_scheduler, make_optimizer):
        self.lr_scheduler = lr_scheduler
        self.make_optimizer = make_optimizer


LAMBDAS = {
    "pow095": lambda epoch: 0.95 ** epoch,
    "floordiv10": lambda epoch: epoch // 10,          # integer factors
    "warmup5": lambda epoch: min(1.0, (epoch + 1) / 5),
    "mul09": lambda epoch: 0.9,
    "mul_alt": lambda epoch: 1.05 if epoch % 4 else 0.7,
    "sqrt_decay": lambda epoch: 1.0 / math.sqrt(epoch + 1),
    # CyclicLR scale functions
    "half_per_cycle": lambda x: 0.5 ** (x - 1),
    "inv_iter": lambda x: 1.0 / (1.0 + 0.03 * x),
}


class ScaledDecay:
    """A callable object: LambdaLR/MultiplicativeLR state_dict() keeps its __dict__."""

    def __init__(self, scale, decay):
        self.scale = scale
        self.decay = decay

    def __call__(self, epoch):
        return self.scale * self.decay ** epoch


class StepFactor:
    def __init__(self, every, factor):
        self.every = every
        self.factor = factor

    def __call__(self, epoch):
        return self.factor if epoch % self.every == 0 else 1.0


CALLABLES = {"ScaledDecay": ScaledDecay, "StepFactor": StepFactor}

# Keys the schedulers put in param groups (recorded at the end of a run).
GROUP_KEYS = ("lr", "initial_lr", "max_lr", "min_lr", "momentum", "betas", "max_momentum",
              "base_momentum")


# ---------------------------------------------------------------------------------------------
# Encoding: JSON values that keep int/float/tuple apart; non-finite floats as {"float": "inf"}.

def enc(v, skip_keys=()):
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return int(v)
    if isinstance(v, float):
        return v if math.isfinite(v) else {"float": repr(v)}
    if isinstance(v, tuple):
        return {"tuple": [enc(x, skip_keys) for x in v]}
    if isinstance(v, list):
        return [enc(x, skip_keys) for x in v]
    if isinstance(v, Counter):
        return {"Counter": sorted([enc(k), enc(c)] for k, c in v.items())}
    if isinstance(v, dict):
        items = [[enc(k), enc(x, skip_keys)] for k, x in v.items() if k not in skip_keys]
        return {"dict": sorted(items, key=lambda kv: repr(kv[0]))}
    if callable(v):
        return {"callable": True}
    return {"object": type(v).__name__}


# CyclicLR: 1.13 keeps a weakref.WeakMethod in its state_dict (unpicklable); ember leaves it out.
STATE_SKIP = ("_scale_fn_ref",)


# ---------------------------------------------------------------------------------------------

def _resolve_fn(v):
    if isinstance(v, str):
        return LAMBDAS[v]
    if isinstance(v, dict):
        return CALLABLES[v["callable"]](*v["args"])
    return [_resolve_fn(x) for x in v]


def build_optimizer(env, ospec):
    return env.make_optimizer(ospec["kind"], ospec.get("groups", [{}]), ospec.get("kw", {}))


def build_scheduler(env, sspec, opt, other):
    name, kw = sspec[0], dict(sspec[1])
    cls = getattr(env.lr_scheduler, name)
    target = other if kw.pop("_other", False) else opt
    if name == "ChainedScheduler":
        return cls([build_scheduler(env, s, opt, other) for s in kw["schedulers"]])
    if name == "SequentialLR":
        kw["schedulers"] = [build_scheduler(env, s, opt, other) for s in kw["schedulers"]]
    for key in ("lr_lambda", "scale_fn"):
        if key in kw and kw[key] is not None:
            kw[key] = _resolve_fn(kw[key])
    return cls(target, **kw)


def _needs_other(sspec):
    kw = sspec[1]
    return bool(kw.get("_other")) or any(_needs_other(s) for s in kw.get("schedulers", []))


def _expand(plan):
    for action in plan:
        op = action[0]
        if op == "steps":
            for _ in range(action[1]):
                yield ["step"]
        elif op == "epochs":
            for e in action[1]:
                yield ["step", e]
        elif op == "metrics":
            for m in action[1]:
                yield ["step", m]
        else:
            yield action


def _snapshot(opt, sched, track):
    groups = opt.param_groups
    lrs = enc([g["lr"] for g in groups])
    snap = {"lr": lrs}
    if hasattr(sched, "get_last_lr"):
        last = sched.get_last_lr()
    else:
        last = getattr(sched, "_last_lr", None)
    last = enc(list(last) if last is not None else None)
    if last != lrs:
        snap["last"] = last
    snap["epoch"] = enc(getattr(sched, "last_epoch", None))
    for key in track:
        snap[key] = enc([g.get(key) for g in groups])
    return snap


def run_case(env, case):
    """Runs one case; returns its JSON-ready result."""
    result = {"snapshots": []}
    snaps = result["snapshots"]
    warned = []
    buf = io.StringIO()
    track = case.get("track", [])
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(buf):
        warnings.simplefilter("always")
        seen = 0
        retired = []

        def collect():
            nonlocal seen
            for w in caught[seen:]:
                if os.path.basename(w.filename) == "lr_scheduler.py":
                    warned.append([len(snaps), w.category.__name__, str(w.message)])
            seen = len(caught)

        try:
            opt = build_optimizer(env, case["optim"])
            other = build_optimizer(env, case["optim"]) if _needs_other(case["sched"]) else None
            sched = build_scheduler(env, case["sched"], opt, other)
            collect()
            snaps.append(_snapshot(opt, sched, track))
            for action in _expand(case.get("plan", [])):
                op = action[0]
                if op == "step":
                    opt.step()
                    sched.step(*action[1:])
                    collect()
                    snaps.append(_snapshot(opt, sched, track))
                elif op == "step_kw":
                    opt.step()
                    sched.step(**action[1])
                    collect()
                    snaps.append(_snapshot(opt, sched, track))
                elif op == "sched_only":
                    sched.step()
                    collect()
                    snaps.append(_snapshot(opt, sched, track))
                elif op == "override_opt_step":
                    opt.step = lambda *args, **kwargs: None
                elif op == "set_lr":
                    opt.param_groups[action[1]]["lr"] = action[2]
                elif op == "get_lr":
                    value = sched.get_lr()
                    collect()
                    result.setdefault("get_lr", []).append([len(snaps), enc(list(value))])
                elif op == "mutate_lambda":
                    setattr(sched.lr_lambdas[action[1]], action[2], action[3])
                elif op == "roundtrip":
                    sd = sched.state_dict()
                    result.setdefault("state_dicts", []).append(
                        [len(snaps), enc(sd, STATE_SKIP)])
                    osd = opt.state_dict()
                    # The old pair stays alive: 1.13's CyclicLR state_dict holds a weak
                    # reference to a method of the old scheduler (dead once it is collected).
                    retired.append((opt, other, sched))
                    opt = build_optimizer(env, case["optim"])
                    other = (build_optimizer(env, case["optim"])
                             if _needs_other(case["sched"]) else None)
                    sched = build_scheduler(env, case["sched"], opt, other)
                    opt.load_state_dict(osd)
                    sched.load_state_dict(sd)
                    collect()
                else:
                    raise AssertionError("unknown action %r" % (action,))
            result["groups"] = [enc({k: g[k] for k in GROUP_KEYS if k in g})
                                for g in opt.param_groups]
        except Exception as exc:  # noqa: BLE001 - recorded and compared
            result["error"] = [type(exc).__name__, str(exc), len(snaps)]
        collect()
    result["warnings"] = warned
    out = buf.getvalue()
    if out:
        result["stdout"] = out
    return result


# ---------------------------------------------------------------------------------------------
# The cases.

def sgd(*lrs, **kw):
    """SGD with one group per lr (extra per-group options in dicts)."""
    kw.setdefault("lr", 0.1)
    groups = [dict(lr) if isinstance(lr, dict) else {"lr": lr} for lr in lrs] or [{}]
    return {"kind": "sgd", "kw": kw, "groups": groups}


def adam(*lrs, **kw):
    kw.setdefault("lr", 0.001)
    groups = [dict(lr) if isinstance(lr, dict) else {"lr": lr} for lr in lrs] or [{}]
    return {"kind": "adam", "kw": kw, "groups": groups}


NOT_AN_OPTIMIZER = {"kind": "none"}

CASES = []


def case(name, optim, sched, plan=(), track=()):
    assert name not in {c["name"] for c in CASES}, name
    c = {"name": name, "optim": optim, "sched": sched, "plan": [list(a) for a in plan]}
    if track:
        c["track"] = list(track)
    CASES.append(c)


def steps(n):
    return ["steps", n]


# Fixed metric sequences for ReduceLROnPlateau.
LOSS = [1.0, 0.9, 0.85, 0.85, 0.8501, 0.86, 0.84, 0.84, 0.8399, 0.84, 0.841, 0.85, 0.7, 0.69995,
        0.7, 0.71, 0.72, 0.69, 0.69, 0.69, 0.6, 0.6, 0.61, 0.62, 0.63, 0.64, 0.5, 0.5, 0.5, 0.5,
        0.5, 0.5, 0.5, 0.5, 0.49, 0.49, 0.49, 0.49, 0.49, 0.49]
ACC = [0.1, 0.2, 0.25, 0.3, 0.3, 0.31, 0.305, 0.35, 0.351, 0.352, 0.36, 0.5, 0.5, 0.49, 0.5,
       0.55, 0.56, 0.6, 0.6, 0.6, 0.6, 0.6, 0.61, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.8]

FRACTIONAL = [e + i / 5 for e in range(8) for i in range(5)]             # 0, 0.2, ... 7.8
FRACTIONAL_3 = [e + i / 3 for e in range(12) for i in range(3)]          # thirds up to 11.67

# --- LambdaLR
case("LambdaLR/pow095", sgd(0.1), ["LambdaLR", {"lr_lambda": "pow095"}], [steps(40)])
case("LambdaLR/two_groups", sgd(0.1, 0.05), ["LambdaLR", {"lr_lambda": ["pow095", "warmup5"]}],
     [steps(40)])
case("LambdaLR/int_factor", sgd(0.3), ["LambdaLR", {"lr_lambda": "floordiv10"}], [steps(35)])
case("LambdaLR/int_lr", sgd(1), ["LambdaLR", {"lr_lambda": "floordiv10"}], [steps(25)])
case("LambdaLR/sqrt_decay_adam", adam(0.003, 0.001),
     ["LambdaLR", {"lr_lambda": "sqrt_decay"}], [steps(40)])
case("LambdaLR/callable_roundtrip", sgd(0.1, 0.2),
     ["LambdaLR", {"lr_lambda": [{"callable": "ScaledDecay", "args": [1.0, 0.9]}, "pow095"]}],
     [steps(8), ["mutate_lambda", 0, "decay", 0.8], steps(4), ["roundtrip"], steps(20)])
case("LambdaLR/lambda_roundtrip", sgd(0.1), ["LambdaLR", {"lr_lambda": "warmup5"}],
     [steps(7), ["roundtrip"], steps(20)])
case("LambdaLR/step_epoch", sgd(0.1), ["LambdaLR", {"lr_lambda": "pow095"}],
     [["epochs", [3, 7, 2, 10]], steps(5)])
case("LambdaLR/verbose", sgd(0.1, 0.01), ["LambdaLR", {"lr_lambda": "pow095", "verbose": True}],
     [steps(3), ["step", 6]])
case("LambdaLR/get_lr_outside", sgd(0.1), ["LambdaLR", {"lr_lambda": "pow095"}],
     [steps(3), ["get_lr"], steps(2)])
case("LambdaLR/wrong_count", sgd(0.1, 0.2), ["LambdaLR", {"lr_lambda": ["pow095"]}])
case("LambdaLR/not_an_optimizer", NOT_AN_OPTIMIZER, ["LambdaLR", {"lr_lambda": "pow095"}])
case("LambdaLR/resume_last_epoch", sgd({"lr": 0.05, "initial_lr": 0.1}),
     ["LambdaLR", {"lr_lambda": "pow095", "last_epoch": 9}], [steps(20)])
case("LambdaLR/resume_without_initial_lr", sgd(0.1),
     ["LambdaLR", {"lr_lambda": "pow095", "last_epoch": 3}])

# --- MultiplicativeLR
case("MultiplicativeLR/mul09", sgd(0.1, 0.02), ["MultiplicativeLR", {"lr_lambda": "mul09"}],
     [steps(45)])
case("MultiplicativeLR/two_lambdas", sgd(0.1, 0.02),
     ["MultiplicativeLR", {"lr_lambda": ["mul_alt", "mul09"]}], [steps(40)])
case("MultiplicativeLR/set_lr", sgd(0.1), ["MultiplicativeLR", {"lr_lambda": "mul09"}],
     [steps(10), ["set_lr", 0, 0.5], steps(20)])
case("MultiplicativeLR/callable_roundtrip", sgd(0.1),
     ["MultiplicativeLR", {"lr_lambda": {"callable": "StepFactor", "args": [3, 0.5]}}],
     [steps(7), ["mutate_lambda", 0, "factor", 0.8], steps(3), ["roundtrip"], steps(20)])
case("MultiplicativeLR/step_epoch", sgd(0.1), ["MultiplicativeLR", {"lr_lambda": "mul09"}],
     [steps(3), ["step", 10], steps(3), ["step", 0], steps(2)])

# --- StepLR
case("StepLR/two_groups", sgd(0.1, 0.03), ["StepLR", {"step_size": 3, "gamma": 0.5}],
     [steps(40)])
case("StepLR/default_gamma", sgd(0.05), ["StepLR", {"step_size": 7}], [steps(45)])
case("StepLR/int_lr", sgd(1), ["StepLR", {"step_size": 4, "gamma": 0.5}], [steps(20)])
case("StepLR/int_lr_roundtrip", sgd(2, momentum=0.5), ["StepLR", {"step_size": 4, "gamma": 0.5}],
     [steps(2), ["roundtrip"], steps(6)])
case("StepLR/set_lr", sgd(0.1), ["StepLR", {"step_size": 5, "gamma": 0.7}],
     [steps(12), ["set_lr", 0, 0.3], steps(20)])
case("StepLR/closed_form", sgd(0.1, 0.2), ["StepLR", {"step_size": 3, "gamma": 0.3}],
     [["epochs", [1, 2, 5, 9, 10, 3, 0, 30]], steps(8)])
case("StepLR/roundtrip", sgd(0.1, 0.01, momentum=0.9), ["StepLR", {"step_size": 4, "gamma": 0.6}],
     [steps(13), ["roundtrip"], steps(27)])
case("StepLR/resume", sgd({"lr": 0.01, "initial_lr": 0.1}),
     ["StepLR", {"step_size": 5, "gamma": 0.5, "last_epoch": 9}], [steps(20)])
case("StepLR/verbose", sgd(0.1), ["StepLR", {"step_size": 2, "verbose": True}],
     [steps(4), ["step", 7], ["step", 8.0]])
case("StepLR/sched_before_opt", sgd(0.1), ["StepLR", {"step_size": 2}],
     [["sched_only"], ["sched_only"], steps(4)])
case("StepLR/opt_step_overridden", sgd(0.1), ["StepLR", {"step_size": 2}],
     [["override_opt_step"], steps(4)])
case("StepLR/get_lr_outside", sgd(0.1), ["StepLR", {"step_size": 2}],
     [steps(1), ["get_lr"], steps(1), ["get_lr"], steps(1)])
case("StepLR/not_an_optimizer", NOT_AN_OPTIMIZER, ["StepLR", {"step_size": 2}])

# --- MultiStepLR
case("MultiStepLR/repeated_milestone", sgd(0.1, 0.05),
     ["MultiStepLR", {"milestones": [5, 12, 12, 30], "gamma": 0.5}], [steps(40)])
case("MultiStepLR/unsorted", sgd(0.2), ["MultiStepLR", {"milestones": [20, 5, 9]}], [steps(30)])
case("MultiStepLR/closed_form", sgd(0.1),
     ["MultiStepLR", {"milestones": [3, 6, 6, 10], "gamma": 0.2}],
     [["epochs", [0, 3, 4, 6, 11, 2, 7]], steps(6)])
case("MultiStepLR/roundtrip", sgd(0.1, 0.3), ["MultiStepLR", {"milestones": [4, 8, 15]}],
     [steps(6), ["roundtrip"], steps(20)])
case("MultiStepLR/set_lr", adam(0.01), ["MultiStepLR", {"milestones": [5, 10], "gamma": 0.25}],
     [steps(7), ["set_lr", 0, 0.002], steps(10)])

# --- ConstantLR
case("ConstantLR/half", sgd(0.05), ["ConstantLR", {"factor": 0.5, "total_iters": 4}],
     [steps(20)])
case("ConstantLR/default_two_groups", sgd(0.1, 0.07), ["ConstantLR", {}], [steps(20)])
case("ConstantLR/total_iters_0", sgd(0.1), ["ConstantLR", {"factor": 0.25, "total_iters": 0}],
     [steps(10)])
case("ConstantLR/closed_form", sgd(0.1), ["ConstantLR", {"factor": 0.3, "total_iters": 5}],
     [["epochs", [2, 5, 4, 9, 0]], steps(6)])
case("ConstantLR/roundtrip", sgd(0.1), ["ConstantLR", {"factor": 0.1, "total_iters": 6}],
     [steps(3), ["roundtrip"], steps(10)])
case("ConstantLR/bad_factor", sgd(0.1), ["ConstantLR", {"factor": 1.5}])

# --- LinearLR
case("LinearLR/warmup", sgd(0.05), ["LinearLR", {"start_factor": 0.25, "total_iters": 4}],
     [steps(20)])
case("LinearLR/default_two_groups", sgd(0.1, 0.3), ["LinearLR", {}], [steps(20)])
case("LinearLR/decay", sgd(0.1), ["LinearLR", {"start_factor": 1.0, "end_factor": 0.1,
                                               "total_iters": 10}], [steps(30)])
case("LinearLR/long", adam(0.001, 0.002),
     ["LinearLR", {"start_factor": 0.01, "end_factor": 0.9, "total_iters": 37}], [steps(50)])
case("LinearLR/closed_form", sgd(0.1), ["LinearLR", {"start_factor": 0.2, "total_iters": 6}],
     [["epochs", [1, 3, 6, 8, 2]], steps(5)])
case("LinearLR/roundtrip", sgd(0.1), ["LinearLR", {"start_factor": 0.1, "total_iters": 10}],
     [steps(4), ["roundtrip"], steps(12)])
case("LinearLR/bad_start", sgd(0.1), ["LinearLR", {"start_factor": 1.2}])
case("LinearLR/bad_end", sgd(0.1), ["LinearLR", {"end_factor": -0.1}])

# --- ExponentialLR
case("ExponentialLR/two_groups", sgd(0.1, 0.01), ["ExponentialLR", {"gamma": 0.9}], [steps(60)])
case("ExponentialLR/closed_form", sgd(0.1), ["ExponentialLR", {"gamma": 0.85}],
     [["epochs", [5, 10, 3]], steps(5)])
case("ExponentialLR/roundtrip_set_lr", sgd(0.1, 0.2), ["ExponentialLR", {"gamma": 0.95}],
     [steps(9), ["set_lr", 1, 0.15], steps(4), ["roundtrip"], steps(20)])
case("ExponentialLR/get_lr_outside", sgd(0.1), ["ExponentialLR", {"gamma": 0.5}],
     [steps(2), ["get_lr"], steps(2)])

# --- PolynomialLR
case("PolynomialLR/linear", sgd(0.1), ["PolynomialLR", {"total_iters": 10, "power": 1.0}],
     [steps(20)])
case("PolynomialLR/square_two_groups", sgd(0.1, 0.04),
     ["PolynomialLR", {"total_iters": 12, "power": 2.0}], [steps(20)])
case("PolynomialLR/sqrt", sgd(0.1), ["PolynomialLR", {"total_iters": 30, "power": 0.5}],
     [steps(35)])
case("PolynomialLR/default", sgd(0.001), ["PolynomialLR", {}], [steps(10)])
case("PolynomialLR/closed_form", sgd(0.1), ["PolynomialLR", {"total_iters": 8, "power": 3.0}],
     [["epochs", [2, 5, 8, 12, 1]], steps(4)])
case("PolynomialLR/roundtrip", sgd(0.1), ["PolynomialLR", {"total_iters": 20, "power": 1.5}],
     [steps(7), ["roundtrip"], steps(15)])

# --- CosineAnnealingLR
case("CosineAnnealingLR/T10", sgd(0.1), ["CosineAnnealingLR", {"T_max": 10}], [steps(60)])
case("CosineAnnealingLR/eta_min_two_groups", sgd(0.1, 0.05),
     ["CosineAnnealingLR", {"T_max": 7, "eta_min": 0.001}], [steps(50)])
case("CosineAnnealingLR/T1", sgd(0.1), ["CosineAnnealingLR", {"T_max": 1}], [steps(8)])
case("CosineAnnealingLR/long_adam", adam(0.001), ["CosineAnnealingLR", {"T_max": 50,
                                                                        "eta_min": 1e-6}],
     [steps(60)])
case("CosineAnnealingLR/closed_form", sgd(0.1),
     ["CosineAnnealingLR", {"T_max": 10, "eta_min": 0.01}],
     [["epochs", [3, 10, 11, 25, 4]], steps(6)])
case("CosineAnnealingLR/resume", sgd({"lr": 0.05, "initial_lr": 0.1}),
     ["CosineAnnealingLR", {"T_max": 12, "last_epoch": 5}], [steps(30)])
case("CosineAnnealingLR/roundtrip", sgd(0.1, 0.3),
     ["CosineAnnealingLR", {"T_max": 15, "eta_min": 0.002}], [steps(17), ["roundtrip"], steps(25)])
case("CosineAnnealingLR/set_lr", sgd(0.1), ["CosineAnnealingLR", {"T_max": 20}],
     [steps(6), ["set_lr", 0, 0.2], steps(30)])
case("CosineAnnealingLR/verbose", sgd(0.1), ["CosineAnnealingLR", {"T_max": 4, "verbose": True}],
     [steps(5)])

# --- ChainedScheduler
case("ChainedScheduler/constant_exponential", sgd(1.0),
     ["ChainedScheduler", {"schedulers": [["ConstantLR", {"factor": 0.1, "total_iters": 2}],
                                          ["ExponentialLR", {"gamma": 0.9}]]}], [steps(30)])
case("ChainedScheduler/three_two_groups", sgd(0.1, 0.05),
     ["ChainedScheduler", {"schedulers": [["LinearLR", {"start_factor": 0.5, "total_iters": 5}],
                                          ["CosineAnnealingLR", {"T_max": 20}],
                                          ["MultiStepLR", {"milestones": [10, 25]}]]}],
     [steps(12), ["roundtrip"], steps(28)])
case("ChainedScheduler/other_optimizer", sgd(0.1),
     ["ChainedScheduler", {"schedulers": [["StepLR", {"step_size": 2}],
                                          ["ExponentialLR", {"gamma": 0.9, "_other": True}]]}])

# --- SequentialLR
case("SequentialLR/constant_exponential", sgd(1.0),
     ["SequentialLR", {"schedulers": [["ConstantLR", {"factor": 0.1, "total_iters": 2}],
                                      ["ExponentialLR", {"gamma": 0.9}]], "milestones": [2]}],
     [steps(30)])
case("SequentialLR/warmup_cosine", sgd(0.1, 0.02),
     ["SequentialLR", {"schedulers": [["LinearLR", {"start_factor": 0.1, "total_iters": 5}],
                                      ["CosineAnnealingLR", {"T_max": 20, "eta_min": 0.001}]],
                       "milestones": [5]}], [steps(40)])
case("SequentialLR/three", sgd(0.1),
     ["SequentialLR", {"schedulers": [["LinearLR", {"start_factor": 0.2, "total_iters": 4}],
                                      ["StepLR", {"step_size": 3, "gamma": 0.5}],
                                      ["ExponentialLR", {"gamma": 0.8}]],
                       "milestones": [4, 15]}], [steps(30)])
case("SequentialLR/roundtrip", sgd(0.1),
     ["SequentialLR", {"schedulers": [["ConstantLR", {"factor": 0.5, "total_iters": 3}],
                                      ["MultiStepLR", {"milestones": [4, 9], "gamma": 0.3}]],
                       "milestones": [6]}], [steps(10), ["roundtrip"], steps(15)])
case("SequentialLR/wrong_milestones", sgd(0.1),
     ["SequentialLR", {"schedulers": [["ConstantLR", {}], ["ExponentialLR", {"gamma": 0.9}]],
                       "milestones": [2, 5]}])
case("SequentialLR/other_optimizer", sgd(0.1),
     ["SequentialLR", {"schedulers": [["ConstantLR", {}],
                                      ["ExponentialLR", {"gamma": 0.9, "_other": True}]],
                       "milestones": [2]}])

# --- ReduceLROnPlateau
case("ReduceLROnPlateau/min_rel", sgd(0.1, 0.01),
     ["ReduceLROnPlateau", {"patience": 2}], [["metrics", LOSS]])
case("ReduceLROnPlateau/max_abs_cooldown", sgd(0.1),
     ["ReduceLROnPlateau", {"mode": "max", "threshold_mode": "abs", "threshold": 0.01,
                            "patience": 1, "cooldown": 2, "factor": 0.5}], [["metrics", ACC]])
case("ReduceLROnPlateau/max_rel", adam(0.01, 0.001),
     ["ReduceLROnPlateau", {"mode": "max", "patience": 3, "factor": 0.3}], [["metrics", ACC]])
case("ReduceLROnPlateau/min_abs_min_lr_list", sgd(0.1, 0.05),
     ["ReduceLROnPlateau", {"threshold_mode": "abs", "threshold": 0.005, "patience": 0,
                            "factor": 0.5, "min_lr": [0.01, 0.02]}], [["metrics", LOSS]])
case("ReduceLROnPlateau/eps_blocks", sgd(1e-7),
     ["ReduceLROnPlateau", {"patience": 0, "factor": 0.5, "eps": 1e-8}], [["metrics", LOSS[:12]]])
case("ReduceLROnPlateau/roundtrip", sgd(0.1),
     ["ReduceLROnPlateau", {"patience": 1, "cooldown": 1, "factor": 0.7}],
     [["metrics", LOSS[:15]], ["roundtrip"], ["metrics", LOSS[15:]]])
case("ReduceLROnPlateau/verbose", sgd(0.1),
     ["ReduceLROnPlateau", {"patience": 0, "verbose": True}],
     [["metrics", [1.0, 1.0, 1.0, 0.5, 0.6]], ["step_kw", {"metrics": 0.7, "epoch": 10}],
      ["step", 0.8, 12.5]])
case("ReduceLROnPlateau/int_metrics", sgd(0.1), ["ReduceLROnPlateau", {"patience": 1}],
     [["metrics", [5, 4, 4, 4, 3, 3, 3, 3]]])
case("ReduceLROnPlateau/bad_factor", sgd(0.1), ["ReduceLROnPlateau", {"factor": 1.0}])
case("ReduceLROnPlateau/bad_mode", sgd(0.1), ["ReduceLROnPlateau", {"mode": "avg"}])
case("ReduceLROnPlateau/bad_threshold_mode", sgd(0.1),
     ["ReduceLROnPlateau", {"threshold_mode": "pct"}])
case("ReduceLROnPlateau/min_lr_count", sgd(0.1), ["ReduceLROnPlateau", {"min_lr": [0.1, 0.2]}])
case("ReduceLROnPlateau/not_an_optimizer", NOT_AN_OPTIMIZER, ["ReduceLROnPlateau", {}])

# --- CyclicLR
MOM = ["momentum"]
case("CyclicLR/triangular_sgd", sgd(0.1, momentum=0.9),
     ["CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 5}], [steps(40)], MOM)
case("CyclicLR/triangular2_lists", sgd(0.1, 0.2, momentum=0.9),
     ["CyclicLR", {"base_lr": [0.01, 0.02], "max_lr": [0.1, 0.3], "step_size_up": 4,
                   "step_size_down": 6, "mode": "triangular2", "base_momentum": [0.8, 0.85],
                   "max_momentum": [0.9, 0.95]}], [steps(45)], MOM)
case("CyclicLR/exp_range", sgd(0.1, momentum=0.9),
     ["CyclicLR", {"base_lr": 0.001, "max_lr": 0.01, "step_size_up": 5, "mode": "exp_range",
                   "gamma": 0.95}], [steps(50)], MOM)
case("CyclicLR/scale_fn_cycle", sgd(0.1, momentum=0.5),
     ["CyclicLR", {"base_lr": 0.01, "max_lr": 0.05, "step_size_up": 3,
                   "scale_fn": "half_per_cycle"}], [steps(30)], MOM)
case("CyclicLR/scale_fn_iterations", sgd(0.1, momentum=0.5),
     ["CyclicLR", {"base_lr": 0.01, "max_lr": 0.05, "step_size_up": 3, "step_size_down": 2,
                   "scale_fn": "inv_iter", "scale_mode": "iterations"}], [steps(30)], MOM)
case("CyclicLR/no_momentum_adam", adam(0.001, 0.002),
     ["CyclicLR", {"base_lr": [0.0001, 0.0002], "max_lr": 0.003, "step_size_up": 7,
                   "cycle_momentum": False}], [steps(35)], ["betas"])
case("CyclicLR/sgd_plain_momentum_0", sgd(0.1),
     ["CyclicLR", {"base_lr": 0.02, "max_lr": 0.2, "step_size_up": 6}], [steps(30)], MOM)
case("CyclicLR/adam_cycle_momentum", adam(0.001),
     ["CyclicLR", {"base_lr": 0.0001, "max_lr": 0.001}])
case("CyclicLR/bad_mode", sgd(0.1, momentum=0.9),
     ["CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "mode": "square"}])
case("CyclicLR/base_lr_count", sgd(0.1, 0.2, momentum=0.9),
     ["CyclicLR", {"base_lr": [0.01, 0.02, 0.03], "max_lr": 0.1}])
case("CyclicLR/roundtrip", sgd(0.1, 0.05, momentum=0.9),
     ["CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 4, "mode": "triangular2"}],
     [steps(13), ["roundtrip"], steps(25)], MOM)
case("CyclicLR/roundtrip_exp_range", sgd(0.1, momentum=0.9),
     ["CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 4, "mode": "exp_range",
                   "gamma": 0.9}], [steps(9), ["roundtrip"], steps(20)], MOM)
case("CyclicLR/resume", sgd({"lr": 0.05, "initial_lr": 0.01}, momentum=0.85),
     ["CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 5, "last_epoch": 7}],
     [steps(20)], MOM)
case("CyclicLR/get_lr_outside", sgd(0.1, momentum=0.9),
     ["CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 5}],
     [steps(2), ["get_lr"], steps(2)], MOM)

# --- CosineAnnealingWarmRestarts
case("CosineAnnealingWarmRestarts/T10", sgd(0.1), ["CosineAnnealingWarmRestarts", {"T_0": 10}],
     [steps(45)])
case("CosineAnnealingWarmRestarts/Tmult2_two_groups", sgd(0.1, 0.05),
     ["CosineAnnealingWarmRestarts", {"T_0": 5, "T_mult": 2, "eta_min": 0.001}], [steps(50)])
case("CosineAnnealingWarmRestarts/fractional_Tmult2", sgd(0.1),
     ["CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2}], [["epochs", FRACTIONAL]])
case("CosineAnnealingWarmRestarts/fractional_Tmult1", sgd(0.1, 0.3),
     ["CosineAnnealingWarmRestarts", {"T_0": 2, "eta_min": 0.01}], [["epochs", FRACTIONAL]])
case("CosineAnnealingWarmRestarts/fractional_Tmult3", adam(0.001),
     ["CosineAnnealingWarmRestarts", {"T_0": 1, "T_mult": 3, "eta_min": 1e-5}],
     [["epochs", FRACTIONAL_3]])
case("CosineAnnealingWarmRestarts/interleaved", sgd(0.1),
     ["CosineAnnealingWarmRestarts", {"T_0": 4, "T_mult": 2}],
     [steps(20), ["step", 26], steps(3), ["step", 5.5], steps(4), ["step", 0], steps(3)])
case("CosineAnnealingWarmRestarts/roundtrip", sgd(0.1),
     ["CosineAnnealingWarmRestarts", {"T_0": 6, "T_mult": 2, "eta_min": 0.005}],
     [steps(9), ["roundtrip"], steps(30)])
case("CosineAnnealingWarmRestarts/verbose", sgd(0.1),
     ["CosineAnnealingWarmRestarts", {"T_0": 3, "verbose": True}],
     [steps(2), ["step", 2.5], ["step", 4]])
case("CosineAnnealingWarmRestarts/negative_epoch", sgd(0.1),
     ["CosineAnnealingWarmRestarts", {"T_0": 3}], [steps(2), ["step", -1]])
case("CosineAnnealingWarmRestarts/T0_zero", sgd(0.1), ["CosineAnnealingWarmRestarts", {"T_0": 0}])
case("CosineAnnealingWarmRestarts/T0_float", sgd(0.1),
     ["CosineAnnealingWarmRestarts", {"T_0": 2.0}])
case("CosineAnnealingWarmRestarts/Tmult_zero", sgd(0.1),
     ["CosineAnnealingWarmRestarts", {"T_0": 2, "T_mult": 0}])

# --- OneCycleLR
case("OneCycleLR/cos_sgd", sgd(0.1, momentum=0.9),
     ["OneCycleLR", {"max_lr": 0.1, "total_steps": 40}], [steps(40)], MOM)
case("OneCycleLR/linear_epochs", sgd(0.1, momentum=0.9),
     ["OneCycleLR", {"max_lr": 0.05, "epochs": 4, "steps_per_epoch": 10,
                     "anneal_strategy": "linear"}], [steps(40)], MOM)
case("OneCycleLR/three_phase_cos", sgd(0.1, 0.2, momentum=0.9),
     ["OneCycleLR", {"max_lr": [0.1, 0.3], "total_steps": 50, "three_phase": True}],
     [steps(50)], MOM)
case("OneCycleLR/three_phase_linear_adam", adam(0.001),
     ["OneCycleLR", {"max_lr": 0.01, "total_steps": 45, "three_phase": True,
                     "anneal_strategy": "linear"}], [steps(45)], ["betas"])
case("OneCycleLR/adam_betas_two_groups", adam(0.001, 0.002, betas=(0.9, 0.99)),
     ["OneCycleLR", {"max_lr": [0.1, 0.01], "total_steps": 40, "base_momentum": [0.8, 0.85],
                     "max_momentum": [0.95, 0.9]}], [steps(40)], ["betas"])
case("OneCycleLR/adam_no_cycle", adam(0.001),
     ["OneCycleLR", {"max_lr": 0.01, "total_steps": 30, "cycle_momentum": False}],
     [steps(30)], ["betas"])
case("OneCycleLR/pct_div_factors", sgd(0.1, momentum=0.9),
     ["OneCycleLR", {"max_lr": 0.2, "total_steps": 37, "pct_start": 0.25, "div_factor": 10.0,
                     "final_div_factor": 100.0}], [steps(37)], MOM)
case("OneCycleLR/roundtrip_sgd", sgd(0.1, momentum=0.9),
     ["OneCycleLR", {"max_lr": 0.1, "total_steps": 40}],
     [steps(15), ["roundtrip"], steps(25)], MOM)
case("OneCycleLR/roundtrip_adam", adam(0.001),
     ["OneCycleLR", {"max_lr": 0.01, "total_steps": 30, "anneal_strategy": "linear"}],
     [steps(8), ["roundtrip"], steps(22)], ["betas"])
case("OneCycleLR/past_total_steps", sgd(0.1, momentum=0.9),
     ["OneCycleLR", {"max_lr": 0.1, "total_steps": 10}], [steps(12)], MOM)
case("OneCycleLR/resume", sgd({"lr": 0.05, "initial_lr": 0.004, "max_lr": 0.1, "min_lr": 4e-7,
                               "max_momentum": 0.95, "base_momentum": 0.85}, momentum=0.9),
     ["OneCycleLR", {"max_lr": 0.1, "total_steps": 30, "last_epoch": 12}], [steps(17)], MOM)
case("OneCycleLR/get_lr_outside", sgd(0.1, momentum=0.9),
     ["OneCycleLR", {"max_lr": 0.1, "total_steps": 20}], [steps(3), ["get_lr"], steps(2)], MOM)
case("OneCycleLR/no_total_steps", sgd(0.1), ["OneCycleLR", {"max_lr": 0.1}])
case("OneCycleLR/total_steps_zero", sgd(0.1), ["OneCycleLR", {"max_lr": 0.1, "total_steps": 0}])
case("OneCycleLR/epochs_zero", sgd(0.1),
     ["OneCycleLR", {"max_lr": 0.1, "epochs": 0, "steps_per_epoch": 3}])
case("OneCycleLR/pct_start_int", sgd(0.1),
     ["OneCycleLR", {"max_lr": 0.1, "total_steps": 10, "pct_start": 1}])
case("OneCycleLR/bad_anneal", sgd(0.1),
     ["OneCycleLR", {"max_lr": 0.1, "total_steps": 10, "anneal_strategy": "exp"}])
case("OneCycleLR/max_lr_count", sgd(0.1),
     ["OneCycleLR", {"max_lr": [0.1, 0.2], "total_steps": 10}])
