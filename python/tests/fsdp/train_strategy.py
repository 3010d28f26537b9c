"""A 2-rank (or 1-rank) FSDP training run under ember-run, checked against one process training
the plain model on the whole batch (float64). Argument: the sharding strategy. Writes
result<rank>.json for test_fsdp.py. The model has a nested auto-wrap (blocks and the MLP inside
each) and parameter counts that do not divide by 2, so the shards are padded."""
import copy, datetime, functools, json, sys
import torch, torch.nn as nn, torch.distributed as dist
from torch.distributed.fsdp import (FullyShardedDataParallel as FSDP, ShardingStrategy,
                                    StateDictType, FullStateDictConfig, BackwardPrefetch)
from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy
from torch.distributed.checkpoint import ShardedTensor

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
r, w = dist.get_rank(), dist.get_world_size()
strategy = getattr(ShardingStrategy, sys.argv[1])
out = {}


class MLP(nn.Module):  # 6*13+13 + 13*6+6 = 175 parameters: odd, so the shards are padded
    def __init__(self, d):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d, 2 * d + 1), nn.Linear(2 * d + 1, d)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class TransformerBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln, self.mlp = nn.LayerNorm(d), MLP(d)

    def forward(self, x):
        return x + self.mlp(self.ln(x))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(5, 6)
        self.blocks = nn.ModuleList([TransformerBlock(6), TransformerBlock(6)])
        self.head = nn.Linear(6, 3)
        self.register_buffer("scale", torch.tensor([1.5]))

    def forward(self, x):
        x = self.embed(x) * self.scale
        for b in self.blocks:
            x = b(x)
        return self.head(x)


def maxdiff(a, b):
    return max((a[k] - b[k]).abs().max().item() for k in b)


torch.manual_seed(0)
ref = Model().double()
policy = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={TransformerBlock, MLP})
# Prefetching changes when units are gathered, never the numbers: exercised in two strategies.
prefetch = {"FULL_SHARD": dict(forward_prefetch=True, backward_prefetch=BackwardPrefetch.BACKWARD_PRE),
            "SHARD_GRAD_OP": dict(backward_prefetch=BackwardPrefetch.BACKWARD_POST)}.get(sys.argv[1], {})
fsdp = FSDP(copy.deepcopy(ref), auto_wrap_policy=policy, sharding_strategy=strategy, **prefetch)
out["strategy"] = fsdp.sharding_strategy.name
out["names"] = [n for n, _ in fsdp.named_parameters()]
out["numels"] = [p.numel() for p in fsdp.parameters()]
opt = torch.optim.AdamW(fsdp.parameters(), lr=0.01)
ref_opt = torch.optim.AdamW(ref.parameters(), lr=0.01)
torch.manual_seed(1)
x, y = torch.randn(8, 5, dtype=torch.float64), torch.randn(8, 3, dtype=torch.float64)
per_rank = 8 // w
mine = slice(per_rank * r, per_rank * (r + 1))  # this rank's part of the batch
loss_diff = 0.0
for step in range(3):
    opt.zero_grad()
    loss = ((fsdp(x[mine]) - y[mine]) ** 2).mean()
    loss.backward()
    opt.step()
    ref_opt.zero_grad()
    ref_loss = ((ref(x) - y) ** 2).mean()  # one process, the full batch
    ref_loss.backward()
    ref_opt.step()
    both = loss.detach().reshape(1).clone()
    dist.all_reduce(both)
    loss_diff = max(loss_diff, abs(both.item() / w - ref_loss.item()))
out["loss_diff"] = loss_diff

# The optimizer's state: gathered and keyed by the plain model's parameter names (rank 0 only by
# default), equal to the plain model's optimizer's; sharded again into a fresh optimizer.
full_osd = FSDP.full_optim_state_dict(fsdp, opt)
out["full_osd_len"] = len(full_osd)
ref_osd = ref_opt.state_dict()
ref_names = [n for n, _ in ref.named_parameters()]
full_osd = FSDP.full_optim_state_dict(fsdp, opt, rank0_only=False)
out["osd_names"] = (sorted(full_osd["state"]) == sorted(ref_names)  # in the units' order
                    and sorted(full_osd["param_groups"][0]["params"]) == sorted(ref_names))
out["osd_diff"] = max((full_osd["state"][n][k] - ref_osd["state"][i][k]).abs().max().item()
                      for i, n in enumerate(ref_names) for k in ref_osd["state"][i])
