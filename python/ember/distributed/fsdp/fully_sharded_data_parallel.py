"""FullyShardedDataParallel for Python modules (torch.distributed.fsdp, PyTorch 1.13), over
ember.distributed's collectives. The design is the C++ side's (include/ember/nn/parallel/
fully_sharded.h) with 1.13's module layout: an auto-wrap policy replaces the submodules it picks
by FSDP instances of their own (nested units), and every instance owns one flat parameter
(flat_param.py) for the parameters of its module that no nested unit took.

    policy = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={Block})
    model = FSDP(model, auto_wrap_policy=policy, mixed_precision=MixedPrecision(torch.bfloat16))
    opt = torch.optim.AdamW(model.parameters())   # this rank's flat shards only
    loss_fn(model(x), y).backward(); opt.step()    # gradients reduce-scattered by then

The outermost instance is the root; the others share its _TreeState. A unit is gathered before
its forward (or earlier with forward_prefetch); FULL_SHARD frees it again after the forward,
except the root (as 1.13), and gathers it once more before its backward: a hook on the forward's
outputs does it, or the first value autograd saved from it that backward unpacks. For that, the
root's forward runs under saved-tensor hooks that keep views of a unit that will be freed as a
place (unit, sizes, strides, offset) instead of the storage. When a unit's gradients have all
arrived they are reduced asynchronously; the root's final callback (queued on the autograd
engine) waits for the reductions, writes the flat parameters' .grad and frees what is still
gathered. SHARD_GRAD_OP frees after backward (not inside no_sync()); NO_SHARD keeps the whole
flat parameter on every rank (forced at world size 1, as in 1.13).

Differences from 1.13: FULL_SHARD's saved-tensor hooks skip autograd's in-place check for the
tensors saved in a root forward; a unit whose parameters got gradients only in part reduces zeros
for the rest when backward ends (all ranks must agree on which); LOCAL_STATE_DICT and
SHARDED_STATE_DICT also work under NO_SHARD; buffers come back in their own dtype in all three
state dict types. limit_all_gathers: here at most one all-gather runs ahead of the unit in use
(a prefetch), the bound 1.13's flag sets, so both values behave alike."""
import contextlib
import functools
import warnings

from ... import _C
from ... import distributed as dist
from ...autograd.grad_mode import no_grad
from ...autograd.graph import saved_tensors_hooks
from ...nn.modules.batchnorm import _BatchNorm
from ...nn.modules.module import Module
from . import _optim_state, _state_dict
# The configuration values live in api.py; 1.13 defines them here, and programs import them
# from this module's path too.
from .api import (STATE_DICT_CONFIG_OF, BackwardPrefetch, CPUOffload, FullStateDictConfig,  # noqa: F401
                  LocalStateDictConfig, MixedPrecision, OptimStateKeyType, ShardedStateDictConfig,
                  ShardingStrategy, StateDictConfig, StateDictType)
from .flat_param import FlatParamHandle, collect_params
from .flatten_params_wrapper import FPW_MODULE, FlattenParamsWrapper
from .wrap import _or_policy, _recursive_wrap, _wrap_batchnorm_individually

FSDP_WRAPPED_MODULE = "_fsdp_wrapped_module"
_OP = "FullyShardedDataParallel"


class _TreeState:
    """What the FSDP instances of one tree share; the root creates it and adopts the others."""

    def __init__(self, root):
        self.root = root
        self.instances = [root]      # every instance of the tree, preorder (the root first)
        self.sync_gradients = True   # False inside no_sync()
        self.order = []              # handles in the first forward's order
        self.order_recorded = False
        self.in_forward = False
        self.callback_queued = False
        self.pending = []            # reductions issued in this backward, in issue order
        # Gathered storages that will be freed after their unit's forward, by address.
        self.freeable = {}
        self.buffers_cast = False
        self.buffer_dtypes = []      # (module, name, own dtype) of the buffers cast

    def neighbour(self, handle, step):
        """The handle before (step -1) or after (+1) ``handle`` in the first forward's order."""
        for i, h in enumerate(self.order):
            if h is handle:
                j = i + step
                return self.order[j] if 0 <= j < len(self.order) else None
        return None


