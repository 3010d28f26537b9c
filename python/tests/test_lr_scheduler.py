"""ember.optim.lr_scheduler against PyTorch 1.13: every case in
python/tests/golden/lr_scheduler/cases.py is replayed on ember and must give the recorded result
of python/tests/golden/lr_scheduler/lr_scheduler.json (written by generate.py there under the
real PyTorch) exactly: every lr / momentum / betas value, get_last_lr(), last_epoch and the
state_dict() contents with float64 ==, int/float kept apart, the warnings, what verbose prints
and the errors (type and message).

Optimizers: ember's own SGD and Adam when ember.optim has them, otherwise FakeOptimizer below (a
stand-in with PyTorch's param_groups / defaults / step / state_dict); EMBER_LR_OPTIMIZERS=stand-in
forces the stand-in. The test ids say which: test_golden_case[ember.optim:StepLR/two_groups] or
test_golden_case[stand-in:StepLR/two_groups].

EMBER_GOLDEN_MODULE names the module bound to `torch` (default "ember");
    EMBER_GOLDEN_MODULE=torch /usr/bin/python3 -m pytest -q python/tests/test_lr_scheduler.py
runs the golden cases against the reference PyTorch (checks the harness). By default nothing
here imports torch.

If the module cannot be imported, every test FAILS (ember is expected to be built).
"""
import copy
import gc
import importlib
import importlib.util
import json
import math
import os
import pickle
import warnings
import weakref

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN_DIR = os.path.join(HERE, "golden", "lr_scheduler")
GOLDEN_FILE = os.path.join(GOLDEN_DIR, "lr_scheduler.json")


def _load_cases():
    spec = importlib.util.spec_from_file_location("lr_scheduler_cases",
                                                  os.path.join(GOLDEN_DIR, "cases.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


cases = _load_cases()

MODULE_NAME = os.environ.get("EMBER_GOLDEN_MODULE", "ember")
IS_EMBER = MODULE_NAME == "ember"
try:
    ROOT = importlib.import_module(MODULE_NAME)
    lr_scheduler = importlib.import_module(MODULE_NAME + ".optim.lr_scheduler")
    IMPORT_ERROR = None
except Exception as exc:  # noqa: BLE001 - reported by every test below
    ROOT = lr_scheduler = None
    IMPORT_ERROR = "import %s.optim.lr_scheduler failed: %s: %s" % (
        MODULE_NAME, type(exc).__name__, exc)


def _require():
    if IMPORT_ERROR is not None:
        pytest.fail(IMPORT_ERROR, pytrace=False)


def _optimizer_base():
    """The real Optimizer class when MODULE.optim.optimizer has one (the schedulers then
    require it), else object."""
    try:
        mod = importlib.import_module(MODULE_NAME + ".optim.optimizer")
    except ImportError:
        return object
    return getattr(mod, "Optimizer", object)


def _real_optimizers():
    if IMPORT_ERROR is not None or os.environ.get("EMBER_LR_OPTIMIZERS") == "stand-in":
        return None
    try:
        optim = importlib.import_module(MODULE_NAME + ".optim")
    except ImportError:
        return None
    sgd, adam = getattr(optim, "SGD", None), getattr(optim, "Adam", None)
    return (sgd, adam) if sgd is not None and adam is not None else None


OptimizerBase = _optimizer_base() if IMPORT_ERROR is None else object


class FakeOptimizer(OptimizerBase):
    """A stand-in for an optimizer: PyTorch's param_groups (defaults filled in per group),
    defaults, state, step(closure), zero_grad(), state_dict() (params as indices) and
    load_state_dict(). It derives from the real Optimizer when that exists (without running its
    __init__) so that the schedulers' isinstance check accepts it."""

    state = None  # shadows a `state` property of the real base class

    def __init__(self, params, defaults):  # noqa: D107 - no super().__init__ on purpose
        self.defaults = dict(defaults)
        self.state = {}
        self.param_groups = []
        self.steps_taken = 0
        params = list(params)
        if not params or not isinstance(params[0], dict):
            params = [{"params": params}]
        for group in params:
            group = dict(group)
            group["params"] = list(group["params"])
            for key, value in self.defaults.items():
                group.setdefault(key, value)
            self.param_groups.append(group)

    def step(self, closure=None):
        self.steps_taken += 1
        return closure() if closure is not None else None

    def zero_grad(self, set_to_none=False):
        pass

    def state_dict(self):
        index, groups = 0, []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = list(range(index, index + len(group["params"])))
            index += len(group["params"])
            groups.append(packed)
        return {"state": {}, "param_groups": copy.deepcopy(groups)}

    def load_state_dict(self, state_dict):
        saved = copy.deepcopy(state_dict)["param_groups"]
        if len(saved) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        self.param_groups = [dict(s, params=g["params"]) for g, s in zip(self.param_groups, saved)]


class FakeSGD(FakeOptimizer):
    def __init__(self, params, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False):
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov))


