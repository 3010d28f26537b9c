"""Argument helpers of the layers (torch.nn.modules.utils)."""
import collections.abc
from itertools import repeat

from ... import _C


def _ntuple(n, name="parse"):
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n):
    """(1, 2) with n=2 -> (2, 2, 1, 1): F.pad's order from a padding tuple."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _empty(shape, device=None, dtype=None):
    """torch.empty(shape, device=device, dtype=dtype) leaving out the arguments that are None."""
    kw = {}
    if device is not None:
        kw["device"] = device
    if dtype is not None:
        kw["dtype"] = dtype
    return _C.empty(shape, **kw)


def _factory(fn, shape, device=None, dtype=None):
    kw = {}
    if device is not None:
        kw["device"] = device
    if dtype is not None:
        kw["dtype"] = dtype
    return fn(shape, **kw)