fresh = torch.optim.AdamW(fsdp.parameters(), lr=0.5)
fresh.load_state_dict(FSDP.shard_full_optim_state_dict(full_osd, fsdp))
mine_osd, again = opt.state_dict(), fresh.state_dict()
out["osd_reshard_equal"] = (again["param_groups"] == mine_osd["param_groups"] and all(
    again["state"][i][k].equal(v) for i, st in mine_osd["state"].items() for k, v in st.items()))
other = FSDP(copy.deepcopy(ref), sharding_strategy=strategy)  # wrapped otherwise: one unit
other_opt = torch.optim.AdamW(other.parameters(), lr=0.01)
other_opt.load_state_dict(FSDP.shard_full_optim_state_dict(full_osd, other))
back = FSDP.full_optim_state_dict(other, other_opt, rank0_only=False)
out["osd_rewrapped_diff"] = max((back["state"][n][k] - v).abs().max().item()
                                for n, st in full_osd["state"].items() for k, v in st.items())

# FULL_STATE_DICT: the plain model's keys and values; loads into the plain model and back.
sd = fsdp.state_dict()
out["keys_equal"] = list(sd.keys()) == list(ref.state_dict().keys())
out["train_diff"] = maxdiff(sd, ref.state_dict())
plain = Model().double()
out["load_plain"] = str(plain.load_state_dict(sd))
out["load_plain_diff"] = maxdiff(plain.state_dict(), ref.state_dict())
with torch.no_grad():
    for p in plain.parameters():
        p.mul_(0.5)
out["load_back"] = str(fsdp.load_state_dict(plain.state_dict()))
out["load_back_diff"] = maxdiff(fsdp.state_dict(), plain.state_dict())
fsdp.load_state_dict(ref.state_dict())
with FSDP.state_dict_type(fsdp, StateDictType.FULL_STATE_DICT, FullStateDictConfig(rank0_only=True)):
    out["rank0_only_len"] = len(fsdp.state_dict())
with FSDP.state_dict_type(fsdp, StateDictType.FULL_STATE_DICT, FullStateDictConfig(offload_to_cpu=True)):
    offloaded = fsdp.state_dict()
out["offload_diff"] = maxdiff(offloaded, fsdp.state_dict())
out["offload_on_cpu"] = all(v.device.type == "cpu" for v in offloaded.values())

# SHARDED_STATE_DICT: dim-0 chunks under the plain keys, which cover every tensor.
with FSDP.state_dict_type(fsdp, StateDictType.SHARDED_STATE_DICT):
    ssd = fsdp.state_dict()
out["sharded_keys_equal"] = list(ssd.keys()) == list(ref.state_dict().keys())
out["sharded"] = {k: [v.offsets, list(v.local_tensor().shape), v.local_tensor().flatten().tolist(),
                      list(v.size())] for k, v in ssd.items() if isinstance(v, ShardedTensor)}
out["full"] = {k: v.flatten().tolist() for k, v in ref.state_dict().items()}
saved = {k: (ShardedTensor(v.local_tensor().clone(), v.offsets, v.size()) if isinstance(v, ShardedTensor)
             else v.clone()) for k, v in ssd.items()}
fsdp.load_state_dict({k: v * 0 for k, v in ref.state_dict().items()})
with FSDP.state_dict_type(fsdp, StateDictType.SHARDED_STATE_DICT):
    fsdp.load_state_dict(saved)
out["sharded_roundtrip_diff"] = maxdiff(fsdp.state_dict(), ref.state_dict())

# LOCAL_STATE_DICT: each unit's flat shard under "<unit>.flat_param".
with FSDP.state_dict_type(fsdp, StateDictType.LOCAL_STATE_DICT):
    lsd = fsdp.state_dict()
    out["local"] = {k: ([v.offsets, list(v.local_tensor().shape), list(v.size())] if isinstance(v, ShardedTensor)
                        else list(v.shape)) for k, v in lsd.items()}
    kept = {k: (ShardedTensor(v.local_tensor().clone(), v.offsets, v.size()) if isinstance(v, ShardedTensor)
                else v.clone()) for k, v in lsd.items()}
fsdp.load_state_dict({k: v * 0 for k, v in ref.state_dict().items()})
with FSDP.state_dict_type(fsdp, StateDictType.LOCAL_STATE_DICT):
    fsdp.load_state_dict(kept)