class FakeAdam(FakeOptimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad))


REAL = _real_optimizers()
BACKEND = (MODULE_NAME + ".optim") if REAL is not None else "stand-in"
SGD, Adam = REAL if REAL is not None else (FakeSGD, FakeAdam)


def _param():
    return ROOT.zeros(2, requires_grad=True)


def make_optimizer(kind, groups, kw):
    if kind == "none":
        return [1, 2]
    cls = {"sgd": SGD, "adam": Adam}[kind]
    return cls([dict(g, params=[_param()]) for g in groups], **kw)


ENV = cases.Env(lr_scheduler, make_optimizer)


def _golden():
    with open(GOLDEN_FILE) as f:
        return json.load(f)["cases"]


GOLDEN = _golden()
SPEC_KEYS = ("name", "optim", "sched", "plan", "track")


def _first_difference(got, want, path="result"):
    """None when got and want are the same (types included; floats bit for bit), else a text
    naming the first place they differ."""
    if type(got) is not type(want):
        return "%s: %r (%s) != expected %r (%s)" % (path, got, type(got).__name__, want,
                                                     type(want).__name__)
    if isinstance(got, float):
        if got.hex() != want.hex():
            return "%s: %r != expected %r (float64 bits differ: %s vs %s)" % (
                path, got, want, got.hex(), want.hex())
        return None
    if isinstance(got, list):
        if len(got) != len(want):
            return "%s: length %d != expected %d\n  got:      %r\n  expected: %r" % (
                path, len(got), len(want), got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            d = _first_difference(g, w, "%s[%d]" % (path, i))
            if d:
                return d
        return None
    if isinstance(got, dict):
        if set(got) != set(want):
            return "%s: keys %s != expected %s" % (path, sorted(got), sorted(want))
        for k in want:
            d = _first_difference(got[k], want[k], "%s[%r]" % (path, k))
            if d:
                return d
        return None
    if got != want:
        return "%s: %r != expected %r" % (path, got, want)
    return None


# ---------------------------------------------------------------------------------------------
# The golden cases.

def test_golden_file_matches_cases():
    """Every case of cases.py has its golden entry with the same spec (else: rerun
    generate.py)."""
    by_name = {c["name"]: c for c in cases.CASES}
    assert [e["name"] for e in GOLDEN] == [c["name"] for c in cases.CASES], \
        "lr_scheduler.json is out of date: rerun python/tests/golden/lr_scheduler/generate.py"
    for entry in GOLDEN:
        spec = json.loads(json.dumps({k: by_name[entry["name"]][k] for k in SPEC_KEYS
                                      if k in by_name[entry["name"]]}))
        assert spec == {k: entry[k] for k in SPEC_KEYS if k in entry}, \
            "%s: spec changed since lr_scheduler.json was written: rerun generate.py" % entry["name"]


@pytest.mark.parametrize("entry", GOLDEN, ids=["%s:%s" % (BACKEND, e["name"]) for e in GOLDEN])
def test_golden_case(entry):
    _require()
    spec = {k: entry[k] for k in SPEC_KEYS if k in entry}
    got = json.loads(json.dumps(cases.run_case(ENV, spec), allow_nan=False))
    diff = _first_difference(got, entry["expected"])
    assert diff is None, "%s (optimizers: %s)\n%s" % (entry["name"], BACKEND, diff)


# ---------------------------------------------------------------------------------------------
# ember's own behaviour around the schedules.

def _sgd(*lrs, **kw):
    kw.setdefault("lr", 0.1)
    return SGD([{"params": [_param()], "lr": lr} for lr in lrs] or [_param()], **kw)


def test_backend_reported():
    _require()
    assert BACKEND in (MODULE_NAME + ".optim", "stand-in")
    print("lr_scheduler tests use optimizers from: %s" % BACKEND)


def test_module_surface():
    _require()
    for name in lr_scheduler.__all__:
        assert hasattr(lr_scheduler, name), name
    assert set(lr_scheduler.__all__) >= {
        "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
        "ExponentialLR", "SequentialLR", "CosineAnnealingLR", "ChainedScheduler",
        "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR",
        "PolynomialLR"}
    for name in lr_scheduler.__all__:
        if name != "ReduceLROnPlateau":
            assert issubclass(getattr(lr_scheduler, name), lr_scheduler._LRScheduler), name
    assert not issubclass(lr_scheduler.ReduceLROnPlateau, lr_scheduler._LRScheduler)


@pytest.mark.skipif(not IS_EMBER, reason="ember's LRScheduler alias")
def test_lrscheduler_alias_and_custom_subclass():
    _require()
    assert lr_scheduler.LRScheduler is lr_scheduler._LRScheduler

    class Halving(lr_scheduler.LRScheduler):
        def get_lr(self):
            return [base_lr * 0.5 ** self.last_epoch for base_lr in self.base_lrs]

    opt = _sgd(0.8, 0.4)
    sched = Halving(opt)
    assert sched.get_last_lr() == [0.8, 0.4]
    for _ in range(3):
        opt.step()
        sched.step()
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.05]
    assert sched.base_lrs == [0.8, 0.4] and sched.last_epoch == 3


