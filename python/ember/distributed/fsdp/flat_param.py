"""One FSDP unit's parameters as a flat parameter (PyTorch 1.13's FlatParameter and its handle).

The unit's parameters (every parameter of its module's tree that no nested FSDP unit or ignored
module owns, each tensor once, in named_modules order) are concatenated into one 1-d tensor of
N elements. Sharded strategies pad it with zeros at the end to chunk * world elements
(chunk = ceil(N / world)) and keep rank r's elements [r * chunk, (r + 1) * chunk) as the
FlatParameter that the optimizer sees; NO_SHARD keeps all N.

The module's own parameters are taken out of its ``_parameters``; in their place each module
attribute is a plain leaf tensor (one per original parameter, shared by its aliases) that holds
no data (shape [0]) until the unit is gathered ("unsharded"): then its data is a view of the
gathered flat tensor, in the compute dtype (MixedPrecision.param_dtype). Autograd accumulates the
module's gradients into those leaves; once all have arrived the handle flattens them and starts
their reduction (reduce-scatter, or all-reduce under NO_SHARD, with ReduceOp.AVG), whose result
is added to the FlatParameter's .grad when the root finishes the backward. Freeing a gathered
unit swaps the leaves' data back to empty tensors, which drops the gathered storage while
autograd still holds the leaves."""
import weakref
from collections import OrderedDict

from ... import _C
from ... import distributed as dist
from ...autograd.grad_mode import no_grad
from ...nn.parameter import Parameter

_OP = "FullyShardedDataParallel"


class FlatParameter(Parameter):
    """This rank's part of a unit's flattened parameters (see the module comment). The
    unflattened parameters' names, shapes and sizes are on the handle (``_handle``)."""


class ParamInfo:
    """One original parameter: where it sits in the flat tensor and every (module, name) that
    held it (a shared parameter has several places)."""

    __slots__ = ("fqn", "shape", "numel", "offset", "places", "requires_grad")

    def __init__(self, fqn, shape, numel, offset, places, requires_grad):
        self.fqn, self.shape, self.numel, self.offset = fqn, shape, numel, offset
        self.places, self.requires_grad = places, requires_grad

    @property
    def fqns(self):
        return [fqn for fqn, _, _ in self.places]


def collect_params(module, skip):
    """(fqn, module, name, parameter) for each parameter place in ``module``'s tree, in
    named_modules order, not descending into modules for which ``skip(m)`` is true (nested FSDP
    instances, ignored modules). A module reached twice is visited once."""
    out, seen = [], set()

    def walk(m, prefix):
        if id(m) in seen:
            return
        seen.add(id(m))
        for name, p in m._parameters.items():
            if p is not None:
                out.append((prefix + name, m, name, p))
        for child_name, child in m._modules.items():
            if child is not None and not skip(child):
                walk(child, prefix + child_name + ".")

    walk(module, "")
    return out


def _dtype_name(dtype):
    return str(dtype).replace("torch.", "")


