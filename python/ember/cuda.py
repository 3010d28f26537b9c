"""torch.cuda as seen from a CPU build: no devices. Asking for a CUDA tensor raises ember's
error naming the missing backend."""
from . import _C


def is_available():
    return _C._cuda_is_available()


def device_count():
    return _C._cuda_device_count()


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError("module 'torch.cuda' has no attribute '%s': torch.cuda.%s is not in ember"
                         % (name, name))
