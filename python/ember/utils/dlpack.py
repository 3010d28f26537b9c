"""torch.utils.dlpack: zero-copy exchange with PyTorch, NumPy and other DLPack users."""
from .. import _C

to_dlpack = _C._to_dlpack
from_dlpack = _C.from_dlpack
