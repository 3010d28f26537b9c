"""torch.autograd.graph.saved_tensors_hooks and save_on_cpu: every tensor autograd saves inside
the region goes through pack, backward gets unpack(packed) back; errors in either hook reach the
caller with their own type; regions nest and end with the block."""
import pytest

import ember as torch
from ember.autograd.graph import save_on_cpu, saved_tensors_hooks


def test_pack_and_unpack_see_every_saved_tensor():
    calls = []

    def pack(t):
        calls.append(("pack", tuple(t.shape)))
        return {"copy": t.clone()}  # any object may stand in for the tensor

    def unpack(box):
        calls.append(("unpack",))
        return box["copy"]

    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    with saved_tensors_hooks(pack, unpack):
        y = (x * x).sum()  # mul saves both operands
    assert calls == [("pack", (3,)), ("pack", (3,))]
    y.backward()
    assert calls[2:] == [("unpack",), ("unpack",)]
    assert torch.allclose(x.grad, 2 * x)
    calls.clear()
    (x * x).sum()
    assert calls == []  # the region ended with the block


def test_unpack_may_return_another_tensor():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    with saved_tensors_hooks(lambda t: None, lambda _: torch.tensor([10.0, 10.0])):
        y = (x * torch.tensor([3.0, 4.0])).sum()
    y.backward()  # d/dx of x*w uses the saved w: the unpacked one
    assert x.grad.tolist() == [10.0, 10.0]


def test_regions_nest_innermost_applies():
    seen = []
    x = torch.randn(2, requires_grad=True)
    with saved_tensors_hooks(lambda t: seen.append("outer") or t, lambda t: t):
        with saved_tensors_hooks(lambda t: seen.append("inner") or t, lambda t: t):
            x.exp()
        x.exp()
    assert seen == ["inner", "outer"]


def test_hook_errors_reach_the_caller():
    x = torch.randn(3, requires_grad=True)

    def bad_pack(t):
        raise ValueError("pack failed")

    with pytest.raises(ValueError, match="pack failed"):
        with saved_tensors_hooks(bad_pack, lambda t: t):
            (x * x).sum()
    (x * x).sum().backward()  # the failed region was closed

    def bad_unpack(t):
        raise KeyError("unpack failed")

    with saved_tensors_hooks(lambda t: t, bad_unpack):
        y = (x * x).sum()
    with pytest.raises(KeyError, match="unpack failed"):
        y.backward()
    with saved_tensors_hooks(lambda t: t, lambda t: 3):
        y = (x * x).sum()
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor"):
        y.backward()
    with pytest.raises(TypeError, match="callables"):
        with saved_tensors_hooks(1, 2):
            pass


def test_save_on_cpu_gives_the_same_gradients():
    x = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
    with save_on_cpu():
        (x @ w).tanh().sum().backward()
    gx, gw = x.grad.clone(), w.grad.clone()
    x.grad = w.grad = None
    (x @ w).tanh().sum().backward()
    assert torch.equal(gx, x.grad) and torch.equal(gw, w.grad)
