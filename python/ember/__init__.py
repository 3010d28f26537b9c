"""ember: PyTorch's Python API over ember's C++ core.

``import ember as torch`` gives tensors, every op, indexing, autograd and save/load with
PyTorch's names and semantics; ``ember-python prog.py`` runs a program that says ``import torch``
on ember unchanged (see ember.compat).
"""
import builtins as _builtins

from . import _C
from ._C import *  # noqa: F401,F403  (Tensor, dtypes, device, factories, ops)
from ._C import Tensor, dtype, device, Generator  # noqa: F401


class Size(tuple):
    """A tensor's shape: a tuple of ints that prints as PyTorch's ``torch.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self):
        return "torch.Size([" + ", ".join(str(s) for s in self) + "])"

    __str__ = __repr__

    def __getitem__(self, key):
        r = tuple.__getitem__(self, key)
        return Size(r) if isinstance(key, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __reduce__(self):
        return (Size, (tuple(self),))


_C._set_size_type(Size)

# PyTorch's other names for the dtypes.
float = float32  # noqa: A001,F405
double = float64  # noqa: F405
half = float16  # noqa: F405
long = int64  # noqa: F405
int = int32  # noqa: A001,F405
short = int16  # noqa: F405
cfloat = None  # complex types are not in ember; kept out of __all__ below
del cfloat
strided = "torch.strided"  # the one layout


def is_tensor(obj):
    """True when obj is an ember tensor (torch.is_tensor)."""
    return isinstance(obj, Tensor)


def numel(input):
    return input.numel()


def get_rng_state():
    """The default generator's state as a uint8 tensor (PyTorch's layout: states move between
    ember and PyTorch)."""
    return _C._get_rng_state()


def set_rng_state(new_state):
    _C._set_rng_state(new_state)


def can_cast(from_, to):
    """Whether PyTorch's same-kind casting allows from_ -> to: no float to integer, nothing
    but bool to bool."""
    if from_.is_floating_point and not to.is_floating_point:
        return False
    if from_ is not _C.bool and to is _C.bool:
        return False
    return True


from ._finfo import finfo, iinfo  # noqa: E402,F401
from . import _tensor_extras  # noqa: E402,F401  (pickling, deepcopy)
from . import return_types  # noqa: E402,F401
from . import autograd  # noqa: E402,F401
from .autograd.grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode  # noqa: E402,F401
from .serialization import save, load  # noqa: E402,F401
from . import utils  # noqa: E402,F401
from . import cuda  # noqa: E402,F401
from . import linalg  # noqa: E402,F401
from ._rnn_ops import *  # noqa: E402,F401,F403  (torch.lstm, torch.gru_cell, ...)

__version__ = "0.1.0"


# Subpackages imported at first use (import ember stays fast): ember.nn, ember.optim, ...
_SUBPACKAGES = {"nn", "optim", "amp", "profiler", "distributed"}


def autocast(device_type, dtype=None, enabled=True, cache_enabled=None):
    """torch.autocast (ember.amp.autocast)."""
    from .amp import autocast as _autocast

    return _autocast(device_type, dtype, enabled, cache_enabled)


def __getattr__(name):
    if name in _SUBPACKAGES:
        import importlib

        return importlib.import_module("." + name, __name__)
    # Only reached for names ember does not define: say so, as ember.compat promises.
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError("module 'torch' has no attribute '%s': torch.%s is not in ember" % (name, name))
