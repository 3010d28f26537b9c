"""torch.nn: modules, parameters, initialisation and the functional interface, with PyTorch
1.13's semantics over ember's tensors. ``import ember.nn as nn`` (or, through the alias,
``import torch.nn as nn``)."""
from .parameter import Parameter  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from . import functional  # noqa: F401
from . import init  # noqa: F401
from . import utils  # noqa: F401
from . import modules  # noqa: F401
from . import parallel  # noqa: F401

__all__ = ["Parameter", "functional", "init", "utils"] + list(_modules_all)