out["local_roundtrip_diff"] = maxdiff(fsdp.state_dict(), ref.state_dict())

# What is gathered when: all-gathers counted in forward and in backward, and the modules'
# parameters (empty while freed) between them.
gathers = []
real_gather = dist.all_gather_into_tensor
dist.all_gather_into_tensor = lambda *a, **k: gathers.append(1) or real_gather(*a, **k)
blk = fsdp.module.blocks[0].module
loss = ((fsdp(x[mine]) - y[mine]) ** 2).mean()
out["forward_gathers"] = len(gathers)
out["after_forward"] = {"root": fsdp.module.embed.weight.numel(), "block": blk.ln.weight.numel(),
                        "mlp": blk.mlp.module.fc1.weight.numel()}
del gathers[:]
loss.backward()
dist.all_gather_into_tensor = real_gather
out["backward_gathers"] = len(gathers)
out["after_backward"] = {"root": fsdp.module.embed.weight.numel(), "block": blk.ln.weight.numel(),
                         "mlp": blk.mlp.module.fc1.weight.numel()}

# no_sync: the first half-batch's gradients stay local, the second backward reduces both.
sgd, ref_sgd = torch.optim.SGD(fsdp.parameters(), lr=0.5), torch.optim.SGD(ref.parameters(), lr=0.5)
sgd.zero_grad()
ref_sgd.zero_grad()
micro = per_rank // 2
halves = [slice(per_rank * r + micro * i, per_rank * r + micro * (i + 1)) for i in range(2)]
with fsdp.no_sync():
    ((fsdp(x[halves[0]]) - y[halves[0]]) ** 2).mean().backward()
out["no_sync_grads_kept_local"] = all(p.grad is None or not p.grad.any() for p in fsdp.parameters())
((fsdp(x[halves[1]]) - y[halves[1]]) ** 2).mean().backward()
# Each rank's two micro-batch gradients added, averaged over ranks: by hand on the plain model.
for i in range(0, 8, micro):
    (((ref(x[i:i + micro]) - y[i:i + micro]) ** 2).mean() / w).backward()
sgd.step()
ref_sgd.step()
out["no_sync_diff"] = maxdiff(fsdp.state_dict(), ref.state_dict())

# clip_grad_norm_ equals the plain model's.
sgd.zero_grad()
ref_sgd.zero_grad()
((fsdp(x[mine]) - y[mine]) ** 2).mean().backward()
((ref(x) - y) ** 2).mean().backward()
total = fsdp.clip_grad_norm_(0.05)
ref_total = nn.utils.clip_grad_norm_(ref.parameters(), 0.05)
out["clip_total_diff"] = abs(total.item() - ref_total.item())
out["clip_clipped"] = ref_total.item() > 0.05
sgd.step()
ref_sgd.step()
out["clip_diff"] = maxdiff(fsdp.state_dict(), ref.state_dict())

# forward_prefetch: the MLP's all-gather is issued before its block computes (from the second
# forward on).
mlp_handle = fsdp.module.blocks[0].module.mlp._handle
ahead = []
fsdp.module.blocks[0].module.register_forward_pre_hook(
    lambda m, inp: ahead.append(mlp_handle._gather is not None or mlp_handle.is_unsharded))
with torch.no_grad():
    fsdp(x[mine])
out["gathered_ahead"] = ahead

# summon_full_params: the original parameters under their plain names, changes written back;
# apply() runs with them in place.
with FSDP.summon_full_params(fsdp):
    out["summoned_names"] = [n for n, _ in fsdp.named_parameters()] == [n for n, _ in ref.named_parameters()]
    with torch.no_grad():
        fsdp.module.blocks[1].module.ln.weight.fill_(2.0)
out["summon_writeback"] = fsdp.state_dict()["blocks.1.ln.weight"].tolist() == [2.0] * 6
fsdp.apply(lambda m: torch.nn.init.zeros_(m.bias) if isinstance(m, nn.Linear) else None)
sd = fsdp.state_dict()
out["apply_zeroed"] = all(not sd[k].any() for k in sd if k.endswith("bias") and "ln" not in k)

# train()/eval() reach the wrapped modules.
fsdp.eval()
out["eval"] = [m.training for m in fsdp.modules()].count(True)
fsdp.train()
out["train"] = [m.training for m in fsdp.modules()].count(False)

with open("result%d.json" % r, "w") as f:
    json.dump(out, f)
dist.destroy_process_group()
