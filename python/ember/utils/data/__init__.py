"""torch.utils.data over ember's tensors: datasets, samplers, default_collate and the DataLoader
(in this process or with worker processes that hand batches over through shared memory: see
dataloader.py), with PyTorch 1.13's behaviour and random streams.

Not here: the DataPipes
(IterDataPipe, MapDataPipe, DataLoader2), and torch.distributed (DistributedSampler takes
num_replicas= and rank= explicitly).
"""
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .dataloader import (
    DataLoader,
    _DatasetKind,
    get_worker_info,
    default_collate,
    default_convert,
)
from .distributed import DistributedSampler

__all__ = ["BatchSampler",
           "ChainDataset",
           "ConcatDataset",
           "DataLoader",
           "Dataset",
           "DistributedSampler",
           "IterableDataset",
           "RandomSampler",
           "Sampler",
           "SequentialSampler",
           "Subset",
           "SubsetRandomSampler",
           "WeightedRandomSampler",
           "TensorDataset",
           "_DatasetKind",
           "default_collate",
           "default_convert",
           "get_worker_info",
           "random_split"]

_MISSING = {
    "IterDataPipe": "DataPipes are not in ember",
    "MapDataPipe": "DataPipes are not in ember",
    "DFIterDataPipe": "DataPipes are not in ember",
    "DataChunk": "DataPipes are not in ember",
    "functional_datapipe": "DataPipes are not in ember",
    "DataLoader2": "DataPipes are not in ember",
}


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    why = _MISSING.get(name)
    raise AttributeError("module 'torch.utils.data' has no attribute '%s': torch.utils.data.%s is "
                         "not in ember%s" % (name, name, (" (" + why + ")") if why else ""))
