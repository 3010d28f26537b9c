"""FSDP on 2 ranks in the less common shapes of use: tied weights in one unit, a parameter that
gets no gradient, outputs in a dict, a unit run twice in one forward, gradients added over two
backwards, an evaluation forward in between, a parameter shared across units, ignored_modules,
BatchNorm under mixed precision, load errors, activation checkpointing (a reentrant recompute)
inside units. Writes result<rank>.json for test_fsdp.py."""
import copy, datetime, functools, json, warnings
import torch, torch.nn as nn, torch.distributed as dist
from torch.distributed.fsdp import (CPUOffload, FullyShardedDataParallel as FSDP, MixedPrecision,
                                    ShardingStrategy, StateDictType)
from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy, size_based_auto_wrap_policy

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
r, w = dist.get_rank(), dist.get_world_size()
out = {}
torch.manual_seed(0)
x, y = torch.randn(8, 4, dtype=torch.float64), torch.randn(8, 4, dtype=torch.float64)
mine = slice(4 * r, 4 * r + 4)

def maxdiff(a, b):
    return max((a[k] - b[k]).abs().max().item() for k in b)

def train(fsdp, ref, steps=2, loss_fn=None, opt_cls=torch.optim.SGD):
    loss_fn = loss_fn or (lambda m, xs, ys: ((m(xs) - ys) ** 2).mean())
    opt, ref_opt = opt_cls(fsdp.parameters(), lr=0.1), opt_cls(ref.parameters(), lr=0.1)
    for _ in range(steps):
        opt.zero_grad(); loss_fn(fsdp, x[mine], y[mine]).backward(); opt.step()
        ref_opt.zero_grad(); loss_fn(ref, x, y).backward(); ref_opt.step()
    return maxdiff(fsdp.state_dict(), ref.state_dict())

# Tied weights inside one unit.
class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(4, 4), nn.Linear(4, 4)
        self.b.weight = self.a.weight
    def forward(self, x):
        return self.b(torch.tanh(self.a(x)))
ref = Tied().double()
fsdp = FSDP(copy.deepcopy(ref))
out["tied_keys"] = list(fsdp.state_dict()) == list(ref.state_dict())
out["tied_diff"] = train(fsdp, ref)

# Unused parameter: its unit reduces zeros for it; output is a dict.
class Unused(nn.Module):
    def __init__(self):
        super().__init__()
        self.used, self.unused = nn.Linear(4, 4), nn.Linear(4, 4)
    def forward(self, x):
        return {"out": self.used(x)}
ref = Unused().double()
fsdp = FSDP(copy.deepcopy(ref))
out["unused_diff"] = train(fsdp, ref, loss_fn=lambda m, xs, ys: ((m(xs)["out"] - ys) ** 2).mean())

# Two forwards, one backward; gradient accumulation over two backwards without zero_grad;
# an evaluation forward under no_grad in between.
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
    def forward(self, x):
        return torch.relu(self.fc(x))
def make():
    return nn.Sequential(Block(), Block(), nn.Linear(4, 4)).double()
ref = make()
fsdp = FSDP(copy.deepcopy(ref), auto_wrap_policy=functools.partial(transformer_auto_wrap_policy,
                                                                   transformer_layer_cls={Block}))
two = lambda m, xs, ys: ((m(xs) - ys) ** 2).mean() + ((m(xs * 2) - ys) ** 2).mean()
out["two_forwards_diff"] = train(fsdp, ref, loss_fn=two)
with torch.no_grad():
    fsdp(x[mine])
opt, ref_opt = torch.optim.SGD(fsdp.parameters(), lr=0.1), torch.optim.SGD(ref.parameters(), lr=0.1)
opt.zero_grad(); ref_opt.zero_grad()
for _ in range(2):
    ((fsdp(x[mine]) - y[mine]) ** 2).mean().backward()
    ((ref(x) - y) ** 2).mean().backward()
opt.step(); ref_opt.step()
out["accumulate_diff"] = maxdiff(fsdp.state_dict(), ref.state_dict())

# A parameter shared across units cannot be flattened twice.
class Cross(nn.Module):
    def __init__(self):
        super().__init__()
        self.blk, self.head = Block(), nn.Linear(4, 4)
        self.head.weight = self.blk.fc.weight
try:
    FSDP(Cross(), auto_wrap_policy=functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={Block}))
    out["cross_error"] = None
except ValueError as e:
    out["cross_error"] = str(e)

# ignored_modules keep their parameters (not flattened, not reduced).
m = make()
fsdp = FSDP(m, ignored_modules=[m[2]])
out["ignored_names"] = [n for n, _ in fsdp.named_parameters()]
fsdp(x[mine]).sum().backward()
out["ignored_grad"] = m[2].weight.grad is not None

