"""torch.distributed.algorithms._checkpoint: see checkpoint_wrapper."""
