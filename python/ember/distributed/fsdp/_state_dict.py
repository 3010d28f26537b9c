"""FSDP's state dicts in the three 1.13 types. Each instance works on its own unit around
nn.Module's walk of its subtree, so nested units, shared parameters and wrappers compose:

- FULL_STATE_DICT: the unit's original parameters are put back into their modules gathered in full
  precision for the walk, so the keys are the unwrapped model's in its order; the values are
  copies. Loading puts them back the same way and writes this rank's chunk into the shard.
- LOCAL_STATE_DICT: the flat shard (without padding) as a 1-d ShardedTensor under
  "<unit>.flat_param" at offset rank * chunk of the N elements.
- SHARDED_STATE_DICT: the unwrapped keys, each parameter a ShardedTensor of its dim-0 chunk
  (shard_dim0, as 1.13 cuts it); loading all-gathers the chunks and re-flattens.

Buffers are replicated tensors under their unwrapped keys in all three. The internal names
(_fsdp_wrapped_module., _fpw_module., and _checkpoint_wrapped_module. of activation
checkpointing) are taken out of the keys on save and put back on load."""
import contextlib
from collections import OrderedDict

from ... import _C
from ...autograd.grad_mode import no_grad
from ...nn.modules.module import Module, _IncompatibleKeys
from ..checkpoint.sharded_tensor import ShardedTensor, shard_dim0
from .api import StateDictType

FSDP_WRAPPED_MODULE = "_fsdp_wrapped_module."
_INTERNAL = (FSDP_WRAPPED_MODULE, "_fpw_module.", "_checkpoint_wrapped_module.")
_INNER = FSDP_WRAPPED_MODULE + "_fpw_module."


def clean_name(name):
    """A key or module path without FSDP's (and activation checkpointing's) internal parts."""
    for part in _INTERNAL:
        name = name.replace(part, "")
    return name


def _clean_path(path):
    return clean_name(path + ".").rstrip(".") if path else path


# ── save ─────────────────────────────────────────────────────────────────────────────────────
def save(fsdp, destination, prefix, keep_vars):
    outermost = destination is None
    kind = fsdp._state_dict_type
    summon = (fsdp._summon_own(writeback=False) if kind != StateDictType.LOCAL_STATE_DICT
              else contextlib.nullcontext())
    with fsdp._buffers_in_own_dtype(), summon:
        h = fsdp._handle
        own = {id(p) for p in h.registered} if h is not None and kind != StateDictType.LOCAL_STATE_DICT else set()
        out = Module.state_dict(fsdp, destination=destination, prefix=prefix, keep_vars=True)
        _rewrite(fsdp, out, prefix, keep_vars, kind, own)
    if (outermost and kind == StateDictType.FULL_STATE_DICT and fsdp._state_dict_config.rank0_only
            and fsdp.rank != 0):
        return {}
    return out


def _rewrite(fsdp, out, prefix, keep_vars, kind, own):
    """The subtree's entries under their clean names, in their order, with this unit's values as
    the state dict type wants them."""
    inner = prefix + FSDP_WRAPPED_MODULE
    h = fsdp._handle
    for key in [k for k in out if k.startswith(inner)]:
        value = out.pop(key)
        if isinstance(value, _C.Tensor):
            if id(value) in own and kind == StateDictType.FULL_STATE_DICT:
                value = value.detach().clone()
                if fsdp._state_dict_config.offload_to_cpu:  # the parameters only, as 1.13
                    value = value.cpu()
            elif id(value) in own:
                value = _dim0_chunk(value, fsdp.rank, fsdp.world_size)
            elif h is not None and value is h.flat_param:
                value = _local_flat(h)
            elif not keep_vars:
                value = value.detach()
        out[prefix + clean_name(key[len(prefix):])] = value
    metadata = getattr(out, "_metadata", None)
    if metadata is not None:
        for path in [p for p in metadata if p == inner[:-1] or p.startswith(inner)]:
            # The wrapped module's entry comes last and wins (its version is the one to keep).
            metadata[prefix + _clean_path(path[len(prefix):])] = metadata.pop(path)


def _dim0_chunk(param, rank, world):
    with no_grad():
        if param.dim() == 0:
            return param.detach().clone()
        block = shard_dim0(param.detach(), rank, world)
        return ShardedTensor(block.local_tensor().clone(), block.offsets, block.global_size)


def _local_flat(h):
    """LOCAL_STATE_DICT's value: the shard without its padding, at its place among N elements."""
    shard = h.flat_param.detach()
    valid = h.chunk - h.shard_padding
    offset = min(h.rank * h.chunk, h.numel) if h.sharded else 0
    return ShardedTensor(shard[:valid], [offset], [h.numel])


# ── load ─────────────────────────────────────────────────────────────────────────────────────
def load(fsdp, state_dict, strict):
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        # Module.load_state_dict looks versions up by the modules' own (wrapped) paths.
        state_dict = OrderedDict(state_dict)
        state_dict._metadata = OrderedDict(metadata)
        for path, _ in fsdp.named_modules():
            clean = _clean_path(path)
            if path != clean and clean in metadata:
                state_dict._metadata[path] = metadata[clean]
    try:
        result = Module.load_state_dict(fsdp, state_dict, strict)
    except RuntimeError as e:
        raise RuntimeError(clean_name(str(e))) from None
    finally:
        for f in fsdp.fsdp_modules(fsdp):  # a load that failed half-way leaves nothing summoned
            if f._open_load is not None:
                f._open_load.close()
                f._open_load = None
    return _IncompatibleKeys([clean_name(k) for k in result.missing_keys],
                             [clean_name(k) for k in result.unexpected_keys])