# BatchNorm under mixed precision with auto-wrap: a unit of its own without it (with a warning).
class BNNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc, self.bn, self.out = nn.Linear(4, 4), nn.BatchNorm1d(4), nn.Linear(4, 2)
    def forward(self, x):
        return self.out(self.bn(self.fc(x).float()).to(x.dtype))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    fsdp = FSDP(BNNet(), auto_wrap_policy=functools.partial(size_based_auto_wrap_policy, min_num_params=10 ** 9),
                mixed_precision=MixedPrecision(param_dtype=torch.bfloat16))
out["bn_warned"] = any("BatchNorm" in str(c.message) for c in caught)
out["bn_unit_mp"] = fsdp.module.bn.mixed_precision.param_dtype is None
fsdp(torch.randn(4, 4)).float().sum().backward()
out["bn_ran"] = all(p.grad is not None for p in fsdp.parameters())

# sync_module_states: rank 0's parameters and buffers everywhere, through an explicit group;
# the CPU spellings of device_id and cpu_offload are accepted.
torch.manual_seed(10 + r)  # each rank initialises differently
net = BNNet()
with torch.no_grad():
    net.bn.running_mean.fill_(float(r + 1))
fsdp = FSDP(net, process_group=dist.new_group([0, 1]), sync_module_states=True,
            device_id=torch.device("cpu"), cpu_offload=CPUOffload(offload_params=False),
            limit_all_gathers=True)
spread = 0.0
for v in fsdp.state_dict().values():
    hi, lo = v.double().clone(), v.double().clone()
    dist.all_reduce(hi, op=dist.ReduceOp.MAX)
    dist.all_reduce(lo, op=dist.ReduceOp.MIN)
    spread = max(spread, (hi - lo).abs().max().item())
out["synced_spread"] = spread
out["synced_buffer"] = fsdp.module.bn.running_mean.tolist()

# Load errors name the plain keys.
fsdp = FSDP(make())
sd = fsdp.state_dict()
del sd["2.bias"]
try:
    fsdp.load_state_dict(sd)
except RuntimeError as e:
    out["missing_error"] = str(e)
out["non_strict"] = str(fsdp.load_state_dict(sd, strict=False))
with FSDP.state_dict_type(fsdp, StateDictType.SHARDED_STATE_DICT):
    try:
        fsdp.load_state_dict(fsdp.state_dict() | {"0.fc.weight": torch.zeros(4, 4)})
    except RuntimeError as e:
        out["sharded_type_error"] = str(e)
# Activation checkpointing inside units, as apply_activation_checkpointing puts it after wrapping:
# a reentrant recompute (a backward inside the backward) of each block.
class Ckpt(torch.autograd.Function):
    @staticmethod
    def forward(ctx, run, inp):
        ctx.run = run
        ctx.save_for_backward(inp)
        return run(inp)

    @staticmethod
    def backward(ctx, g):
        (inp,) = ctx.saved_tensors
        inp = inp.detach().requires_grad_()
        with torch.enable_grad():
            recomputed = ctx.run(inp)
        torch.autograd.backward(recomputed, g)
        return None, inp.grad


class CheckpointWrapper(nn.Module):
    def __init__(self, m):
        super().__init__()
        self._checkpoint_wrapped_module = m

    def forward(self, inp):
        return Ckpt.apply(self._checkpoint_wrapped_module, inp)


xg = x.clone().requires_grad_()  # a reentrant checkpoint needs an input that requires grad
torch.manual_seed(0)  # the same model on every rank
for strategy in ("FULL_SHARD", "SHARD_GRAD_OP"):
    ref = make()
    fsdp = FSDP(copy.deepcopy(ref), sharding_strategy=getattr(ShardingStrategy, strategy),
                auto_wrap_policy=functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={Block}))
    for i in (0, 1):
        unit = fsdp.module[i]._fsdp_wrapped_module
        unit._fpw_module = CheckpointWrapper(unit._fpw_module)
    opt, ref_opt = torch.optim.SGD(fsdp.parameters(), lr=0.1), torch.optim.SGD(ref.parameters(), lr=0.1)
    for _ in range(2):
        opt.zero_grad(); ((fsdp(xg[mine]) - y[mine]) ** 2).mean().backward(); opt.step()
        ref_opt.zero_grad(); ((ref(xg) - y) ** 2).mean().backward(); ref_opt.step()
    sd = fsdp.state_dict()
    out["checkpoint_" + strategy] = [list(sd) == list(ref.state_dict()), maxdiff(sd, ref.state_dict())]
with open("result%d.json" % r, "w") as f:
    json.dump(out, f)
dist.destroy_process_group()
