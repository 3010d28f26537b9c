"""nn.RMSNorm / F.rms_norm and nn.SyncBatchNorm, the normalisation layers whose forward has no
PyTorch 1.13 golden data (1.13 has no RMSNorm; its SyncBatchNorm runs on GPUs only); their
construction and convert_sync_batchnorm are golden cases in golden/nn/cases.py.

RMSNorm follows later PyTorch's API and is checked against its formula in float64 and by
gradcheck of the C++ kernel's gradients. SyncBatchNorm on 2 ranks (each with part of the batch)
must give what BatchNorm gives in one process on the whole batch: outputs, input and parameter
gradients, running statistics, and a DDP training step of a converted model."""
import json
import os
import textwrap

import pytest

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
from test_distributed import run_two_ranks

BUILD = os.environ.get("EMBER_BUILD_DIR")
needs_build = pytest.mark.skipif(not BUILD, reason="EMBER_BUILD_DIR (set by CTest's python_tests) names the build with ember-run")


# ── RMSNorm ──────────────────────────────────────────────────────────────────
def rms_reference(x, dims, weight, eps):
    """x / sqrt(mean(x^2 over the last `dims` dims) + eps) * weight, written out."""
    axes = tuple(range(x.dim() - dims, x.dim()))
    out = x / (x.pow(2).mean(axes, keepdim=True) + eps).sqrt()
    return out if weight is None else out * weight


def test_rmsnorm_construction_as_later_pytorch():
    m = nn.RMSNorm(4)
    assert repr(m) == "RMSNorm((4,), eps=None, elementwise_affine=True)"
    assert list(m.state_dict()) == ["weight"] and m.weight.tolist() == [1.0] * 4
    assert m.weight.requires_grad and isinstance(m.weight, nn.Parameter)
    m = nn.RMSNorm([2, 3], eps=1e-3, elementwise_affine=False, dtype=torch.float64)
    assert repr(m) == "RMSNorm((2, 3), eps=0.001, elementwise_affine=False)"
    assert m.weight is None and list(m.state_dict()) == [] and list(m.parameters()) == []
    assert nn.RMSNorm(3, dtype=torch.float64).weight.dtype == torch.float64


@pytest.mark.parametrize("shape,normalized,eps", [
    ((3, 5), (5,), None), ((2, 3, 4), (3, 4), 1e-2), ((4,), (4,), 1e-6), ((2, 0, 3), (3,), None),
])
def test_rmsnorm_forward_is_the_formula_in_float64(shape, normalized, eps):
    torch.manual_seed(0)
    x = torch.randn(*shape, dtype=torch.float64)
    w = torch.randn(*normalized, dtype=torch.float64)
    want_eps = torch.finfo(torch.float64).eps if eps is None else eps  # None: the dtype's epsilon
    m = nn.RMSNorm(normalized, eps=eps, dtype=torch.float64)
    with torch.no_grad():
        m.weight.copy_(w)
    for got in (m(x), F.rms_norm(x, normalized, w, eps)):
        assert got.shape == x.shape and got.dtype == torch.float64
        assert torch.allclose(got, rms_reference(x, len(normalized), w, want_eps), rtol=1e-13, atol=1e-14)
    no_affine = F.rms_norm(x, list(normalized), eps=eps)
    assert torch.allclose(no_affine, rms_reference(x, len(normalized), None, want_eps), rtol=1e-13, atol=1e-14)


def test_rmsnorm_float32_uses_float32_epsilon():
    torch.manual_seed(1)
    x = torch.randn(4, 6) * 1e-4  # small values: eps matters
    got = nn.RMSNorm(6)(x)
    want = rms_reference(x.double(), 1, None, torch.finfo(torch.float32).eps)
    assert got.dtype == torch.float32
    assert torch.allclose(got.double(), want, rtol=1e-5, atol=1e-6)


def test_rmsnorm_gradients_by_gradcheck():
    torch.manual_seed(2)
    x = torch.randn(3, 2, 4, dtype=torch.float64, requires_grad=True)
    w = torch.randn(2, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda a, b: F.rms_norm(a, (2, 4), b, 1e-3), (x, w))
    assert torch.autograd.gradcheck(lambda a: F.rms_norm(a, (4,)), (x,))
    # The module's gradients are the formula's (autograd through the written-out ops).
    m = nn.RMSNorm((2, 4), eps=1e-3, dtype=torch.float64)
    g = torch.randn(3, 2, 4, dtype=torch.float64)
    gx, gw = torch.autograd.grad((m(x) * g).sum(), (x, m.weight))
    rx, rw = torch.autograd.grad((rms_reference(x, 2, m.weight, 1e-3) * g).sum(), (x, m.weight))
    assert torch.allclose(gx, rx, rtol=1e-12, atol=1e-13) and torch.allclose(gw, rw, rtol=1e-12, atol=1e-13)