def test_not_an_optimizer():
    _require()

    class NoGroups:
        pass

    with pytest.raises(TypeError, match="NoGroups is not an Optimizer"):
        lr_scheduler.StepLR(NoGroups(), 2)
    with pytest.raises(TypeError, match="NoGroups is not an Optimizer"):
        lr_scheduler.ReduceLROnPlateau(NoGroups())


@pytest.mark.skipif(not IS_EMBER, reason="ember's duck-typed optimizer check")
def test_duck_typed_optimizer_only_without_real_optimizer_class():
    """Without ember.optim.optimizer.Optimizer any object with param_groups is accepted; with
    it, only its instances (as PyTorch 1.13)."""
    _require()

    class Duck:
        def __init__(self):
            self.param_groups = [{"params": [], "lr": 0.5}]
            self.defaults = {"lr": 0.5}

        def step(self):
            pass

    if OptimizerBase is object:
        sched = lr_scheduler.StepLR(Duck(), 1, gamma=0.5)
        sched.optimizer.step()
        sched.step()
        assert sched.get_last_lr() == [0.25]
    else:
        with pytest.raises(TypeError, match="Duck is not an Optimizer"):
            lr_scheduler.StepLR(Duck(), 1)


def test_step_wrapper_counts_and_stays_weak():
    _require()
    opt = _sgd(0.1)
    sched = lr_scheduler.StepLR(opt, 2)
    assert getattr(opt.step, "_with_counter", False)
    wrapped = opt.step
    lr_scheduler.ExponentialLR(opt, 0.9)  # a second scheduler does not wrap twice
    assert opt.step is wrapped
    assert opt._step_count == 0
    opt.step()
    opt.step()
    assert opt._step_count == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched.step()  # after optimizer.step(): no warning
    # The wrapper holds the optimizer weakly; the scheduler holds no cycle through it.
    ref_opt, ref_sched = weakref.ref(opt), weakref.ref(sched)
    del opt, sched, wrapped
    gc.collect()
    assert ref_opt() is None and ref_sched() is None


@pytest.mark.parametrize("kind", ["StepLR", "CyclicLR", "OneCycleLR", "LambdaLR"])
def test_no_reference_cycle(kind):
    """Dropping the last reference frees scheduler and optimizer at once (no gc needed)."""
    _require()
    opt = _sgd(0.1, momentum=0.9)
    make = {
        "StepLR": lambda: lr_scheduler.StepLR(opt, 3),
        "CyclicLR": lambda: lr_scheduler.CyclicLR(opt, 0.01, 0.1, step_size_up=3),
        "OneCycleLR": lambda: lr_scheduler.OneCycleLR(opt, 0.1, total_steps=10),
        "LambdaLR": lambda: lr_scheduler.LambdaLR(opt, cases.LAMBDAS["pow095"]),
    }[kind]
    sched = make()
    ref = weakref.ref(sched)
    enabled = gc.isenabled()
    gc.disable()
    try:
        del sched
        if kind == "OneCycleLR" and not IS_EMBER:
            pytest.skip("PyTorch 1.13's OneCycleLR keeps a bound method of itself")
        assert ref() is None
    finally:
        if enabled:
            gc.enable()


def _run(sched, opt, n):
    out = []
    for _ in range(n):
        opt.step()
        sched.step()
        out.append(([g["lr"] for g in opt.param_groups],
                    [g.get("momentum", g.get("betas")) for g in opt.param_groups]))
    return out


@pytest.mark.skipif(not IS_EMBER, reason="1.13's CyclicLR state_dict holds a WeakMethod")
@pytest.mark.parametrize("kind", ["CyclicLR", "CyclicLR_exp", "OneCycleLR", "OneCycleLR_adam",
                                  "MultiStepLR", "SequentialLR",
                                  "CosineAnnealingWarmRestarts"])
