"""Autograd driven from Python: exceptions in hooks and Functions reach the caller with their
own class and traceback, custom Functions' ctx features, grad modes as decorators, and the GIL
released around long kernels and backward."""
import threading
import traceback

import pytest

import ember as torch


class HookFailed(Exception):
    pass


def test_exception_in_a_hook_propagates_with_its_traceback():
    x = torch.ones(3, requires_grad=True)

    def bad_hook(g):
        raise HookFailed("from the hook")

    x.register_hook(bad_hook)
    with pytest.raises(HookFailed, match="from the hook") as info:
        (x * 2).sum().backward()
    assert "bad_hook" in "".join(traceback.format_tb(info.tb))
    # The graph and ember are still usable afterwards.
    y = torch.ones(2, requires_grad=True)
    (y * 3).sum().backward()
    assert y.grad.tolist() == [3.0, 3.0]


def test_exception_in_function_backward_propagates():
    class Broken(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.clone()

        @staticmethod
        def backward(ctx, g):
            raise ValueError("backward says no")

    x = torch.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="backward says no"):
        Broken.apply(x).sum().backward()


def test_function_ctx_features():
    class MulConst(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, k, y):
            ctx.k = k
            ctx.save_for_backward(x, y)
            out = x * y * k
            idx = out.argmax()
            ctx.mark_non_differentiable(idx)
            return out, idx

        @staticmethod
        @torch.autograd.function.once_differentiable
        def backward(ctx, g, g_idx):
            x, y = ctx.saved_tensors
            assert ctx.needs_input_grad == (True, False, False)
            assert not torch.is_grad_enabled()
            return g * y * ctx.k, None, None

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = torch.tensor([3.0, 4.0])
    out, idx = MulConst.apply(x, 2.0, y)
    assert type(out.grad_fn).__name__ == "MulConstBackward" and not idx.requires_grad
    out.sum().backward()
    assert x.grad.tolist() == [6.0, 8.0]


def test_function_mark_dirty_and_saved_output():
    class ExpInPlace(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.exp_()
            ctx.mark_dirty(x)
            ctx.save_for_backward(x)  # the output itself
            return x

        @staticmethod
        def backward(ctx, g):
            (out,) = ctx.saved_tensors
            return g * out

    a = torch.tensor([0.0, 1.0], requires_grad=True)
    b = a * 1
    c = ExpInPlace.apply(b)
    assert c is b and type(c.grad_fn).__name__ == "ExpInPlaceBackward"
    c.sum().backward()
    assert a.grad.allclose(torch.tensor([1.0, 2.718281828]))


def test_modifying_a_saved_tensor_is_detected():
    class Id(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g

    x = torch.ones(2, requires_grad=True)
    h = x * 1
    y = Id.apply(h)
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_grad_mode_decorators_and_set_grad_enabled():
    @torch.no_grad()
    def f(x):
        return x * 2

    @torch.enable_grad()
    def g(x):
        return x * 2

    x = torch.ones(2, requires_grad=True)
    assert not f(x).requires_grad
    with torch.no_grad():
        assert g(x).requires_grad
    torch.set_grad_enabled(False)
    assert not torch.is_grad_enabled()
    torch.set_grad_enabled(True)
    with torch.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert torch.is_grad_enabled()
    with torch.inference_mode():
        assert torch.is_inference_mode_enabled()
    with torch.autograd.set_detect_anomaly(True):
        assert torch.is_anomaly_enabled()
    assert not torch.is_anomaly_enabled()


def test_grad_identity_and_assignment():
    x = torch.ones(3, requires_grad=True)
    (x * 2).sum().backward()
    assert x.grad is x.grad  # one Python object per tensor
    g = x.grad
    g.zero_()
    assert x.grad.tolist() == [0.0, 0.0, 0.0]
    x.grad = None
    assert x.grad is None
    with pytest.raises(RuntimeError, match="different size"):
        x.grad = torch.ones(2)
    x.foo = "attribute"  # Python attributes stay with the tensor object
    assert x.foo == "attribute"


def test_a_long_kernel_releases_the_gil():
    a = torch.randn(2048, 2048)
    counter = [0]
    stop = threading.Event()
    started = threading.Event()

    def spin():
        started.set()
        while not stop.is_set():
            counter[0] += 1

    th = threading.Thread(target=spin)
    th.start()
    started.wait()
    try:
        progressed = False
        for _ in range(3):  # the other thread must run while the product runs
            before = counter[0]
            a @ a
            if counter[0] != before:
                progressed = True
                break
    finally:
        stop.set()
        th.join()
    assert progressed


def test_backward_releases_the_gil_and_hooks_take_it():
    x = torch.randn(512, 512, requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(threading.get_ident()) or g)
    (x @ x).sum().backward()
    assert seen == [threading.get_ident()]


def test_gradcheck_from_python():
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: (t.exp() * t).sum(1), (x,))
    assert torch.autograd.gradgradcheck(lambda t: (t ** 3).sum(), (x,))

    class WrongGrad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            return t * 2

        @staticmethod
        def backward(ctx, g):
            return g * 3  # wrong on purpose

    with pytest.raises(RuntimeError):
        torch.autograd.gradcheck(WrongGrad.apply, (x,))
    assert torch.autograd.gradcheck(WrongGrad.apply, (x,), raise_exception=False) is False


def test_linalg_vector_norm_and_more_functions():
    x = torch.tensor([[3.0, -4.0], [0.0, 1.0]])
    assert torch.linalg.vector_norm(x).item() == pytest.approx(26 ** 0.5)
    assert torch.linalg.vector_norm(x, ord=float("inf"), dim=1).tolist() == [4.0, 1.0]
    assert torch.fliplr(x).tolist() == [[-4.0, 3.0], [1.0, 0.0]]
    assert torch.nanmedian(torch.tensor([1.0, float("nan"), 3.0, 2.0])).item() == 2.0