def test_rmsnorm_shape_errors():
    x = torch.randn(3, 4)
    with pytest.raises(RuntimeError, match="expected input with shape"):
        F.rms_norm(x, (3,))
    with pytest.raises(RuntimeError, match="weight"):
        F.rms_norm(x, (4,), torch.ones(3))
    with pytest.raises(RuntimeError, match="expected input with shape"):
        nn.RMSNorm(5)(x)


# ── SyncBatchNorm in one process ─────────────────────────────────────────────
def test_sync_batchnorm_outside_a_process_group():
    torch.manual_seed(3)
    x = torch.randn(4, 3, 5)
    bn, sbn = nn.BatchNorm1d(3), nn.SyncBatchNorm(3)
    # Training needs the group's size: PyTorch 1.13's RuntimeError from get_world_size.
    with pytest.raises(RuntimeError, match="not initialized"):
        sbn(x)
    # Eval uses the running statistics, locally: BatchNorm's result, no group needed.
    bn.eval()
    sbn.eval()
    assert sbn(x).equal(bn(x))
    # Untracked statistics in eval normalise with the local batch, as BatchNorm does.
    bn, sbn = nn.BatchNorm1d(3, track_running_stats=False).eval(), nn.SyncBatchNorm(3, track_running_stats=False).eval()
    assert sbn(x).equal(bn(x))


def test_sync_batchnorm_accepts_cpu_input():
    # Deviation: PyTorch 1.13 raises ValueError("SyncBatchNorm expected input tensor to be on
    # GPU") for any CPU input; ember's collectives (Gloo) run on CPU tensors, so it normalises.
    sbn = nn.SyncBatchNorm(2).eval()
    assert sbn(torch.ones(3, 2, 4)).shape == (3, 2, 4)


def test_sync_batchnorm_input_checks():
    sbn = nn.SyncBatchNorm(3)
    with pytest.raises(ValueError, match=r"expected at least 2D input \(got 1D input\)"):
        sbn(torch.randn(3))
    with pytest.raises(ValueError, match="number of input channels should be non-zero"):
        nn.SyncBatchNorm(0)(torch.randn(2, 0, 4))


# ── SyncBatchNorm on 2 ranks ─────────────────────────────────────────────────
SYNC_PROGRAM = textwrap.dedent("""
    import copy, datetime, json, torch, torch.nn as nn, torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
    r, w = dist.get_rank(), dist.get_world_size()
    mine = [slice(0, 3), slice(3, 8)][r]   # uneven parts of a batch of 8
    diffs = {}

    def gap(a, b):
        return (a - b).abs().max().item() if a.numel() else 0.0

    def summed(t):  # a parameter's gradient over the whole batch: the ranks' parts added
        t = t.clone()
        dist.all_reduce(t)
        return t

    def compare(name, make_ref, make_sync, shape, group=None, steps=3):
        torch.manual_seed(0)
        ref, sync = make_ref().double(), make_sync().double()
        if sync.affine:
            with torch.no_grad():
                for m in (ref, sync):
                    m.weight.copy_(torch.linspace(0.5, 2.0, shape[1], dtype=torch.float64))
                    m.bias.copy_(torch.linspace(-1.0, 1.0, shape[1], dtype=torch.float64))
        worst = 0.0
        for step in range(steps):
            x = (torch.randn(*shape, dtype=torch.float64) * (step + 1) + step).requires_grad_()
            gy = torch.randn(*shape, dtype=torch.float64)
            xs = x.detach()[mine].clone().requires_grad_()
            out_ref, out_sync = ref(x), sync(xs)
            (out_ref * gy).sum().backward()
            (out_sync * gy[mine]).sum().backward()
            worst = max(worst, gap(out_sync, out_ref[mine]), gap(xs.grad, x.grad[mine]))
            if sync.affine:
                worst = max(worst, gap(summed(sync.weight.grad), ref.weight.grad),
                            gap(summed(sync.bias.grad), ref.bias.grad))
                for m in (ref, sync):
                    m.weight.grad = None
                    m.bias.grad = None
        for a, b in zip(sync.buffers(), ref.buffers()):
            worst = max(worst, gap(a.double(), b.double()))
        ref.eval()
        sync.eval()
        x = torch.randn(*shape, dtype=torch.float64)
        # Eval is local: running statistics, or (untracked) the local batch's, as in PyTorch.
        worst = max(worst, gap(sync(x[mine]), ref(x[mine])))
        diffs[name] = worst

    sub = dist.new_group([0, 1])
    compare("2d", lambda: nn.BatchNorm2d(3), lambda: nn.SyncBatchNorm(3), (8, 3, 5, 4))
    compare("3d cumulative", lambda: nn.BatchNorm1d(4, momentum=None, eps=1e-3),
            lambda: nn.SyncBatchNorm(4, momentum=None, eps=1e-3, process_group=sub), (8, 4, 6))
    compare("2-dim no affine", lambda: nn.BatchNorm1d(5, affine=False), lambda: nn.SyncBatchNorm(5, affine=False), (8, 5))
    compare("untracked", lambda: nn.BatchNorm1d(2, track_running_stats=False),
            lambda: nn.SyncBatchNorm(2, track_running_stats=False), (8, 2, 3))

    # A group of one rank, and a group this rank is not in (PyTorch's world size -1): BatchNorm
    # over the local batch, bit for bit.
    groups = [dist.new_group([0]), dist.new_group([1])]
    solo_same = True
    for group in (groups[r], groups[1 - r]):
        torch.manual_seed(5)
        x = torch.randn(4, 3, 2, 2, dtype=torch.float64)
        bn, sbn = nn.BatchNorm2d(3).double(), nn.SyncBatchNorm(3, process_group=group).double()
        solo_same = solo_same and bn(x).equal(sbn(x)) and bn.running_var.equal(sbn.running_var)

    # convert_sync_batchnorm + DDP: 2 SGD steps equal one process on the whole batch.
    torch.manual_seed(1)
    model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 3 * 2, 2)).double()
    reference = copy.deepcopy(model)
    ddp = DDP(nn.SyncBatchNorm.convert_sync_batchnorm(model))
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.1)
    torch.manual_seed(2)
    x, y = torch.randn(8, 3, 5, 4, dtype=torch.float64), torch.randn(8, 2, dtype=torch.float64)
    for step in range(2):
        opt.zero_grad()
        # DDP averages the ranks' gradients: each rank's share of the global mean, times w.
        (((ddp(x[mine]) - y[mine]) ** 2).sum() * w / 8).backward()
        opt.step()
        ref_opt.zero_grad()
        ((reference(x) - y) ** 2).sum().div(8).backward()
        ref_opt.step()
    ddp_gap = max(gap(a, b) for a, b in zip(model.state_dict().values(), reference.state_dict().values())
                  if a.is_floating_point())
    same_tracked = model[1].num_batches_tracked.item() == reference[1].num_batches_tracked.item() == 2
    with open("sync%d.json" % r, "w") as f:
        json.dump({"diffs": diffs, "solo": solo_same, "ddp": ddp_gap, "tracked": same_tracked,
                   "kind": type(model[1]).__name__}, f)
    dist.destroy_process_group()
""")


