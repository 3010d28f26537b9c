"""FSDP's configuration values with PyTorch 1.13's names, members and defaults: the sharding
strategies, mixed precision, CPU offload, backward prefetch, and the state dict types with their
configs."""
from dataclasses import dataclass
from enum import Enum, auto
from typing import Any, Optional


class ShardingStrategy(Enum):
    """FULL_SHARD: parameters are gathered for a unit's forward and freed after it, gathered
    again for its backward; gradients are reduce-scattered. SHARD_GRAD_OP: gathered parameters
    stay from forward to the end of backward. NO_SHARD: every rank keeps every parameter and
    gradients are all-reduced (DDP's scheme). World size 1 always runs NO_SHARD, as in 1.13."""

    FULL_SHARD = auto()
    SHARD_GRAD_OP = auto()
    NO_SHARD = auto()


@dataclass
class MixedPrecision:
    """Only the dtypes given apply. param_dtype: what the gathered parameters (and the floating
    inputs of forward) are cast to, so forward and backward compute in it; the shards keep their
    own dtype and the optimizer updates those. reduce_dtype: the gradients' dtype in the
    reduction (param_dtype when not given). buffer_dtype: floating buffers are cast at the first
    forward and stay cast; state dicts give them in their own dtype."""

    param_dtype: Optional[Any] = None
    reduce_dtype: Optional[Any] = None
    buffer_dtype: Optional[Any] = None
    keep_low_precision_grads: Optional[bool] = False


@dataclass
class CPUOffload:
    """offload_params=True keeps the shards and their gradients in CPU memory between uses on an
    accelerator. The default False is the only value a CPU build accepts (every tensor is in CPU
    memory already)."""

    offload_params: bool = False


class BackwardPrefetch(Enum):
    """Where backward issues the all-gather of the unit it needs next (the reverse of the first
    forward's order): BACKWARD_PRE before the current unit's gradients are computed (overlaps
    them, two units gathered at once), BACKWARD_POST once they are reduced."""

    BACKWARD_PRE = auto()
    BACKWARD_POST = auto()


class StateDictType(Enum):
    """What state_dict()/load_state_dict() of an FSDP model deal in. FULL_STATE_DICT: the
    unwrapped model's keys and full tensors. LOCAL_STATE_DICT: each unit's flat shard as a 1-d
    ShardedTensor under "<unit>.flat_param". SHARDED_STATE_DICT: the unwrapped keys, each
    parameter a ShardedTensor holding this rank's dim-0 chunk (what distributed checkpoints
    save and reshard)."""

    FULL_STATE_DICT = auto()
    LOCAL_STATE_DICT = auto()
    SHARDED_STATE_DICT = auto()


@dataclass
class StateDictConfig:
    pass


@dataclass
class FullStateDictConfig(StateDictConfig):
    """rank0_only: the other ranks take part in the gathers and get an empty dict.
    offload_to_cpu: the parameters are returned in CPU memory (buffers stay where they are)."""

    offload_to_cpu: bool = False
    rank0_only: bool = False


@dataclass
class LocalStateDictConfig(StateDictConfig):
    pass


@dataclass
class ShardedStateDictConfig(StateDictConfig):
    pass


STATE_DICT_CONFIG_OF = {
    StateDictType.FULL_STATE_DICT: FullStateDictConfig,
    StateDictType.LOCAL_STATE_DICT: LocalStateDictConfig,
    StateDictType.SHARDED_STATE_DICT: ShardedStateDictConfig,
}


class OptimStateKeyType(Enum):
    """How an optimizer state dict's "state" is keyed: by parameter name or by index."""

    PARAM_NAME = auto()
    PARAM_ID = auto()
