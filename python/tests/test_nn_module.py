"""ember.nn behaviour that the golden cases cannot encode: module files written by PyTorch 1.13
(python/tests/golden/nn/files, made by golden/nn/generate.py), save/load round trips, copying and
pickling modules, the import paths, and where ember.nn deliberately differs from PyTorch."""
import copy
import io
import math
import pathlib
import pickle

import pytest

import ember as torch
import ember.nn as nn
import ember.nn.functional as F

FILES = pathlib.Path(__file__).resolve().parent / "golden" / "nn" / "files"


def file_model():
    """The model of golden/nn/generate.py's FILE_MODEL, seeded the same way."""
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.ReLU(), nn.Flatten(),
                         nn.Linear(12, 2))


def assert_close(a, b, tol=1e-5):
    assert tuple(a.shape) == tuple(b.shape)
    assert torch.allclose(a, b, rtol=tol, atol=tol), (a, b)


def test_namespace():
    assert torch.nn is nn and nn.functional is F and nn.init is torch.nn.init
    assert nn.Module.__name__ == "Module" and nn.modules.Module is nn.Module
    assert nn.utils.clip_grad_norm_ is nn.utils.clip_grad.clip_grad_norm_
    for name in nn.__all__:
        assert hasattr(nn, name), name


def test_parameter_is_a_tensor_subclass():
    p = nn.Parameter(torch.ones(2, 3))
    assert isinstance(p, torch.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf
    assert type(p * 2) is torch.Tensor and type(p.detach()) is torch.Tensor
    assert repr(p).startswith("Parameter containing:\ntensor([[1., 1., 1.],")
    with pytest.raises(TypeError):
        nn.Parameter([1.0, 2.0])


def test_loads_a_pytorch_state_dict_file():
    saved = torch.load(FILES / "torch_state_dict.pt", weights_only=True)
    model = file_model()
    result = model.load_state_dict(saved["state_dict"])
    assert repr(result) == "<All keys matched successfully>"
    assert list(model.state_dict()) == list(saved["state_dict"])
    assert model[1].num_batches_tracked.item() == 2
    model.eval()
    with torch.no_grad():
        assert_close(model(saved["input"]), saved["output"])


def test_reproduces_the_pytorch_model_from_the_seed():
    # Same seed, same initialisation, same two BatchNorm updates: the file's state exactly.
    saved = torch.load(FILES / "torch_state_dict.pt", weights_only=True)
    model = file_model()
    x = torch.randn(2, 2, 4, 4)
    assert_close(x, saved["input"], 0)
    model(x)
    model(x * 2)
    for k, v in model.state_dict().items():
        ref = saved["state_dict"][k]
        if v.is_floating_point():
            assert_close(v, ref)
        else:
            assert torch.equal(v, ref), k


def test_loads_a_pickled_pytorch_module():
    saved = torch.load(FILES / "torch_module.pt", weights_only=False)
    module = saved["module"]
    assert isinstance(module, nn.Sequential) and isinstance(module[0], nn.Conv2d)
    assert [n for n, _ in module.named_parameters()] == [n for n, _ in file_model().named_parameters()]
    assert not module.training
    assert repr(module) == repr(file_model())
    with torch.no_grad():
        assert_close(module(saved["input"]), saved["output"])


def test_state_dict_round_trip_through_ember_save(tmp_path):
    model = file_model()
    model(torch.randn(2, 2, 4, 4))
    torch.save(model.state_dict(), tmp_path / "sd.pt")
    sd = torch.load(tmp_path / "sd.pt", weights_only=True)
    assert list(sd) == list(model.state_dict())
    assert dict(sd._metadata) == dict(model.state_dict()._metadata)
    torch.manual_seed(5)
    other = nn.Sequential(nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.ReLU(), nn.Flatten(),
                          nn.Linear(12, 2))
    assert repr(other.load_state_dict(sd)) == "<All keys matched successfully>"
    x = torch.randn(3, 2, 4, 4)
    model.eval()
    other.eval()
    assert torch.equal(model(x), other(x))
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    buf.seek(0)
    assert list(torch.load(buf)) == list(sd)


def test_deepcopy_and_pickle_of_modules():
    model = file_model()
    handle = model[0].register_forward_hook(lambda *a: None)
    clone = copy.deepcopy(model)
    assert type(clone[0].weight) is nn.Parameter and clone[0].weight is not model[0].weight
    assert torch.equal(clone[0].weight, model[0].weight)
    assert len(clone[0]._forward_hooks) == 1
    clone[0].weight.data.fill_(1.0)
    assert not torch.equal(clone[0].weight, model[0].weight)
    handle.remove()
    back = pickle.loads(pickle.dumps(model))
    assert type(back[4].bias) is nn.Parameter and back[4].bias.requires_grad
    x = torch.randn(1, 2, 4, 4)
    model.eval()
    back.eval()
    assert torch.equal(back(x), model(x))


def test_module_to_keeps_parameter_objects_and_converts_grads():
    lin = nn.Linear(3, 2)
    w = lin.weight
    lin(torch.randn(4, 3)).sum().backward()
    g = w.grad
    lin.double()
    assert lin.weight is w and w.dtype == torch.float64 and w.grad is g and g.dtype == torch.float64
    lin.to(torch.float32)
    assert lin.weight is w and w.dtype == torch.float32 and w.grad.dtype == torch.float32
    out = lin(torch.randn(2, 3))
    out.sum().backward()  # the grad accumulates into the converted one
    assert w.grad.dtype == torch.float32


def test_handles_remove_once_and_work_as_context_managers():
    lin = nn.Linear(2, 2)
    calls = []
    with lin.register_forward_hook(lambda m, i, o: calls.append(1)):
        lin(torch.ones(2))
    lin(torch.ones(2))
    h = lin.register_forward_pre_hook(lambda m, i: calls.append(2))
    h.remove()
    h.remove()
    lin(torch.ones(2))
    assert calls == [1] and not lin._forward_hooks and not lin._forward_pre_hooks


def test_full_backward_hook_sees_pytorchs_gradients():
    torch.manual_seed(0)
    lin = nn.Linear(3, 2)
    seen = {}

    def hook(module, grad_input, grad_output):
        seen["in"], seen["out"] = grad_input, grad_output

    lin.register_full_backward_hook(hook)
    x = torch.randn(4, 3, requires_grad=True)
    y = lin(x)
    assert y.grad_fn is not None
    (y * y).sum().backward()
    assert_close(seen["out"][0], 2 * y.detach())
    assert_close(seen["in"][0], x.grad)
    assert_close(x.grad, (2 * y.detach()) @ lin.weight.detach())


def test_orthogonal_init_is_orthogonal():
    w = nn.init.orthogonal_(torch.empty(6, 4))
    assert_close(w.t() @ w, torch.eye(4), 1e-5)
    w = nn.init.orthogonal_(torch.empty(3, 5), gain=2.0)
    assert_close(w @ w.t(), 4 * torch.eye(3), 1e-5)


def test_trunc_normal_stays_in_bounds():
    w = nn.init.trunc_normal_(torch.empty(2000), mean=0.0, std=1.0, a=-0.5, b=0.7)
    assert w.min().item() >= -0.5 and w.max().item() <= 0.7
    assert abs(w.mean().item() - 0.07) < 0.05


def test_clip_grad_norm_returns_the_norm_before_clipping():
    p = nn.Parameter(torch.zeros(2))
    p.grad = torch.tensor([3.0, 4.0])
    total = nn.utils.clip_grad_norm_([p], max_norm=1.0)
    assert math.isclose(total.item(), 5.0, rel_tol=1e-6)
    assert math.isclose(p.grad.norm().item(), 1.0, rel_tol=1e-5)
    assert nn.utils.clip_grad_norm_([nn.Parameter(torch.ones(1))], 1.0).item() == 0.0


# ── where ember.nn differs from PyTorch 1.13 ──
def test_deprecated_non_full_backward_hook_is_not_in_ember():
    # PyTorch 1.13's register_backward_hook hooks the last autograd node of forward and gives
    # wrong grad_input for most modules (it warns so); ember only has the full hook.
    lin = nn.Linear(2, 2)
    with pytest.raises(RuntimeError, match="register_full_backward_hook"):
        lin.register_backward_hook(lambda m, gi, go: None)
    with pytest.raises(RuntimeError, match="register_module_full_backward_hook"):
        nn.modules.module.register_module_backward_hook(lambda m, gi, go: None)


def test_global_full_backward_hook():
    lin = nn.Linear(2, 2)
    seen = []
    h = nn.modules.module.register_module_full_backward_hook(
        lambda m, gi, go: seen.append(type(m).__name__))
    try:
        lin(torch.ones(1, 2, requires_grad=True)).sum().backward()
    finally:
        h.remove()
    lin(torch.ones(1, 2, requires_grad=True)).sum().backward()
    assert seen == ["Linear"]
