"""torch.distributed.checkpoint (distributed checkpoints) over the C++ side's DCP."""
from .sharded_tensor import ShardedTensor, shard_dim0  # noqa: F401
