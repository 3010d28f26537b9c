"""FSDP with MixedPrecision(bfloat16) on 2 ranks under ember-run, spelled as the reference
spells it: the dtypes that forward and the collectives see, the loss beside float32's, buffers,
state dicts; and the errors a wrong use gets. Writes result<rank>.json for test_fsdp.py."""
import copy, datetime, functools, json
import torch, torch.nn as nn, torch.distributed as dist
from torch.distributed.fsdp import (FullyShardedDataParallel as FSDP, MixedPrecision, ShardingStrategy,
                                    BackwardPrefetch)
from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
r, w = dist.get_rank(), dist.get_world_size()
local_rank = r
out = {}


class TransformerBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln, self.fc1, self.fc2 = nn.LayerNorm(d), nn.Linear(d, 2 * d + 1), nn.Linear(2 * d + 1, d)

    def forward(self, x):
        return x + self.fc2(torch.relu(self.fc1(self.ln(x))))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(5, 6)
        self.blocks = nn.Sequential(TransformerBlock(6), TransformerBlock(6))
        self.head = nn.Linear(6, 3)
        self.register_buffer("scale", torch.tensor([1.5]))

    def forward(self, x):
        return self.head(self.blocks(self.embed(x) * self.scale))


torch.manual_seed(0)
ref = Model()
model = copy.deepcopy(ref)
# The reference's spelling, word for word (device_id=local_rank names a CUDA device).
wrap_policy = functools.partial(
    transformer_auto_wrap_policy,
    transformer_layer_cls={TransformerBlock},
)
mp_policy = MixedPrecision(
    param_dtype=torch.bfloat16,
    reduce_dtype=torch.bfloat16,
    buffer_dtype=torch.bfloat16,
)
try:
    FSDP(copy.deepcopy(ref), auto_wrap_policy=wrap_policy, mixed_precision=mp_policy,
         sharding_strategy=ShardingStrategy.FULL_SHARD, device_id=local_rank)
    out["device_id_error"] = None
except RuntimeError as e:
    out["device_id_error"] = str(e)
model = FSDP(
    model,
    auto_wrap_policy=wrap_policy,
    mixed_precision=mp_policy,
    sharding_strategy=ShardingStrategy.FULL_SHARD,
    backward_prefetch=BackwardPrefetch.BACKWARD_PRE,
    forward_prefetch=True,
)
seen = []
model.module.blocks[0].module.fc1.register_forward_pre_hook(
    lambda m, inp: seen.append([str(m.weight.dtype), str(inp[0].dtype)]))
reduced, gathered = [], []
real_rs, real_ag = dist.reduce_scatter_tensor, dist.all_gather_into_tensor
dist.reduce_scatter_tensor = lambda o, i, **k: reduced.append(str(i.dtype)) or real_rs(o, i, **k)
dist.all_gather_into_tensor = lambda o, i, **k: gathered.append(str(i.dtype)) or real_ag(o, i, **k)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
ref_opt = torch.optim.AdamW(ref.parameters(), lr=1e-2)
torch.manual_seed(1)
x, y = torch.randn(8, 5), torch.randn(8, 3)
mine = slice(4 * r, 4 * r + 4)
losses = []
for step in range(3):
    optimizer.zero_grad(set_to_none=True)
    loss = nn.functional.mse_loss(model(x[mine]), y[mine])
    out.setdefault("loss_dtype", str(loss.dtype))
    loss.backward()
    optimizer.step()
    ref_opt.zero_grad()
    ref_loss = nn.functional.mse_loss(ref(x), y)
    ref_loss.backward()
    ref_opt.step()
    both = loss.detach().float().reshape(1).clone()
    dist.all_reduce(both)
    losses.append([both.item() / 2, ref_loss.item()])
dist.reduce_scatter_tensor, dist.all_gather_into_tensor = real_rs, real_ag
out["losses"] = losses
out["seen"] = seen[:1]
out["reduced"] = sorted(set(reduced))
out["gathered"] = sorted(set(gathered))
out["flat_dtypes"] = sorted({str(p.dtype) for p in model.parameters()})
out["grad_dtypes"] = sorted({str(p.grad.dtype) for p in model.parameters()})
out["buffer_in_training"] = str(model.module.scale.dtype)
sd = model.state_dict()
out["sd_dtypes"] = sorted({str(v.dtype) for v in sd.values()})
out["sd_keys_equal"] = list(sd.keys()) == list(ref.state_dict().keys())
out["sd_diff"] = max((sd[k].float() - ref.state_dict()[k]).abs().max().item() for k in sd)
out["buffer_after_sd"] = str(model.module.scale.dtype)

# Errors name FSDP and what was expected.
errors = {}
def expect(name, fn):
    try:
        fn()
        errors[name] = None
    except Exception as e:
        errors[name] = [type(e).__name__, str(e)]
expect("twice", lambda: FSDP(model))
inner = FSDP(nn.Linear(2, 2))
expect("auto_wrap_over_fsdp", lambda: FSDP(nn.Sequential(inner, nn.Linear(2, 2)), auto_wrap_policy=wrap_policy))
expect("nested_no_sync", lambda: model.module.blocks[0].no_sync().__enter__())
expect("nested_forward", lambda: model.module.blocks[0](torch.randn(2, 6)))
expect("nested_clip", lambda: model.module.blocks[0].clip_grad_norm_(1.0))
out["errors"] = errors
with open("result%d.json" % r, "w") as f:
    json.dump(out, f)
dist.destroy_process_group()
