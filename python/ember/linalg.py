"""torch.linalg: the norms ember has."""
from . import _C


def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    """The ord-norm of x over dim (all elements by default); ord may be inf or -inf."""
    r = _C._linalg_vector_norm(x, float(ord), dim, keepdim, dtype=dtype)
    return r if out is None else _C._write_out(out, r, "vector_norm")


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError("module 'torch.linalg' has no attribute '%s': torch.linalg.%s is not in ember"
                         % (name, name))
