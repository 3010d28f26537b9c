"""torch.distributed.algorithms: activation checkpointing's module wrapper (_checkpoint)."""
