"""FSDP's optimizer state dicts (1.13's full_optim_state_dict and shard_full_optim_state_dict).
An optimizer built on an FSDP model's parameters holds state for the flat shards; the full
optimizer state dict is keyed by the original parameters' (unwrapped) names instead of indices:

    {"state": {"blocks.0.fc.weight": {"step": ..., "exp_avg": <the parameter's shape>, ...}, ...},
     "param_groups": [{"lr": ..., ..., "params": ["embed.weight", ...]}]}

A state of the flat parameter's size (exp_avg, momentum_buffer, ...) is all-gathered, cut back
into the original parameters and reshaped; any other state (step) is the same for all of them.
Sharding reverses it for this rank, whatever world size or wrapping wrote the full dict."""
import copy

from ... import _C
from ... import distributed as dist
from ...autograd.grad_mode import no_grad
from ._state_dict import clean_name
from .flat_param import FlatParameter

_OP = "FullyShardedDataParallel"


def _names_by_param(model):
    """id(parameter) -> the unwrapped names it stands for (a flat parameter: its originals')."""
    out = {}
    for name, p in model.named_parameters():
        name = clean_name(name)
        if isinstance(p, FlatParameter):
            prefix = name[:-len("flat_param")]
            out[id(p)] = [prefix + info.fqn for info in p._handle.infos]
        else:
            out[id(p)] = [name]
    return out


def _is_flat_state(value, flat):
    return isinstance(value, _C.Tensor) and value.dim() == 1 and value.numel() == flat.numel()


def full_optim_state_dict(model, optim, optim_input=None, rank0_only=True, group=None):
    if optim_input is not None:
        raise ValueError("%s.full_optim_state_dict: optim_input is deprecated in 1.13 and not in "
                         "ember; the optimizer's own parameters are used" % _OP)
    names = _names_by_param(model)
    osd = optim.state_dict()
    to_save = not rank0_only or dist.get_rank(group) == 0
    state, groups = {}, []
    by_index = {}
    for saved, live in zip(osd["param_groups"], optim.param_groups):
        by_index.update(zip(saved["params"], live["params"]))
        group_names = [n for p in live["params"] for n in _param_names(names, p)]
        groups.append(dict(copy.deepcopy({k: v for k, v in saved.items() if k != "params"}),
                           params=group_names))
    for index, p in by_index.items():
        if index not in osd["state"]:
            continue
        own = osd["state"][index]
        if not isinstance(p, FlatParameter):
            state[_param_names(names, p)[0]] = dict(own)
            continue
        h = p._handle
        per_param = [dict() for _ in h.infos]
        for key in sorted(own):  # every rank gathers in the same order
            value = own[key]
            if _is_flat_state(value, p):
                whole = _gather_flat(h, value, group)
                for entry, info in zip(per_param, h.infos):
                    entry[key] = whole[info.offset:info.offset + info.numel].view(info.shape).clone()
            else:
                for entry in per_param:
                    entry[key] = value.clone() if isinstance(value, _C.Tensor) else copy.copy(value)
        for name, entry in zip(_param_names(names, p), per_param):
            state[name] = entry
    return {"state": state, "param_groups": groups} if to_save else {}


def _param_names(names, p):
    if id(p) not in names:
        raise ValueError("%s: the optimizer holds a parameter that is not the model's (build the "
                         "optimizer on the FSDP model's parameters())" % _OP)
    return names[id(p)]


def _gather_flat(h, value, group):
    """A flat-shard-sized state gathered whole (N elements)."""
    with no_grad():
        if not h.sharded:
            return value.detach()
        whole = _C.empty((h.padded_numel,), dtype=value.dtype, device=value.device)
        dist.all_gather_into_tensor(whole, value.detach().contiguous(), group=h.process_group)
        return whole[:h.numel]


def shard_full_optim_state_dict(full_optim_state_dict, model, optim_input=None, optim=None):
    full = full_optim_state_dict
    if not isinstance(full, dict) or "state" not in full or "param_groups" not in full:
        raise ValueError('`optim_state_dict` must have the keys "state" and "param_groups" to be '
                         "a valid optimizer state dict")
    if optim_input is not None:
        raise ValueError("%s.shard_full_optim_state_dict: optim_input is deprecated in 1.13 and "
                         "not in ember; pass optim= or nothing (model.parameters())" % _OP)
    names = _names_by_param(model)
    params = ([p for g in optim.param_groups for p in g["params"]] if optim is not None
              else list(model.parameters()))
    index_of_name = {}
    state = {}
    for index, p in enumerate(params):
        own = _param_names(names, p)
        for n in own:
            index_of_name[n] = index
        if not isinstance(p, FlatParameter):
            if own[0] in full["state"]:
                state[index] = dict(full["state"][own[0]])
            continue
        entries = [full["state"].get(n) for n in own]
        if all(e is None for e in entries):
            continue
        state[index] = _flatten_state(p, own, entries)
    groups = []
    for g in full["param_groups"]:
        group = copy.deepcopy({k: v for k, v in g.items() if k != "params"})
        missing = [n for n in g["params"] if n not in index_of_name]
        if missing:
            raise ValueError("%s.shard_full_optim_state_dict: the model has no parameters named %s"
                             % (_OP, missing))
        group["params"] = sorted({index_of_name[n] for n in g["params"]})
        groups.append(group)
    return {"state": state, "param_groups": groups}


def _flatten_state(flat, names, entries):
    """One flat parameter's state from its original parameters' full states: this rank's chunk of
    the concatenated per-parameter states; the other states taken once (they must agree)."""
    h = flat._handle
    keys = []
    for e in entries:
        for k in (e or {}):
            if k not in keys:
                keys.append(k)
    out = {}
    with no_grad():
        for key in keys:
            values = [None if e is None else e.get(key) for e in entries]
            sample = next(v for v in values if v is not None)
            if isinstance(sample, _C.Tensor) and sample.dim() > 0:
                parts = []
                for info, name, v in zip(h.infos, names, values):
                    if v is not None and tuple(v.shape) != info.shape:
                        raise ValueError("%s.shard_full_optim_state_dict: state '%s' of '%s' has shape "
                                         "%s, the parameter %s" % (_OP, key, name, list(v.shape),
                                                                   list(info.shape)))
                    parts.append((v if v is not None else _C.zeros(info.shape, dtype=sample.dtype))
                                 .reshape(-1).to(sample.dtype))
                out[key] = h.shard_of(_C.cat(parts)).to(sample.dtype)
            else:
                for name, v in zip(names, values):
                    same = (v is None or (v.equal(sample) if isinstance(v, _C.Tensor) else v == sample))
                    if not same:
                        raise ValueError(
                            "All unflattened parameters comprising a single flattened parameter must "
                            "have scalar state with the same value and dtype, but '%s' of '%s' is %r "
                            "and not %r" % (key, name, v, sample))
                out[key] = sample.clone() if isinstance(sample, _C.Tensor) else copy.copy(sample)
    return out
