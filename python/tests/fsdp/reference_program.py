# The reference's FSDP section as one program (2 ranks under ember-run): FSDP with
# transformer_auto_wrap_policy through functools.partial, bfloat16 MixedPrecision, FULL_SHARD,
# apply_activation_checkpointing on the blocks, AdamW, then dcp.save of model, optimizer and
# epoch and dcp.load back — after one more step, so that the load must restore both. Every rank
# writes result<rank>.json.
import datetime
import functools
import json
import os

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.nn as nn
from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import apply_activation_checkpointing
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp import MixedPrecision, ShardingStrategy
from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy


class TransformerBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(d_model=d, nhead=4, dim_feedforward=64, batch_first=True)

    def forward(self, x):
        return self.layer(x)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(8, 32)
        self.blocks = nn.Sequential(*[TransformerBlock(32) for _ in range(2)])
        self.head = nn.Linear(32, 4)

    def forward(self, x):
        return self.head(self.blocks(self.embed(x)).mean(1))


dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
rank = dist.get_rank()
torch.manual_seed(0)
plain_keys = list(Model().state_dict())
torch.manual_seed(0)
model = Model()

wrap_policy = functools.partial(
    transformer_auto_wrap_policy,
    transformer_layer_cls={TransformerBlock},
)
mp_policy = MixedPrecision(
    param_dtype=torch.bfloat16,
    reduce_dtype=torch.bfloat16,
    buffer_dtype=torch.bfloat16,
)
model = FSDP(
    model,
    auto_wrap_policy=wrap_policy,
    mixed_precision=mp_policy,
    sharding_strategy=ShardingStrategy.FULL_SHARD,
)
apply_activation_checkpointing(
    model,
    check_fn=lambda module: isinstance(module, TransformerBlock),
)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
torch.manual_seed(1 + rank)
x, y = torch.randn(16, 5, 8), torch.randint(0, 4, (16,))


def train_step():
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()


losses = [train_step() for _ in range(4)]
epoch = 4
state = {
    "model": model.state_dict(),
    "optimizer": optimizer.state_dict(),
    "epoch": epoch,
}
dcp.save(state, checkpoint_id="step_4")
saved_params = [p.detach().clone() for p in model.parameters()]
saved_optim = {k: {n: v.clone() for n, v in s.items()} for k, s in optimizer.state_dict()["state"].items()}
train_step()  # moves parameters and optimizer state away from the checkpoint

state = {
    "model": model.state_dict(),
    "optimizer": optimizer.state_dict(),
}
dcp.load(state, checkpoint_id="step_4")
model.load_state_dict(state["model"])
optimizer.load_state_dict(state["optimizer"])
now = optimizer.state_dict()["state"]
result = {
    "losses": losses,
    "files": sorted(os.listdir("step_4")),
    "keys_are_plain": list(state["model"]) == plain_keys,
    "params_restored": all(p.detach().equal(q) for p, q in zip(model.parameters(), saved_params)),
    "optimizer_restored": all(now[k][n].equal(v) for k, s in saved_optim.items() for n, v in s.items()),
    "optimizer_states": sum(len(s) for s in saved_optim.values()),
}
with open("result%d.json" % rank, "w") as f:
    json.dump(result, f)
dist.destroy_process_group()
