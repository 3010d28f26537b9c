"""Writes tests/golden/data.json: the index orders of torch.utils.data's samplers, random_split and
DataLoader shuffling under fixed seeds (PyTorch 1.13), for tests/data/sampler_test.cpp.

Run with Debian's PyTorch: /usr/bin/python3 tests/golden/gen_data.py
"""
import json
import os

import torch
from torch.utils.data import (BatchSampler, DataLoader, DistributedSampler, RandomSampler,
                              SequentialSampler, SubsetRandomSampler, TensorDataset,
                              WeightedRandomSampler, random_split)


def gen(seed):
    g = torch.Generator()
    g.manual_seed(seed)
    return g


out = {"torch_version": torch.__version__}

# RandomSampler: two passes share one generator (the second pass continues its stream).
s = RandomSampler(range(10), generator=gen(42))
out["random"] = {"n": 10, "seed": 42, "epochs": [list(s), list(s)]}
s = RandomSampler(range(10), replacement=True, num_samples=50, generator=gen(1))
out["random_replacement"] = {"n": 10, "seed": 1, "num_samples": 50, "order": list(s)}
s = RandomSampler(range(10), num_samples=25, generator=gen(2))
out["random_num_samples"] = {"n": 10, "seed": 2, "num_samples": 25, "order": list(s)}
n = 70000  # large enough that randperm's 32-bit draws matter
s = RandomSampler(range(n), generator=gen(0))
out["random_large"] = {"n": n, "seed": 0, "head": list(s)[:50]}

# Without a generator: a seed drawn from the global generator seeds a fresh one.
torch.manual_seed(123)
out["random_global"] = {"n": 10, "manual_seed": 123, "order": list(RandomSampler(range(10)))}

s = SubsetRandomSampler([5, 7, 9, 11, 13], generator=gen(3))
out["subset_random"] = {"indices": [5, 7, 9, 11, 13], "seed": 3, "order": list(s)}

w = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
out["weighted"] = {
    "weights": w,
    "replacement": list(WeightedRandomSampler(w, 20, replacement=True, generator=gen(7))),
    "no_replacement": list(WeightedRandomSampler(w, 4, replacement=False, generator=gen(7))),
    "one": list(WeightedRandomSampler(w, 1, replacement=True, generator=gen(8))),
    "seed": 7,
}

out["batch"] = {
    "keep": list(BatchSampler(SequentialSampler(range(10)), 3, drop_last=False)),
    "drop": list(BatchSampler(SequentialSampler(range(10)), 3, drop_last=True)),
}

dist = []
for n, replicas, shuffle, drop_last, seed in [(10, 3, True, False, 0), (10, 3, True, True, 0),
                                              (10, 3, False, False, 0), (11, 4, True, False, 5),
                                              (2, 5, True, False, 0), (10, 3, False, True, 0)]:
    ranks = []
    for rank in range(replicas):
        s = DistributedSampler(range(n), num_replicas=replicas, rank=rank, shuffle=shuffle,
                               seed=seed, drop_last=drop_last)
        epochs = []
        for epoch in range(2):
            s.set_epoch(epoch)
            epochs.append(list(s))
        ranks.append(epochs)
    dist.append({"n": n, "num_replicas": replicas, "shuffle": shuffle, "drop_last": drop_last,
                 "seed": seed, "num_samples": len(s), "ranks": ranks})
out["distributed"] = dist

splits = random_split(range(10), [3, 7], generator=gen(42))
out["random_split"] = {"n": 10, "lengths": [3, 7], "seed": 42,
                       "subsets": [list(sp.indices) for sp in splits]}
splits = random_split(range(11), [0.3, 0.3, 0.4], generator=gen(4))
out["random_split_fractions"] = {"n": 11, "fractions": [0.3, 0.3, 0.4], "seed": 4,
                                 "subsets": [list(sp.indices) for sp in splits]}

# DataLoader(shuffle=True, generator=g): each epoch first draws a worker base seed from g.
ds = TensorDataset(torch.arange(10))
dl = DataLoader(ds, batch_size=3, shuffle=True, generator=gen(5))
out["loader"] = {"n": 10, "batch_size": 3, "seed": 5,
                 "epochs": [[b[0].tolist() for b in dl] for _ in range(2)]}
dl = DataLoader(ds, batch_size=3, shuffle=True, drop_last=True, generator=gen(6))
out["loader_drop_last"] = {"n": 10, "batch_size": 3, "seed": 6,
                           "epochs": [[b[0].tolist() for b in dl]]}
torch.manual_seed(9)
dl = DataLoader(ds, batch_size=4, shuffle=True)
out["loader_global"] = {"n": 10, "batch_size": 4, "manual_seed": 9,
                        "epochs": [[b[0].tolist() for b in dl] for _ in range(2)]}

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data.json")
with open(path, "w") as f:
    json.dump(out, f, indent=None, separators=(",", ":"))
    f.write("\n")
print("wrote", path)