class FlatParamHandle:
    """Owns a unit's flat parameter: building it, gathering and freeing its compute copy, and
    reducing its gradients. ``sharded``: FULL_SHARD or SHARD_GRAD_OP (else NO_SHARD)."""

    def __init__(self, places, process_group, rank, world, sharded, mixed_precision,
                 sync_module_states):
        self.process_group, self.rank, self.world, self.sharded = process_group, rank, world, sharded
        uniques = OrderedDict()  # id(param) -> (param, [places])
        for fqn, module, name, p in places:
            if getattr(p, "_fsdp_flattened", False):
                raise ValueError(
                    "%s: parameter '%s' is shared with a module that another FSDP unit already "
                    "flattened; modules that share parameters must be in the same unit" % (_OP, fqn))
            uniques.setdefault(id(p), (p, []))[1].append((fqn, module, name))
        params = [p for p, _ in uniques.values()]
        first, first_name = params[0], places[0][0]
        for p, pl in uniques.values():
            name = pl[0][0]
            if p.dtype != first.dtype:
                raise ValueError("%s: the parameters of one unit must share a dtype; '%s' is %s and "
                                 "'%s' is %s" % (_OP, first_name, _dtype_name(first.dtype), name,
                                                 _dtype_name(p.dtype)))
            if not p.is_floating_point():
                raise ValueError("%s: parameter '%s' is %s; only floating-point parameters can be "
                                 "flattened" % (_OP, name, _dtype_name(p.dtype)))
            if p.requires_grad != first.requires_grad:
                on, off = (name, first_name) if p.requires_grad else (first_name, name)
                raise ValueError("%s: the parameters of one unit must all require grad or none; "
                                 "'%s' does and '%s' does not" % (_OP, on, off))
        self.requires_grad = first.requires_grad
        self.infos, offset = [], 0
        for p, pl in uniques.values():
            self.infos.append(ParamInfo(pl[0][0], tuple(p.shape), p.numel(), offset, pl, p.requires_grad))
            offset += p.numel()
        self.numel = offset  # N: the parameters' elements
        with no_grad():
            flat = _C.cat([p.detach().reshape(-1) for p in params])
            if sync_module_states and world > 1:
                dist.broadcast(flat, 0, group=process_group)
            if sharded:
                self.chunk = -(-self.numel // world)
                start = min(self.numel, rank * self.chunk)
                valid = min(self.chunk, self.numel - start)
                shard = _C.zeros(self.chunk, dtype=flat.dtype, device=flat.device)
                shard[:valid].copy_(flat[start:start + valid])
                self.shard_padding = self.chunk - valid  # zeros at the end of this shard
            else:
                self.chunk, self.shard_padding = self.numel, 0
                shard = flat
        self.padded_numel = self.chunk * world if sharded else self.numel
        self.flat_param = FlatParameter(shard, requires_grad=self.requires_grad)
        self.flat_param._handle = self
        if sharded:  # this rank's block of the padded flat tensor, for distributed checkpoints
            self.flat_param._dcp_shard = (rank * self.chunk, self.padded_numel)
        self.dtype = first.dtype
        self.compute_dtype = mixed_precision.param_dtype or self.dtype
        self.reduce_dtype = mixed_precision.reduce_dtype or mixed_precision.param_dtype or self.dtype
        # The modules' parameter order, to put summoned parameters back where they were.
        self._orders = OrderedDict()
        for _, module, _, _ in places:
            self._orders.setdefault(id(module), (module, list(module._parameters.keys())))
        self.leaves = []
        ref = weakref.ref(self)  # the hooks live in C++, out of the garbage collector's sight
        for i, info in enumerate(self.infos):
            leaf = self._empty()
            if info.requires_grad:
                leaf.requires_grad_(True)
                leaf.register_post_accumulate_grad_hook(
                    lambda _leaf, i=i: ref() is not None and ref()._grad_arrived(i))
            self.leaves.append(leaf)
            params[i]._fsdp_flattened = True  # a second unit must not flatten it again
            for _, module, name in info.places:
                del module._parameters[name]
                object.__setattr__(module, name, leaf)
        self._full = None      # the gathered flat tensor in compute dtype while unsharded
        self._full_version = None
        self._gather = None    # (full, work, source, version) of an all-gather in flight
        self.on_grads_ready = None  # called with the handle once every gradient has arrived
        self.unsharded_grad = None  # no_sync(): the unreduced gradient sum (shard dtype)
        self.registered = []  # the Parameters register_params put in the modules
        self.begin_backward()
        if not sharded and self.compute_dtype == self.dtype:
            self.unshard()  # the views alias the flat parameter itself: always valid (as 1.13)

    # ── gathering ─────────────────────────────────────────────────────────────────────────────
    def _empty(self):
        return _C.empty((0,), dtype=self.compute_dtype, device=self.flat_param.device)

    @property
    def is_unsharded(self):
        return self._full is not None

    @property
    def views_alias_flat_param(self):
        return not self.sharded and self.compute_dtype == self.dtype

    def storage_address(self):
        """The gathered storage's address while unsharded (for recognising saved views of it)."""
        return self._full.data_ptr() if self._full is not None and self._full.numel() else None

    def prefetch(self):
        """Issues the all-gather without waiting for it (unshard() finishes it)."""
        if self._full is None and self._gather is None:
            self._start_gather()

    def unshard(self):
        """Gathers the unit (waiting for a prefetch in flight) unless it is gathered and its flat
        parameter unchanged since (an optimizer step makes a gathered copy stale)."""
        if self._full is not None:
            if self._full_version == self.flat_param._version:
                return
            self.reshard()
        if self._gather is None:
            self._start_gather()
        full, work, _source, version = self._gather
        self._gather = None
        if work is not None:
            work.wait()
        self._full, self._full_version = full, version
        with no_grad():
            for info, leaf in zip(self.infos, self.leaves):
                leaf.data = full[info.offset:info.offset + info.numel].view(info.shape)

    def _start_gather(self):
        with no_grad():
            source = self.flat_param.detach()
            if source.dtype != self.compute_dtype:  # 1.13 gathers the low-precision shards
                source = source.to(self.compute_dtype)
            if not self.sharded:
                self._gather = (source, None, source, self.flat_param._version)
                return
            full = _C.empty((self.padded_numel,), dtype=self.compute_dtype, device=source.device)
            work = dist.all_gather_into_tensor(full, source, group=self.process_group, async_op=True)
            self._gather = (full, work, source, self.flat_param._version)

    def reshard(self):
        """Frees the gathered copy (the leaves hold empty data again)."""
        if self._gather is not None:  # a prefetch nobody used: finish it so the ranks stay in step
            work = self._gather[1]
            self._gather = None
            if work is not None:
                work.wait()
        if self._full is None or self.views_alias_flat_param:
            return
        with no_grad():
            for leaf in self.leaves:
                leaf.data = self._empty()
        self._full = None

    def saved_view(self, sizes, strides, offset):
        """A view of the gathered tensor by place (what autograd saved, rebuilt after a regather)."""
        return self._full.as_strided(sizes, strides, offset)

    # ── gradients ─────────────────────────────────────────────────────────────────────────────
    def begin_backward(self):
        self.arrived = set()
        self.reduce_started = False
        self.pre_backward_done = False

    def _grad_arrived(self, index):
        self.arrived.add(index)
        if len(self.arrived) == len(self.infos) and self.on_grads_ready is not None:
            self.on_grads_ready(self)

    def _flat_grad(self):
        """The leaves' gradients as one flat tensor of padded_numel elements (zeros for a
        parameter that got none), the leaves' .grad cleared."""
        parts = []
        for info, leaf in zip(self.infos, self.leaves):
            g = leaf.grad
            parts.append(g.reshape(-1) if g is not None else
                         _C.zeros(info.numel, dtype=self.compute_dtype, device=leaf.device))
            leaf.grad = None
        if self.padded_numel > self.numel:
            parts.append(_C.zeros(self.padded_numel - self.numel, dtype=self.compute_dtype,
                                  device=self.flat_param.device))
        return _C.cat(parts)

    def start_reduce(self, sync):
        """Takes the leaves' gradients: under no_sync() (``sync`` false) adds them to the unreduced
        sum; else starts their reduction (with that sum) and returns what finish_reduce needs."""
        self.reduce_started = True
        with no_grad():
            flat = self._flat_grad()
            if not sync:
                flat = flat.to(self.dtype)
                self.unsharded_grad = flat if self.unsharded_grad is None else self.unsharded_grad.add_(flat)
                return None
            if self.unsharded_grad is not None:
                flat = self.unsharded_grad.add_(flat.to(self.dtype))
                self.unsharded_grad = None
            if flat.dtype != self.reduce_dtype:
                flat = flat.to(self.reduce_dtype)
            if self.sharded:
                out = _C.empty((self.chunk,), dtype=self.reduce_dtype, device=flat.device)
                work = dist.reduce_scatter_tensor(out, flat, op=dist.ReduceOp.AVG,
                                                  group=self.process_group, async_op=True)
            else:
                out = flat
                work = (dist.all_reduce(flat, op=dist.ReduceOp.AVG, group=self.process_group,
                                        async_op=True) if self.world > 1 else None)
            return (out, work, flat)

    def finish_reduce(self, pending):
        """Waits for a reduction and adds its result to the flat parameter's .grad (as 1.13 does,
        so gradients add up over backwards until zero_grad)."""
        out, work, _keep = pending
        if work is not None:
            work.wait()
        with no_grad():
            g = out if out.dtype == self.dtype else out.to(self.dtype)
            if self.flat_param.grad is None:
                self.flat_param.grad = g
            else:
                self.flat_param.grad.add_(g)

    # ── the unflattened parameters in full precision (state dicts, summon_full_params) ─────────
    def gather_full_precision(self):
        """The whole flat parameter in its own dtype: the first N elements hold the parameters.
        Under NO_SHARD the flat parameter's own data (writes go straight into it)."""
        with no_grad():
            source = self.flat_param.detach()
            if not self.sharded:
                return source
            full = _C.empty((self.padded_numel,), dtype=self.dtype, device=source.device)
            dist.all_gather_into_tensor(full, source, group=self.process_group)
            return full

    def register_params(self, full):
        """Puts the original parameters back into their modules as Parameters viewing ``full``
        (also listed in ``registered``)."""
        self.registered = []
        with no_grad():
            for info, leaf in zip(self.infos, self.leaves):
                p = Parameter(full[info.offset:info.offset + info.numel].view(info.shape),
                              requires_grad=info.requires_grad)
                self.registered.append(p)
                for _, module, name in info.places:
                    module.__dict__.pop(name, None)
                    module._parameters[name] = p
        for module, order in self._orders.values():
            current = OrderedDict(module._parameters)
            module._parameters.clear()
            for key in order + [k for k in current if k not in order]:
                if key in current:
                    module._parameters[key] = current[key]

    def unregister_params(self):
        self.registered = []
        for info, leaf in zip(self.infos, self.leaves):
            for _, module, name in info.places:
                module._parameters.pop(name, None)
                object.__setattr__(module, name, leaf)

    def write_back(self, full):
        """Copies this rank's chunk of ``full`` (as gather_full_precision gave it) into the shard."""
        if self.sharded:
            with no_grad():
                self.flat_param.detach().copy_(full[self.rank * self.chunk:(self.rank + 1) * self.chunk])

    def shard_of(self, full):
        """This rank's chunk of a flat tensor of N elements, padded (the shard it would hold)."""
        with no_grad():
            if not self.sharded:
                return full.clone()
            start = min(self.numel, self.rank * self.chunk)
            valid = min(self.chunk, self.numel - start)
            shard = _C.zeros(self.chunk, dtype=self.dtype, device=full.device)
            shard[:valid].copy_(full[start:start + valid])
            return shard
