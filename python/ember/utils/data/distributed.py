"""torch.utils.data.distributed: DistributedSampler, PyTorch 1.13's index split (shuffled with
``Generator().manual_seed(seed + epoch)``, padded by repetition or cut to a multiple of
num_replicas, then every num_replicas-th index from ``rank``).

num_replicas and rank default to the default process group's (ember.distributed): a
RuntimeError when it is not initialized, as in PyTorch.
"""
import math

import ember as torch

from .sampler import Sampler

__all__ = ["DistributedSampler"]


def _distributed():
    """ember.distributed, imported when a sampler needs the default group's size or rank."""
    from ... import distributed as dist

    return dist


class DistributedSampler(Sampler):
    """The share of ``dataset`` that belongs to process ``rank`` of ``num_replicas``.

    shuffle: a new order every epoch (call ``set_epoch(epoch)`` before each epoch's iterator),
    the same on every replica for the same ``seed``. drop_last: cut the tail so that every
    replica gets the same number of indices; otherwise the first indices are repeated to fill
    up the last round.
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None:
            num_replicas = _distributed().get_world_size()
        if rank is None:
            rank = _distributed().get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError("Invalid rank {}, rank should be in the interval"
                             " [0, {}]".format(rank, num_replicas - 1))
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            # the largest size every replica can have without repeating an index
            self.num_samples = math.ceil((len(self.dataset) - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        if self.shuffle:
            g = torch.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = torch.randperm(len(self.dataset), generator=g).tolist()
        else:
            indices = list(range(len(self.dataset)))

        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[:self.total_size]
        assert len(indices) == self.total_size

        indices = indices[self.rank:self.total_size:self.num_replicas]
        assert len(indices) == self.num_samples
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """The epoch this sampler's next pass shuffles for (``seed + epoch`` seeds it)."""
        self.epoch = epoch
