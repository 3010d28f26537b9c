"""torch.distributed.checkpoint (PyTorch 1.13's torch.distributed._shard.checkpoint) over the
C++ side's DCP: every rank writes its own shards into one file of a shared directory and the
coordinator writes `.metadata` last; load reads whatever saved blocks overlap each rank's part of
the current sharding. The directory is PyTorch's own: checkpoints move between ember and
PyTorch 1.13 in both directions.

    dcp.save(state, checkpoint_id="/checkpoints/step_10000")
    dcp.load(state, checkpoint_id="/checkpoints/step_10000")   # fills state in place
    model.load_state_dict(state["model"])
"""
from .api import CheckpointException  # noqa: F401
from .filesystem import FileSystemReader, FileSystemWriter  # noqa: F401
from .sharded_tensor import ShardedTensor, shard_dim0  # noqa: F401
from .state_dict_loader import load, load_state_dict  # noqa: F401
from .state_dict_saver import save, save_state_dict  # noqa: F401
