"""torch.utils: hooks' handles, DLPack, data and activation checkpointing."""
from . import hooks  # noqa: F401
from . import dlpack  # noqa: F401
from . import data  # noqa: F401
from . import checkpoint  # noqa: F401


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError("module 'torch.utils' has no attribute '%s': torch.utils.%s is not in ember"
                         % (name, name))