def test_state_dict_pickles_and_resumes(kind):
    """state_dict() goes through pickle, and a fresh scheduler that loads it (after the first
    one is gone) continues the very same schedule."""
    _require()

    def build():
        if kind == "OneCycleLR_adam":
            opt = Adam([{"params": [_param()]}], lr=0.001)
        else:
            opt = _sgd(0.1, 0.05, momentum=0.9)
        return opt, {
            "CyclicLR": lambda: lr_scheduler.CyclicLR(opt, 0.01, 0.1, step_size_up=3,
                                                      mode="triangular2"),
            "CyclicLR_exp": lambda: lr_scheduler.CyclicLR(opt, 0.01, 0.1, step_size_up=3,
                                                          mode="exp_range", gamma=0.9),
            "OneCycleLR": lambda: lr_scheduler.OneCycleLR(opt, 0.1, total_steps=30),
            "OneCycleLR_adam": lambda: lr_scheduler.OneCycleLR(opt, 0.01, total_steps=30,
                                                               three_phase=True),
            "MultiStepLR": lambda: lr_scheduler.MultiStepLR(opt, [3, 7, 7, 12]),
            "SequentialLR": lambda: lr_scheduler.SequentialLR(
                opt, [lr_scheduler.LinearLR(opt, 0.1, total_iters=4),
                      lr_scheduler.CosineAnnealingLR(opt, 10)], milestones=[4]),
            "CosineAnnealingWarmRestarts": lambda: lr_scheduler.CosineAnnealingWarmRestarts(
                opt, 4, T_mult=2),
        }[kind]()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        opt, sched = build()
        straight = _run(sched, opt, 25)

        opt, sched = build()
        first = _run(sched, opt, 11)
        blob = pickle.dumps((opt.state_dict(), sched.state_dict()))
        del opt, sched
        gc.collect()
        opt, sched = build()
        osd, ssd = pickle.loads(blob)
        opt.load_state_dict(osd)
        sched.load_state_dict(ssd)
        rest = _run(sched, opt, 14)
    assert first + rest == straight


@pytest.mark.skipif(not IS_EMBER, reason="ember's CyclicLR state_dict")
def test_cyclic_state_dict_has_no_weak_method():
    _require()
    sched = lr_scheduler.CyclicLR(_sgd(0.1, momentum=0.9), 0.01, 0.1)
    sd = sched.state_dict()
    assert "_scale_fn_ref" not in sd and "optimizer" not in sd
    assert sd["_scale_fn_custom"] is None and sd["mode"] == "triangular"


def test_lambda_state_dict_keeps_only_callable_objects():
    _require()
    obj = cases.ScaledDecay(2.0, 0.5)
    sched = lr_scheduler.LambdaLR(_sgd(0.1, 0.2), [obj, cases.LAMBDAS["pow095"]])
    sd = sched.state_dict()
    assert sd["lr_lambdas"] == [{"scale": 2.0, "decay": 0.5}, None]
    assert "optimizer" not in sd
    other = cases.ScaledDecay(1.0, 1.0)
    sched2 = lr_scheduler.LambdaLR(_sgd(0.1, 0.2), [other, cases.LAMBDAS["pow095"]])
    sched2.load_state_dict(sd)
    assert (other.scale, other.decay) == (2.0, 0.5)
    assert sd["lr_lambdas"] == [{"scale": 2.0, "decay": 0.5}, None]  # left as it was


def test_plateau_takes_a_tensor_metric():
    _require()
    opt = _sgd(0.1)
    sched = lr_scheduler.ReduceLROnPlateau(opt, patience=0, factor=0.5)
    for value in (1.0, 1.0, 1.0):
        sched.step(ROOT.tensor(value))
    assert opt.param_groups[0]["lr"] == 0.025 and sched._last_lr == [0.025]
    assert sched.best == 1.0 and type(sched.best) is float


def test_schedules_drive_real_updates():
    """The optimizer reads the group's lr at every step: with a gradient, plain SGD moves each
    parameter by exactly lr * grad, whatever the scheduler set."""
    _require()
    if REAL is None:
        pytest.skip("needs %s.optim.SGD (the stand-in does not update parameters)" % MODULE_NAME)
    p = ROOT.zeros(1, requires_grad=True)
    opt = SGD([p], lr=0.5)
    sched = lr_scheduler.StepLR(opt, 1, gamma=0.5)
    seen = []
    for _ in range(4):
        before = p.detach().clone()
        p.grad = ROOT.ones(1)
        opt.step()
        seen.append(float((before - p.detach())[0]))
        sched.step()
    assert seen == [0.5, 0.25, 0.125, 0.0625]


def test_constants_match_1_13():
    _require()
    assert lr_scheduler.EPOCH_DEPRECATION_WARNING.startswith(
        "The epoch parameter in `scheduler.step()` was not necessary")
    sched = lr_scheduler.ReduceLROnPlateau(_sgd(0.1), mode="max")
    assert sched.best == -math.inf
