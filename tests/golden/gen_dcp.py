#!/usr/bin/python3
"""Distributed checkpoints written by PyTorch 1.13 for tests/distributed/checkpoint_interop_test.cpp.

    /usr/bin/python3 tests/golden/gen_dcp.py             # writes tests/golden/dcp/
    /usr/bin/python3 tests/golden/gen_dcp.py --load DIR  # 1.13 loads an ember checkpoint: JSON

Writes, from 2 ranks over Gloo, {"w": ShardedTensor 8x3 (arange) chunked on dim 0, "b": a plain
tensor, "step": 7, "cfg": {"lr": 0.5}} with torch.distributed._shard.checkpoint, once with the
default FileSystemWriter (a file per item: dcp/torch113_files/) and once with
single_file_per_rank=True (dcp/torch113_per_rank/: items are byte ranges of one file).

--load DIR reads a checkpoint that ember saved on 2 ranks ({"w": 8x3 sharded on dim 0, "b",
"step", "lrs"}) with 1.13's load_state_dict: in one process (no_dist) into plain tensors, and on
2 ranks into a ShardedTensor chunked on dim 1 (so each 1.13 shard overlaps both saved chunks
in part), and prints what it got.

torch.distributed._shard does not import on Python 3.11 in 1.13 (a dataclass default); the hook
below applies the upstream fix (pytorch/pytorch#91795) while importing, as
../shared/reference/pytorch-1.13-probes/sitecustomize.py does.
"""
import importlib.abc
import importlib.machinery
import json
import multiprocessing
import os
import sys
import tempfile

_TARGET = "torch.distributed._shard.sharded_tensor.metadata"


class _FixedLoader(importlib.machinery.SourceFileLoader):
    def get_data(self, path):
        data = super().get_data(path)
        if path.endswith(".py"):
            data = data.replace(b"field(default=TensorProperties())",
                                b"field(default_factory=TensorProperties)")
        return data

    def get_code(self, fullname):
        src = self.get_data(self.get_filename(fullname))
        return compile(src, self.get_filename(fullname), "exec")


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != _TARGET:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None:
            spec.loader = _FixedLoader(name, spec.origin)
        return spec


sys.meta_path.insert(0, _Finder())

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.distributed._shard.checkpoint as dcp  # noqa: E402
from torch.distributed._shard import sharded_tensor  # noqa: E402
from torch.distributed._shard.sharding_spec import ChunkShardingSpec  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dcp")
WORLD = 2


def chunked(dim, rows, cols):
    spec = ChunkShardingSpec(dim=dim, placements=[f"rank:{r}/cpu" for r in range(WORLD)])
    return sharded_tensor.zeros(spec, rows, cols)


def fill_from(st, full):
    for s in st.local_shards():
        block = full
        for d, (o, n) in enumerate(zip(s.metadata.shard_offsets, s.metadata.shard_sizes)):
            block = block.narrow(d, o, n)
        s.tensor.copy_(block)


def save_rank(rank, init, out, single):
    dist.init_process_group("gloo", init_method="file://" + init, rank=rank, world_size=WORLD)
    w = chunked(0, 8, 3)
    fill_from(w, torch.arange(24, dtype=torch.float32).reshape(8, 3))
    state = {"w": w, "b": torch.tensor([1.5, 2.5, 3.5]), "step": 7, "cfg": {"lr": 0.5}}
    dcp.save_state_dict(state, dcp.FileSystemWriter(out, single_file_per_rank=single))
    dist.destroy_process_group()


def load_rank(rank, init, ckpt, result):
    dist.init_process_group("gloo", init_method="file://" + init, rank=rank, world_size=WORLD)
    w = chunked(1, 8, 3)
    state = {"w": w, "b": torch.zeros(3), "step": None, "lrs": None}
    dcp.load_state_dict(state, dcp.FileSystemReader(ckpt))
    shard = w.local_shards()[0]
    with open(result, "w") as f:
        json.dump({"rank": rank, "offsets": list(shard.metadata.shard_offsets),
                   "sizes": list(shard.metadata.shard_sizes),
                   "values": shard.tensor.flatten().tolist(), "b": state["b"].tolist(),
                   "step": state["step"], "lrs": state["lrs"]}, f)
    dist.destroy_process_group()


def on_ranks(target, *args):
    """Runs target(rank, init_file, *args) on WORLD forked processes."""
    with tempfile.TemporaryDirectory() as tmp:
        init = os.path.join(tmp, "init")
        ctx = multiprocessing.get_context("fork")
        procs = [ctx.Process(target=target, args=(r, init) + args) for r in range(WORLD)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(60)
        codes = [p.exitcode for p in procs]
        if codes != [0] * WORLD:
            sys.exit(f"ranks exited with {codes}")


def load_ember(ckpt):
    one = {"w": torch.zeros(8, 3), "b": torch.zeros(3), "step": None, "lrs": None}
    dcp.load_state_dict(one, dcp.FileSystemReader(ckpt), no_dist=True)
    two = []
    with tempfile.TemporaryDirectory() as tmp:
        results = [os.path.join(tmp, f"rank{r}.json") for r in range(WORLD)]
        on_ranks(lambda rank, init: load_rank(rank, init, ckpt, results[rank]))
        for path in results:
            with open(path) as f:
                two.append(json.load(f))
    json.dump({"one": {"w": one["w"].flatten().tolist(), "b": one["b"].tolist(),
                       "step": one["step"], "lrs": one["lrs"]}, "two": two}, sys.stdout)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--load":
        return load_ember(sys.argv[2])
    for single, name in ((False, "torch113_files"), (True, "torch113_per_rank")):
        out = os.path.join(OUT, name)
        os.makedirs(out, exist_ok=True)
        on_ranks(save_rank, out, single)


if __name__ == "__main__":
    main()
