"""torch.distributed._shard: PyTorch 1.13's home of distributed checkpoints, kept so that 1.13's
`import torch.distributed._shard.checkpoint as dcp` finds ember's (ember.distributed.checkpoint)."""