def _move_keys(state_dict, prefix, rename):
    for key in [k for k in state_dict if k.startswith(prefix)]:
        state_dict[rename(key[len(prefix):])] = state_dict.pop(key)


def pre_load(fsdp, state_dict, prefix, missing_keys, error_msgs):
    """Before nn.Module loads this instance's subtree: its keys moved under the wrapped names,
    and this unit's values made loadable (see the module comment)."""
    kind, h = fsdp._state_dict_type, fsdp._handle
    inner = prefix + FSDP_WRAPPED_MODULE
    if kind == StateDictType.FULL_STATE_DICT:
        if h is not None:
            stack = contextlib.ExitStack()
            stack.enter_context(fsdp._summon_own(writeback=True))
            fsdp._open_load = stack
        _move_keys(state_dict, prefix, lambda rest: prefix + _INNER + rest)
    elif kind == StateDictType.LOCAL_STATE_DICT:
        def rename(rest):
            return inner + rest if rest == "flat_param" else prefix + _INNER + rest
        _move_keys(state_dict, prefix, rename)
        key = inner + "flat_param"
        if h is not None and key in state_dict:
            state_dict[key] = _padded_local(h, state_dict[key], clean_name(key), error_msgs)
    else:
        flat = (_load_sharded_unit(fsdp, state_dict, prefix, missing_keys, error_msgs)
                if h is not None else None)
        _move_keys(state_dict, prefix, lambda rest: prefix + _INNER + rest)
        if flat is not None:
            state_dict[inner + "flat_param"] = flat


def post_load(fsdp):
    if fsdp._open_load is not None:
        stack, fsdp._open_load = fsdp._open_load, None
        stack.close()  # writes the loaded parameters back into the shard


def _padded_local(h, value, key, error_msgs):
    local = value.local_tensor() if isinstance(value, ShardedTensor) else value
    if not isinstance(local, _C.Tensor) or local.dim() != 1 or local.numel() > h.chunk:
        error_msgs.append("size mismatch for %s: expected this rank's flat shard (a 1-d tensor of "
                          "at most %d elements, as LOCAL_STATE_DICT saved it), got %r"
                          % (key, h.chunk, getattr(local, "shape", local)))
        return h.flat_param.detach()
    padded = _C.zeros(h.chunk, dtype=h.dtype, device=local.device)
    padded[:local.numel()].copy_(local)
    return padded


def _load_sharded_unit(fsdp, state_dict, prefix, missing_keys, error_msgs):
    """This unit's new flat shard from the dim-0 chunks under its parameters' keys (each chunk
    all-gathered into the whole parameter); parameters not given keep their values."""
    h = fsdp._handle
    full = h.gather_full_precision()
    if not h.sharded:
        full = full.clone()
    with no_grad():
        for info in h.infos:
            key = prefix + info.fqn
            value = state_dict.pop(key, None)
            for other in info.fqns[1:]:  # a shared parameter's other names carry the same value
                state_dict.pop(prefix + other, None)
            if value is None:
                missing_keys.append(key)
                continue
            whole = _whole_param(fsdp, value, info.shape, key, error_msgs)
            if whole is not None:
                full[info.offset:info.offset + info.numel].copy_(whole.reshape(-1))
        return h.shard_of(full[:h.numel])


def _whole_param(fsdp, value, shape, key, error_msgs):
    """The whole parameter from this rank's dim-0 chunk and the other ranks' (an all-gather)."""
    from ... import distributed as dist
    if len(shape) == 0:
        if isinstance(value, _C.Tensor):
            return value
        error_msgs.append("While loading %s: expected a tensor for a 0-dim parameter, got %s"
                          % (key, type(value).__name__))
        return None
    if not isinstance(value, ShardedTensor):
        error_msgs.append("While loading %s: SHARDED_STATE_DICT expects a ShardedTensor (what "
                          "state_dict() gave under SHARDED_STATE_DICT), got %s"
                          % (key, type(value).__name__))
        return None
    if list(value.size()) != list(shape):
        error_msgs.append("size mismatch for %s: copying a param with shape %s from checkpoint, "
                          "the shape in current model is %s." % (key, list(value.size()), list(shape)))
        return None
    world, rank = fsdp.world_size, fsdp.rank
    rows = shape[0]
    per_rank = -(-rows // world)
    row_numel = 1
    for s in shape[1:]:
        row_numel *= s
    start = min(rows, per_rank * rank)
    if value.offsets[0] != start or any(value.offsets[1:]):
        error_msgs.append("While loading %s: this rank's chunk starts at %s, expected %s (dim-0 "
                          "chunks of %d rows)" % (key, value.offsets, [start] + [0] * (len(shape) - 1),
                                                  per_rank))
        return None
    local = value.local_tensor().reshape(-1)
    block = _C.zeros(per_rank * row_numel, dtype=local.dtype, device=local.device)
    block[:local.numel()].copy_(local)
    out = _C.empty((per_rank * row_numel * world,), dtype=local.dtype, device=local.device)
    dist.all_gather_into_tensor(out, block, group=fsdp.process_group)
    return out[:rows * row_numel].view(shape)
