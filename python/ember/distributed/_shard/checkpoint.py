"""torch.distributed._shard.checkpoint, PyTorch 1.13's name for ember.distributed.checkpoint."""
from ..checkpoint import (  # noqa: F401
    CheckpointException,
    FileSystemReader,
    FileSystemWriter,
    load_state_dict,
    save_state_dict,
)
