"""FSDP's optimizer state dicts (full_optim_state_dict, shard_full_optim_state_dict): not yet."""


def full_optim_state_dict(model, optim, optim_input=None, rank0_only=True, group=None):
    raise NotImplementedError("FullyShardedDataParallel.full_optim_state_dict is not in ember yet")


def shard_full_optim_state_dict(full_optim_state_dict, model, optim_input=None, optim=None):
    raise NotImplementedError("FullyShardedDataParallel.shard_full_optim_state_dict is not in ember yet")
