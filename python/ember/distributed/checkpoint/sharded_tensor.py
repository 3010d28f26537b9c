"""One rank's block of a tensor sharded across ranks (PyTorch 1.13's ShardedTensor, as far as
distributed checkpoints and FSDP's SHARDED_STATE_DICT need it): ``local_tensor()`` holds the
elements [offsets, offsets + local size) of a tensor of ``size()``. A rank that holds nothing has
a local tensor of 0 elements. dcp.save writes every rank's block; dcp.load fills the local
tensor in place from whatever saved blocks overlap it.

A plain 1-D tensor with the attribute ``_dcp_shard = (offset, numel)`` counts as the block
[offset, offset + its size) of a flat tensor of ``numel`` elements, saved and loaded as a
ShardedTensor: FSDP's flat-parameter shards carry it, and an optimizer's state_dict() passes it
on to the states of their size (exp_avg, momentum_buffer, ...), so that ``dcp.save({"model": ...,
"optimizer": optimizer.state_dict()})`` keeps every rank's part instead of the coordinator's
alone, and a load on the same sharding gives each rank its own back."""


class ShardedTensor:
    def __init__(self, local, offsets, global_size):
        offsets, global_size = [int(o) for o in offsets], [int(s) for s in global_size]
        if len(offsets) != len(global_size) or len(offsets) != local.dim():
            raise ValueError("ShardedTensor: the local block has %d dimensions, offsets %s and global "
                             "size %s must have as many" % (local.dim(), offsets, global_size))
        for d, (o, n, s) in enumerate(zip(offsets, local.shape, global_size)):
            if o < 0 or o + n > s:
                raise ValueError("ShardedTensor: dimension %d of the local block [%d, %d) is outside "
                                 "the global size %s" % (d, o, o + n, global_size))
        self._local = local
        self.offsets = offsets
        self.global_size = global_size

    def local_tensor(self):
        return self._local

    def size(self, dim=None):
        from ... import Size
        return Size(self.global_size) if dim is None else self.global_size[dim]

    @property
    def shape(self):
        return self.size()

    @property
    def dtype(self):
        return self._local.dtype

    def __repr__(self):
        return "ShardedTensor(global_size=%s, offsets=%s, local=%s)" % (
            self.global_size, self.offsets, list(self._local.shape))


def shard_dim0(full, rank, world):
    """Rank ``rank``'s block of ``full`` cut along dim 0 as FSDP's sharded state dict cuts it
    (torch.chunk's chunk size; ranks past the last chunk hold an empty block). The block is a
    view of ``full``."""
    if full.dim() < 1:
        raise ValueError("shard_dim0: expected a tensor of at least one dimension")
    if not 0 <= rank < world:
        raise ValueError("shard_dim0: rank %d is not in a world of %d" % (rank, world))
    rows = full.shape[0]
    per_rank = -(-rows // world)
    start = min(rows, per_rank * rank)
    length = min(rows - start, per_rank)
    return ShardedTensor(full.narrow(0, start, length), [start] + [0] * (full.dim() - 1), list(full.shape))