class _SavedPlace:
    """A view of a gathered unit that autograd saved, remembered by place (FULL_SHARD)."""

    __slots__ = ("owner", "handle", "sizes", "strides", "offset")

    def __init__(self, owner, handle, t):
        self.owner, self.handle = owner, handle
        self.sizes, self.strides, self.offset = tuple(t.shape), t.stride(), t.storage_offset()


def _is_fsdp(m):
    return isinstance(m, FullyShardedDataParallel)


def _map_tensors(fn, obj):
    if isinstance(obj, _C.Tensor):
        return fn(obj)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a namedtuple
        return type(obj)(*(_map_tensors(fn, o) for o in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(_map_tensors(fn, o) for o in obj)
    if isinstance(obj, dict):
        return type(obj)((k, _map_tensors(fn, v)) for k, v in obj.items())
    return obj


def _check_arguments(module, sharding_strategy, cpu_offload, auto_wrap_policy, backward_prefetch,
                     mixed_precision, param_init_fn, device_id):
    """Validates the constructor's arguments (before any communication); returns the device to
    move the module to, or None."""
    if not isinstance(module, Module):
        raise TypeError("%s: expected an nn.Module to wrap, got %s" % (_OP, type(module).__name__))
    if _is_fsdp(module):
        raise ValueError("%s: the module is already FullyShardedDataParallel; wrap the unwrapped "
                         "module once (nested units come from auto_wrap_policy or from wrapping "
                         "submodules before the whole)" % _OP)
    if sharding_strategy is not None and not isinstance(sharding_strategy, ShardingStrategy):
        raise ValueError("%s: sharding_strategy must be a ShardingStrategy (FULL_SHARD, "
                         "SHARD_GRAD_OP or NO_SHARD), got %r" % (_OP, sharding_strategy))
    if cpu_offload is not None:
        if not isinstance(cpu_offload, CPUOffload):
            raise ValueError("%s: cpu_offload must be a CPUOffload, got %r" % (_OP, cpu_offload))
        if cpu_offload.offload_params:
            raise ValueError(
                "%s: CPUOffload(offload_params=True) moves the shards off an accelerator between "
                "uses; ember's FSDP computes on the CPU, where they are already: pass "
                "CPUOffload(offload_params=False) or None" % _OP)
    if auto_wrap_policy is not None and not callable(auto_wrap_policy):
        raise TypeError("%s: auto_wrap_policy must be a callable (module, recurse, "
                        "unwrapped_params) -> bool, got %r" % (_OP, auto_wrap_policy))
    if backward_prefetch is not None and not isinstance(backward_prefetch, BackwardPrefetch):
        raise ValueError("%s: backward_prefetch must be None or a BackwardPrefetch (BACKWARD_PRE, "
                         "BACKWARD_POST), got %r" % (_OP, backward_prefetch))
    if mixed_precision is not None:
        if not isinstance(mixed_precision, MixedPrecision):
            raise ValueError("%s: mixed_precision must be a MixedPrecision, got %r"
                             % (_OP, mixed_precision))
        for field in ("param_dtype", "reduce_dtype", "buffer_dtype"):
            dt = getattr(mixed_precision, field)
            if dt is not None and not (isinstance(dt, _C.dtype) and dt.is_floating_point):
                raise ValueError("%s: MixedPrecision.%s must be a floating dtype, got %r"
                                 % (_OP, field, dt))
        if mixed_precision.keep_low_precision_grads:
            raise ValueError("%s: MixedPrecision(keep_low_precision_grads=True) is not in ember: a "
                             "gradient must have its parameter's dtype here" % _OP)
    if param_init_fn is not None:
        raise ValueError("%s: param_init_fn materializes modules built on the meta device, which "
                         "ember does not have; build the module with real tensors and leave "
                         "param_init_fn out" % _OP)
    if device_id is None:
        return None
    device = _C.device("cuda", device_id) if isinstance(device_id, int) else _C.device(device_id)
    if device.type == "cpu":
        return None
    if not _C._cuda_is_available():
        raise RuntimeError(
            "%s(device_id=%r): device_id names a CUDA device, and this ember has no CUDA device "
            "(a CPU build, or no GPU visible). Leave device_id out (or pass 'cpu') to run FSDP on "
            "the CPU" % (_OP, device_id))
    return device


class FullyShardedDataParallel(Module):
    """Shards a module's parameters, gradients and optimizer state across the ranks of a process
    group (see the module comment). Every rank must construct it the same way and run the same
    forwards and backwards."""

    def __init__(self, module, process_group=None, sharding_strategy=None, cpu_offload=None,
                 auto_wrap_policy=None, backward_prefetch=None, mixed_precision=None,
                 ignored_modules=None, param_init_fn=None, device_id=None,
                 sync_module_states=False, forward_prefetch=False, limit_all_gathers=False):
        device = _check_arguments(module, sharding_strategy, cpu_offload, auto_wrap_policy,
                                  backward_prefetch, mixed_precision, param_init_fn, device_id)
        if not dist.is_initialized():
            raise RuntimeError("%s: the default process group has not been initialized; call "
                               "torch.distributed.init_process_group() first" % _OP)
        super().__init__()
        ignored = self._ignored_modules(module, ignored_modules)
        if device is not None:
            module.to(device)
        if auto_wrap_policy is not None:
            policy = auto_wrap_policy
            mp = mixed_precision
            if mp is not None and any(isinstance(m, _BatchNorm) for m in module.modules()):
                # As 1.13: BatchNorm gets a unit of its own without mixed precision.
                warnings.warn("Mixed precision was specified for FSDP module with batchnorm "
                              "submodules wrapped via ``auto_wrap_policy``. BatchNorm units will "
                              "be wrapped as a separate FSDP unit, with mixed_precision disabled "
                              "(i.e. set to ``None``) as several BatchNorm kernels would raise "
                              "errors when operating on reduced precision inputs.")
                for m in module.modules():
                    if isinstance(m, _BatchNorm):
                        m._wrap_overrides = {"mixed_precision": None}
                policy = functools.partial(_or_policy, policies=[_wrap_batchnorm_individually,
                                                                 auto_wrap_policy])
            for name, m in module.named_modules():
                if _is_fsdp(m) and m not in ignored:
                    raise ValueError("Expected '%s' to NOT be FullyShardedDataParallel if using an "
                                     "`auto_wrap_policy`" % name)
            ignored_params = [p for m in ignored for p in m.parameters()]
            # The nested units ignore the same modules (1.13 leaves them out of their arguments).
            wrapper = functools.partial(FullyShardedDataParallel, ignored_modules=ignored)
            _recursive_wrap(module, policy, wrapper, ignored, ignored_params,
                            only_wrap_children=True, process_group=process_group,
                            sharding_strategy=sharding_strategy, cpu_offload=cpu_offload,
                            backward_prefetch=backward_prefetch, mixed_precision=mixed_precision,
                            device_id=device_id,
                            sync_module_states=sync_module_states,
                            forward_prefetch=forward_prefetch, limit_all_gathers=limit_all_gathers)
        self.process_group = process_group
        self.rank = dist.get_rank(process_group)
        self.world_size = dist.get_world_size(process_group)
        self.sharding_strategy = (ShardingStrategy.NO_SHARD if self.world_size == 1
                                  else sharding_strategy or ShardingStrategy.FULL_SHARD)
        self.mixed_precision = mixed_precision or MixedPrecision()
        self.cpu_offload = cpu_offload or CPUOffload()
        self.backward_prefetch = backward_prefetch
        self.forward_prefetch = bool(forward_prefetch)
        self.limit_all_gathers = bool(limit_all_gathers)
        ignored_ids = {id(m) for m in ignored}
        skip = lambda m: _is_fsdp(m) or id(m) in ignored_ids  # noqa: E731
        places = collect_params(module, skip)
        handle = None
        if places:
            handle = FlatParamHandle(places, process_group, self.rank, self.world_size,
                                     self.sharding_strategy != ShardingStrategy.NO_SHARD,
                                     self.mixed_precision, sync_module_states)
            handle.on_grads_ready = self._grads_ready
        self._handle = handle
        if sync_module_states and self.world_size > 1:
            with no_grad():
                for m in self._region_modules(module, skip):
                    for b in m._buffers.values():
                        if b is not None:
                            dist.broadcast(b, 0, group=process_group)
        self._fsdp_wrapped_module = FlattenParamsWrapper(module, handle.flat_param if handle else None)
        self._ignored_module_ids = ignored_ids
        self._state_dict_type = StateDictType.FULL_STATE_DICT
        self._state_dict_config = FullStateDictConfig()
        self._open_load = None  # the summon a FULL_STATE_DICT load keeps open over its subtree
        tree = _TreeState(self)
        for m in module.modules():
            if _is_fsdp(m):
                m._tree = tree
                tree.instances.append(m)
        self._tree = tree
        self._register_load_state_dict_pre_hook(self._pre_load_hook)
        self.register_load_state_dict_post_hook(FullyShardedDataParallel._post_load_hook)

    @staticmethod
    def _ignored_modules(module, ignored_modules):
        if ignored_modules is None:
            return set()
        out = set()
        for m in ignored_modules:
            if not isinstance(m, Module):
                raise TypeError("%s: ignored_modules must be nn.Modules, got %s"
                                % (_OP, type(m).__name__))
            if _is_fsdp(m):
                raise ValueError("%s: ignored_modules must not be FullyShardedDataParallel "
                                 "instances" % _OP)
            out.update(m.modules())  # their submodules are ignored with them
        return out

    @staticmethod
    def _region_modules(module, skip):
        """The modules of a unit's region: ``module``'s tree without nested units and ignored
        modules, each once."""
        out, seen, stack = [], set(), [module]
        while stack:
            m = stack.pop(0)
            if id(m) not in seen:
                seen.add(id(m))
                out.append(m)
                stack.extend(c for c in m._modules.values() if c is not None and not skip(c))
        return out

    # ── module access ─────────────────────────────────────────────────────────────────────────
    @property
    def module(self):
        """The wrapped module (as DistributedDataParallel's .module)."""
        return self._fsdp_wrapped_module.module

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name == FSDP_WRAPPED_MODULE or FSDP_WRAPPED_MODULE not in self.__dict__.get("_modules", {}):
                raise
            return getattr(self._modules[FSDP_WRAPPED_MODULE], name)

    def __getitem__(self, key):
        return self._modules[FSDP_WRAPPED_MODULE].__getitem__(key)

    def check_is_root(self):
        return self._tree.root is self

    @staticmethod
    def fsdp_modules(module, root_only=False):
        """The FSDP instances in ``module``'s tree (``module`` included), only the roots if
        ``root_only``."""
        return [m for m in module.modules() if _is_fsdp(m) and (not root_only or m.check_is_root())]

    def params_with_grad(self):
        return [p for p in self.parameters() if p.grad is not None]

    def register_comm_hook(self, state, hook):
        raise NotImplementedError("%s.register_comm_hook is not in ember: gradients are reduced "
                                  "with ReduceOp.AVG in the reduce dtype" % _OP)

    # ── forward ───────────────────────────────────────────────────────────────────────────────
    def forward(self, *args, **kwargs):
        tree = self._tree
        in_backward = _C._is_running_backward()  # a recompute (activation checkpointing)
        if self is tree.root and not tree.in_forward and not in_backward:
            return self._root_forward(args, kwargs)
        if not tree.in_forward and not in_backward:
            raise RuntimeError("%s: this instance is nested inside another FullyShardedDataParallel "
                               "(the root of its tree); run the model through the root's forward"
                               % _OP)
        return self._unit_forward(args, kwargs)

    def _root_forward(self, args, kwargs):
        tree = self._tree
        if not tree.buffers_cast:
            self._cast_buffers()
        tree.in_forward = True
        tree.callback_queued = False
        # Only storages gathered now are recognised (an address may be reused once freed).
        tree.freeable = {f._handle.storage_address(): f for f in tree.instances
                         if f._frees_after_forward() and f._handle.is_unsharded}
        for fsdp in tree.instances:
            if fsdp._handle is not None:
                fsdp._handle.begin_backward()
        try:
            frees = any(f._frees_after_forward() for f in tree.instances)
            hooks = (saved_tensors_hooks(self._pack, self._unpack)
                     if frees and _C.is_grad_enabled() else contextlib.nullcontext())
            with hooks:
                out = self._unit_forward(args, kwargs)
        finally:
            tree.in_forward = False
        tree.order_recorded = True
        return out

    def _unit_forward(self, args, kwargs):
        tree, h = self._tree, self._handle
        if h is not None:
            self._unshard(h)
            if not tree.order_recorded:
                if all(o is not h for o in tree.order):
                    tree.order.append(h)
            elif self.forward_prefetch:
                nxt = tree.neighbour(h, +1)
                if nxt is not None:
                    nxt.prefetch()
        if self.mixed_precision.param_dtype is not None:
            dt = self.mixed_precision.param_dtype
            cast = lambda t: t.to(dt) if t.is_floating_point() and t.dtype != dt else t  # noqa: E731
            args, kwargs = _map_tensors(cast, args), _map_tensors(cast, kwargs)
        out = self._fsdp_wrapped_module(*args, **kwargs)
        if h is not None:
            if self._frees_after_forward() and not _C._is_running_backward():
                self._reshard(h)
            if _C.is_grad_enabled():
                _map_tensors(self._register_pre_backward_hook, out)
        return out

    def _frees_after_forward(self):
        return (self.sharding_strategy == ShardingStrategy.FULL_SHARD and self._handle is not None
                and self._tree.root is not self)

    def _frees_after_backward(self):
        return (self.sharding_strategy != ShardingStrategy.SHARD_GRAD_OP
                or self._tree.sync_gradients)

    def _unshard(self, h):
        before = h.storage_address()
        h.unshard()  # may regather a stale copy: its old address must not be recognised any more
        address = h.storage_address()
        if before is not None and before != address:
            self._tree.freeable.pop(before, None)
        if self._frees_after_forward() and address is not None:
            self._tree.freeable[address] = self

    def _reshard(self, h):
        address = h.storage_address()
        if address is not None:
            self._tree.freeable.pop(address, None)
        h.reshard()

    # Saved-tensor hooks of the root's forward (FULL_SHARD): a view of a unit that will be freed
    # is kept by place, and backward rebuilds it from the unit gathered again.
    def _pack(self, t):
        freeable = self._tree.freeable
        if freeable and t.numel():
            owner = freeable.get(t.data_ptr() - t.storage_offset() * t.element_size())
            if owner is not None:
                return _SavedPlace(owner, owner._handle, t)
        return t

    def _unpack(self, packed):
        if not isinstance(packed, _SavedPlace):
            return packed
        packed.owner._pre_backward()
        return packed.handle.saved_view(packed.sizes, packed.strides, packed.offset)

    # ── backward ──────────────────────────────────────────────────────────────────────────────
    def _register_pre_backward_hook(self, t):
        if t.requires_grad:
            t.register_hook(self._pre_backward_hook)
        return t

    def _pre_backward_hook(self, grad):
        self._pre_backward()

    def _pre_backward(self):
        """Before a unit's gradients are computed: its parameters gathered (FULL_SHARD freed
        them), the root's final callback queued, the next unit prefetched (BACKWARD_PRE)."""
        self._queue_finish()
        h = self._handle
        if h is None or h.pre_backward_done:
            return
        h.pre_backward_done = True
        self._unshard(h)
        if self.backward_prefetch == BackwardPrefetch.BACKWARD_PRE:
            self._prefetch_before(h)

    def _prefetch_before(self, h):
        prev = self._tree.neighbour(h, -1)
        if prev is not None:
            prev.prefetch()

    def _queue_finish(self):
        tree = self._tree
        if not tree.callback_queued:
            tree.callback_queued = True
            _C._queue_callback(tree.root._finish_backward)

    def _grads_ready(self, h):
        """Every gradient of the unit has arrived: reduce them (or add them up under no_sync)."""
        self._queue_finish()
        if not h.reduce_started:
            self._reduce(h)

    def _reduce(self, h):
        tree = self._tree
        pending = h.start_reduce(tree.sync_gradients)
        if pending is not None:
            tree.pending.append((h, pending))
        if self._frees_after_backward():
            self._reshard(h)
        if self.backward_prefetch == BackwardPrefetch.BACKWARD_POST:
            self._prefetch_before(h)

    def _finish_backward(self):
        """The root's final callback: reduce what got gradients only in part, wait for every
        reduction, free what is still gathered."""
        tree = self._tree
        try:
            for fsdp in tree.instances:
                h = fsdp._handle
                if h is not None and h.arrived and not h.reduce_started:
                    fsdp._reduce(h)
            for h, pending in tree.pending:
                h.finish_reduce(pending)
            for fsdp in tree.instances:
                if fsdp._handle is not None and fsdp._frees_after_backward():
                    fsdp._reshard(fsdp._handle)
        finally:
            tree.pending = []
            tree.callback_queued = False
            for fsdp in tree.instances:
                if fsdp._handle is not None:
                    fsdp._handle.begin_backward()

    @contextlib.contextmanager
    def no_sync(self):
        """Inside, backward reduces nothing: each unit's gradients add up unsharded, and the first
        backward after it reduces them with its own. Root only."""
        if self._tree.root is not self:
            raise RuntimeError("%s.no_sync(): call it on the root instance" % _OP)
        previous = self._tree.sync_gradients
        self._tree.sync_gradients = False
        try:
            yield
        finally:
            self._tree.sync_gradients = previous

    # ── buffers under MixedPrecision.buffer_dtype ─────────────────────────────────────────────
    def _cast_buffers(self):
        """At the root's first forward: each floating buffer cast to the buffer_dtype of the
        innermost instance holding it."""
        tree = self._tree
        tree.buffers_cast = True
        done = set()
        for fsdp in reversed(tree.instances):  # the innermost first
            dt = fsdp.mixed_precision.buffer_dtype
            skip = lambda m: _is_fsdp(m) or id(m) in fsdp._ignored_module_ids  # noqa: E731
            for module in self._region_modules(fsdp.module, skip):
                if id(module) in done:
                    continue
                done.add(id(module))
                for name, b in list(module._buffers.items()):
                    if dt is not None and b is not None and b.is_floating_point() and b.dtype != dt:
                        tree.buffer_dtypes.append((module, name, b.dtype, dt))
                        module._buffers[name] = b.to(dt)

    @contextlib.contextmanager
    def _buffers_in_own_dtype(self):
        """Buffers back in their own dtype (for state dicts), cast again afterwards (what a load
        put in them included)."""
        entries = self._tree.buffer_dtypes if self._tree.root is self else []
        for module, name, own, _ in entries:
            module._buffers[name] = module._buffers[name].to(own)
        try:
            yield
        finally:
            for module, name, _, low in entries:
                module._buffers[name] = module._buffers[name].to(low)

    # ── full parameters ───────────────────────────────────────────────────────────────────────
    @contextlib.contextmanager
    def _summon_own(self, writeback, register=True):
        """This unit's original parameters back in their modules as full-precision Parameters
        (the flat parameter unregistered meanwhile); with ``writeback`` what they hold at the
        end goes back into the shard."""
        h = self._handle
        if h is None:
            yield
            return
        full = h.gather_full_precision()
        if not register:
            yield
            return
        fpw = self._fsdp_wrapped_module
        flat = fpw._parameters.pop("flat_param")
        h.register_params(full)
        try:
            yield
        finally:
            h.unregister_params()
            fpw._parameters["flat_param"] = flat
            if writeback:
                h.write_back(full)

    @staticmethod
    @contextlib.contextmanager
    def summon_full_params(module, recurse=True, writeback=True, rank0_only=False,
                           offload_to_cpu=False):
        """Inside, the FSDP instances of ``module`` (all of them, or ``module`` itself when not
        ``recurse``) show their original parameters, gathered in full precision; with
        ``writeback`` changes to them are kept. rank0_only: the other ranks only take part in the
        gathers. offload_to_cpu: the parameters must already be in CPU memory (ember's full
        parameters live where the shards do; offloading device parameters is refused)."""
        if offload_to_cpu:
            for p in module.parameters():
                if p.device.type != "cpu":
                    raise NotImplementedError(
                        "summon_full_params(offload_to_cpu=True): the parameters are on "
                        f"{p.device}; ember gathers them where they are and does not offload "
                        "them to CPU memory")
        if rank0_only and writeback:
            raise ValueError("writeback=True and rank0_only=True is not supported, as model "
                             "parameter shapes will be different across ranks, and writing to "
                             "them can lead to inconsistencies across ranks when the context is "
                             "exited.")
        instances = (FullyShardedDataParallel.fsdp_modules(module) if recurse
                     else [module] if _is_fsdp(module) else [])
        with contextlib.ExitStack() as stack:
            for fsdp in instances:
                register = not rank0_only or fsdp.rank == 0
                stack.enter_context(fsdp._summon_own(writeback, register))
            yield

    def apply(self, fn):
        """Module.apply with this unit's full parameters in place (changes are kept)."""
        with self._summon_own(writeback=True):
            return super().apply(fn)

    def _summoned(self):
        return any("flat_param" not in f._fsdp_wrapped_module._parameters
                   for f in self._tree.instances if f._handle is not None)

    def named_parameters(self, *args, **kwargs):
        """Inside summon_full_params the original names (1.13 cleans them there)."""
        clean = self._summoned()
        for name, p in super().named_parameters(*args, **kwargs):
            yield (_state_dict.clean_name(name) if clean else name), p

    # ── gradient clipping ─────────────────────────────────────────────────────────────────────
    def clip_grad_norm_(self, max_norm, norm_type=2.0):
        """nn.utils.clip_grad_norm_ over the whole model: the norm of all ranks' shard gradients
        (an all-reduce; NO_SHARD's replicated ones counted once), every gradient scaled by
        max_norm / (norm + 1e-6) when that is below 1. Every rank must call it; root only.
        Returns the total norm before clipping."""
        if self._tree.root is not self:
            raise RuntimeError("%s.clip_grad_norm_: call it on the root instance" % _OP)
        from ...linalg import vector_norm
        max_norm, norm_type = float(max_norm), float(norm_type)
        flat_ids = {id(f._handle.flat_param): f for f in self._tree.instances if f._handle is not None}
        grads, local = [], None
        for p in self.parameters():
            if p.grad is None:
                continue
            g = p.grad.detach()
            grads.append(g)
            owner = flat_ids.get(id(p))
            if owner is not None and owner.sharding_strategy == ShardingStrategy.NO_SHARD and self.rank:
                continue  # a replicated gradient: rank 0 counts it
            if norm_type == float("inf"):
                v = g.abs().max() if g.numel() else _C.zeros((), dtype=g.dtype)
                local = v if local is None else _C.maximum(local, v)
            else:
                v = vector_norm(g, norm_type) ** norm_type
                local = v if local is None else local + v
        dtype = grads[0].dtype if grads else _C.float32
        total = (local if local is not None else _C.zeros((), dtype=dtype)).to(dtype).reshape(1).clone()
        dist.all_reduce(total, op=dist.ReduceOp.MAX if norm_type == float("inf") else dist.ReduceOp.SUM,
                        group=self.process_group)
        total = total[0] if norm_type == float("inf") else total[0] ** (1.0 / norm_type)
        coef = max_norm / (float(total) + 1e-6)
        if coef < 1:
            with no_grad():
                for g in grads:
                    g.mul_(coef)
        return total

    # ── state dicts ───────────────────────────────────────────────────────────────────────────
    @staticmethod
    @contextlib.contextmanager
    def state_dict_type(module, state_dict_type, state_dict_config=None):
        """Inside, state_dict()/load_state_dict() of every FSDP instance in ``module``'s tree deal
        in ``state_dict_type`` (a StateDictType) with its config (FullStateDictConfig, ...)."""
        if not isinstance(state_dict_type, StateDictType):
            raise ValueError("%s.state_dict_type: expected a StateDictType (FULL_STATE_DICT, "
                             "LOCAL_STATE_DICT, SHARDED_STATE_DICT), got %r" % (_OP, state_dict_type))
        expected = STATE_DICT_CONFIG_OF[state_dict_type]
        if state_dict_config is None:
            state_dict_config = expected()
        if type(state_dict_config) is not expected:
            raise RuntimeError("Expected state_dict_config of type %s but got %s"
                               % (expected, type(state_dict_config)))
        instances = FullyShardedDataParallel.fsdp_modules(module)
        previous = [(m._state_dict_type, m._state_dict_config) for m in instances]
        if len({t for t, _ in previous}) > 1:
            raise RuntimeError("All FSDP module should the same state_dict_type.")
        for m in instances:
            m._state_dict_type, m._state_dict_config = state_dict_type, state_dict_config
        try:
            yield
        finally:
            for m, (t, c) in zip(instances, previous):
                m._state_dict_type, m._state_dict_config = t, c

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """The model's state in the current state_dict_type (FULL_STATE_DICT unless inside
        state_dict_type()): see StateDictType. Every rank must call it."""
        if args:  # the deprecated positional form, as Module.state_dict takes it
            destination = args[0] if destination is None else destination
            prefix = args[1] if len(args) > 1 and prefix == "" else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        return _state_dict.save(self, destination, prefix, keep_vars)

    def load_state_dict(self, state_dict, strict=True):
        """Loads what state_dict() gave in the same state_dict_type (a FULL_STATE_DICT is the
        plain model's state dict). Every rank must call it."""
        return _state_dict.load(self, state_dict, strict)

    def _pre_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys,
                       unexpected_keys, error_msgs):
        _state_dict.pre_load(self, state_dict, prefix, missing_keys, error_msgs)

    @staticmethod
    def _post_load_hook(module, incompatible_keys):
        _state_dict.post_load(module)

    # ── optimizer state ───────────────────────────────────────────────────────────────────────
    @staticmethod
    def full_optim_state_dict(model, optim, optim_input=None, rank0_only=True, group=None):
        """The optimizer's state with every state tensor gathered and cut back into the original
        parameters, keyed by their (unwrapped) names: {"state": {name: {...}}, "param_groups":
        [{..., "params": [names]}]}. With rank0_only the other ranks get {}. Every rank calls it."""
        return _optim_state.full_optim_state_dict(model, optim, optim_input, rank0_only, group)

    @staticmethod
    def shard_full_optim_state_dict(full_optim_state_dict, model, optim_input=None, optim=None):
        """What full_optim_state_dict() gave, as this rank's optimizer state dict for an optimizer
        built on ``model.parameters()`` (pass it to optim.load_state_dict)."""
        return _optim_state.shard_full_optim_state_dict(full_optim_state_dict, model, optim_input,
                                                        optim)
