"""torch.distributed.fsdp (PyTorch 1.13's API): FullyShardedDataParallel for Python modules and
its configuration values; auto-wrap policies are in .wrap."""
from .api import (BackwardPrefetch, CPUOffload, FullStateDictConfig, LocalStateDictConfig,  # noqa: F401
                  MixedPrecision, OptimStateKeyType, ShardedStateDictConfig, ShardingStrategy,
                  StateDictConfig, StateDictType)
from .flat_param import FlatParameter  # noqa: F401
from .fully_sharded_data_parallel import FullyShardedDataParallel  # noqa: F401
from . import wrap  # noqa: F401
