"""torch.amp: autocast regions over ember's per-device policy tables, and GradScaler."""
from .autocast_mode import autocast, is_autocast_enabled, get_autocast_dtype  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401
