"""torch.optim: optimizers whose param_groups are Python dicts over ember's fused C++ updates,
and the LR schedulers."""
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam, AdamW, Adamax, NAdam, RAdam  # noqa: F401
from .rmsprop import RMSprop, Adagrad  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401

from . import lr_scheduler  # noqa: F401


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError("module 'torch.optim' has no attribute '%s': torch.optim.%s is not in ember"
                         % (name, name))
