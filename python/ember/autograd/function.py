"""Custom autograd Functions: a subclass with static ``forward(ctx, *args)`` and
``backward(ctx, *grads)``; ``apply`` runs forward without recording and records one node whose
backward the C++ engine calls (src: python/src/autograd.cpp)."""
import functools

from .. import _C
from .grad_mode import no_grad


class FunctionCtx:
    """The ``ctx`` of forward and backward: what forward saves for backward."""

    materialize_grads = True

    def save_for_backward(self, *tensors):
        for t in tensors:
            if t is not None and not isinstance(t, _C.Tensor):
                raise TypeError("save_for_backward can only save variables, but argument %d is of "
                                "type %s" % (tensors.index(t), type(t).__name__))
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        raise RuntimeError("save_for_forward (forward-mode AD) is not in ember")

    def mark_dirty(self, *tensors):
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_differentiable = tensors

    def set_materialize_grads(self, value):
        self.materialize_grads = bool(value)

    @property
    def saved_tensors(self):
        saved = getattr(self, "_saved", None)
        if saved is None:
            if getattr(self, "to_save", None) is not None:
                return tuple(self.to_save)
            raise RuntimeError("Trying to backward through the graph a second time (or directly "
                               "access saved tensors after they have already been freed). Saved "
                               "intermediate values of the graph are freed when you call "
                               ".backward() or autograd.grad(). Specify retain_graph=True if you "
                               "need to backward through the graph a second time or if you need "
                               "to access saved tensors after calling backward.")
        return saved

    saved_variables = saved_tensors


class Function:
    """Base class of custom autograd Functions (torch.autograd.Function)."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. "
                           "Please use new-style autograd function with static forward method. "
                           "(Example: https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your "
                                  "custom autograd.Function to use it with backward mode AD.")

    vjp = backward

    @classmethod
    def apply(cls, *args):
        return _C._function_apply(cls, FunctionCtx(), *args)


def once_differentiable(fn):
    """Marks a backward that is not itself differentiable: it runs without recording."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)
    return wrapper
