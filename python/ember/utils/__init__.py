"""torch.utils: hooks' handles and DLPack."""
from . import hooks  # noqa: F401
from . import dlpack  # noqa: F401