@needs_build
def test_sync_batchnorm_on_two_ranks_equals_batchnorm_on_the_whole_batch(tmp_path):
    r = run_two_ranks(tmp_path, "sync.py", SYNC_PROGRAM)
    assert r.returncode == 0, r.stdout + r.stderr
    for rank in range(2):
        res = json.loads((tmp_path / ("sync%d.json" % rank)).read_text())
        assert set(res["diffs"]) == {"2d", "3d cumulative", "2-dim no affine", "untracked"}
        for name, d in res["diffs"].items():
            assert d < 1e-12, (rank, name, d)
        assert res["solo"] and res["tracked"] and res["kind"] == "SyncBatchNorm"
        assert res["ddp"] < 1e-12, (rank, res["ddp"])


def test_convert_sync_batchnorm_keeps_parameters_buffers_and_keys():
    torch.manual_seed(4)
    model = nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.ReLU(),
                          nn.Sequential(nn.Flatten(), nn.BatchNorm1d(12, affine=False, momentum=None)))
    model(torch.randn(4, 2, 4, 4))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    objects = {k: v for k, v in model.state_dict(keep_vars=True).items()}
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(model, process_group=None)
    after = converted.state_dict(keep_vars=True)
    assert list(after) == list(before)
    assert all(after[k] is objects[k] for k in after)  # the same Parameter and buffer objects
    assert all(after[k].equal(before[k]) for k in after)
    assert isinstance(converted[1], nn.SyncBatchNorm) and isinstance(converted[3][1], nn.SyncBatchNorm)
    assert converted[3][1].momentum is None and converted[3][1].affine is False
    assert converted[1].process_group is None
    assert [type(m).__name__ for m in converted.modules()].count("SyncBatchNorm") == 2
    # A state_dict saved before the conversion loads into the converted model.
    assert repr(converted.load_state_dict(before)) == "<All keys matched successfully>"


def test_pickled_torch_layers_are_found_by_name():
    # PyTorch pickles TransformerDecoderLayer as torch.nn.modules.transformer's; ember keeps it
    # in transformer_decoder.py, and SyncBatchNorm in sync_batchnorm.py.
    from ember._unpickle import _torch_name

    assert _torch_name("torch.nn.modules.transformer", "TransformerDecoderLayer") is nn.TransformerDecoderLayer
    assert _torch_name("torch.nn.modules.transformer", "Transformer") is nn.Transformer
    assert _torch_name("torch.nn.modules.batchnorm", "SyncBatchNorm") is nn.SyncBatchNorm
    assert _torch_name("torch.nn.modules.normalization", "RMSNorm") is nn.RMSNorm
    with pytest.raises(Exception, match="not in ember"):
        _torch_name("torch.nn.modules.transformer", "NoSuchLayer")
