"""DistributedDataParallel for Python modules: parameters and buffers start equal on every rank
(broadcast from rank 0), and each backward averages the gradients across ranks in buckets of
about bucket_cap_mb, each all-reduced (asynchronously, on the process group's thread) once its
last gradient is accumulated, so communication overlaps the rest of the backward; the backward
returns once all buckets are reduced. Buckets are launched in bucket order on every rank (a bucket
that fills early waits for the ones before it), so ranks whose backwards reach parameters in
different orders still issue the same collectives in the same order. no_sync() accumulates
locally instead.

find_unused_parameters=True: after each forward the graph is searched from the outputs for the
parameters it reaches; the others count as ready with zero gradients at once. After the
reduction a parameter some rank used gets the average (a None .grad becomes a tensor); one that
no rank used keeps its .grad as it was, as PyTorch's. Without it, a parameter that gets no
gradient leaves its bucket unreduced and the next forward raises PyTorch's error instead of
training on unsynchronised gradients."""
import contextlib

from ... import _C
from ...autograd.grad_mode import no_grad
from ... import distributed as dist
from ..modules.module import Module


class DistributedDataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=25, find_unused_parameters=False,
                 check_reduction=False, gradient_as_bucket_view=False, static_graph=False):
        super().__init__()
        if device_ids is not None and any(str(d) not in ("cpu", "-1") for d in device_ids):
            raise RuntimeError("DistributedDataParallel: device_ids name CUDA devices; this is a CPU build")
        if not dist.is_initialized():
            raise RuntimeError("Default process group has not been initialized, please make sure to "
                               "call init_process_group.")
        self.module = module
        self.process_group = process_group
        self.broadcast_buffers = broadcast_buffers
        self.require_backward_grad_sync = True
        self.find_unused_parameters = find_unused_parameters
        self._params = [p for p in module.parameters() if p.requires_grad]
        self._world = dist.get_world_size(process_group)
        _broadcast_coalesced(list(module.parameters()) + list(module.buffers()), process_group)
        self._buckets = self._make_buckets(bucket_cap_mb * 1024 * 1024)
        self._bucket_of = {}
        for i, bucket in enumerate(self._buckets):
            for p in bucket:
                self._bucket_of[id(p)] = i
        self._pending = None  # per bucket: parameters still to be accumulated this backward
        self._next_bucket = 0  # the first bucket not launched yet
        self._unused = set()  # ids of the parameters this forward's graph does not reach
        self._works = []
        self._handles = [p.register_post_accumulate_grad_hook(self._grad_ready) for p in self._params]

    def _make_buckets(self, cap_bytes):
        # In reverse registration order (the order backward usually produces gradients), one dtype
        # per bucket.
        buckets, current, size = [], [], 0
        for p in reversed(self._params):
            nbytes = p.numel() * p.element_size()
            if current and (size + nbytes > cap_bytes or current[0].dtype != p.dtype):
                buckets.append(current)
                current, size = [], 0
            current.append(p)
            size += nbytes
        if current:
            buckets.append(current)
        return buckets

    def _start_backward(self):
        # A previous backward that accumulated some parameters but not all: an unused parameter.
        # (A forward with no backward at all, e.g. an evaluation in grad mode, is fine.)
        partial = self._pending is not None and any(
            left != len(b) for left, b in zip(self._pending, self._buckets))
        if partial:
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a new one. "
                "This error indicates that your module has parameters that were not used in producing "
                "loss. You can enable unused parameter detection by passing the keyword argument "
                "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by "
                "making sure all `forward` function outputs participate in calculating loss.")
        self._pending = [len(b) for b in self._buckets]
        self._next_bucket = 0
        self._unused = set()
        self._works = []

    def _mark_unused(self, outputs):
        # The parameters whose AccumulateGrad the outputs' graph reaches take part; the others
        # are ready now, with zeros in their buckets.
        # `seen` keeps the node objects alive: a node's Python object is made on access, and a
        # dead one's id may be reused by the next.
        reached, seen = set(), {}
        stack = [t.grad_fn for t in _tensors_in(outputs) if t.grad_fn is not None]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen[id(node)] = node
            if type(node).__name__ == "AccumulateGrad":
                reached.add(id(node.variable))
            stack.extend(n for n, _ in node.next_functions if n is not None)
        self._unused = {id(p) for p in self._params if id(p) not in reached}
        for p in self._params:
            if id(p) in self._unused:
                self._count_ready(self._bucket_of[id(p)])

    def _grad_ready(self, param):
        if not self.require_backward_grad_sync or self._pending is None:
            return  # inside no_sync(), or a backward of the module used outside this wrapper
        if id(param) in self._unused:
            return  # already counted at the forward (the graph did reach it after all)
        self._count_ready(self._bucket_of[id(param)])

    def _count_ready(self, i):
        self._pending[i] -= 1
        while self._next_bucket < len(self._buckets) and self._pending[self._next_bucket] == 0:
            self._launch(self._next_bucket)
            self._next_bucket += 1
        if self._next_bucket == len(self._buckets):
            self._finish()

    def _launch(self, i):
        flat = _C.cat([_C.zeros(p.numel(), dtype=p.dtype) if id(p) in self._unused or p.grad is None
                       else p.grad.reshape(-1) for p in self._buckets[i]])
        self._works.append((i, flat, dist.all_reduce(flat, group=self.process_group, async_op=True)))

    def _finish(self):
        globally_used = None
        if self.find_unused_parameters:
            # Which parameters any rank used: those alone get the averaged gradient.
            used = _C.tensor([0.0 if id(p) in self._unused else 1.0 for p in self._params])
            dist.all_reduce(used, group=self.process_group)
            globally_used = {id(p) for p, u in zip(self._params, used.tolist()) if u > 0}
        with no_grad():
            for i, flat, work in self._works:
                work.wait()
                flat.div_(self._world)
                offset = 0
                for p in self._buckets[i]:
                    n = p.numel()
                    if globally_used is None or id(p) in globally_used:
                        average = flat[offset:offset + n].view(p.shape)
                        if p.grad is None:
                            p.grad = average.clone()
                        else:
                            p.grad.copy_(average)
                    offset += n
        self._works = []
        self._pending = None
        self._unused = set()

    def forward(self, *inputs, **kwargs):
        if self.require_backward_grad_sync and _C.is_grad_enabled():
            self._start_backward()
        if self.broadcast_buffers and self._world > 1:
            _broadcast_coalesced(list(self.module.buffers()), self.process_group)
        outputs = self.module(*inputs, **kwargs)
        if self.find_unused_parameters and self._pending is not None:
            self._mark_unused(outputs)
        return outputs

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients accumulate locally inside; the first backward after it averages them all."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous


def _tensors_in(value):
    """The tensors in a forward's output: a tensor, or nested tuples, lists and dict values."""
    if isinstance(value, _C.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors_in(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors_in(v)]
    return []


def _broadcast_coalesced(tensors, group):
    """Rank 0's values into `tensors` on every rank: one broadcast per dtype, not per tensor (a
    BatchNorm network has three buffers per layer, broadcast before every forward)."""
    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault(t.dtype, []).append(t)
    with no_grad():
        for same in by_dtype.values():
            flat = _C.cat([t.reshape(-1) for t in same])
            dist.broadcast(flat, 0, group=group)
            if dist.get_rank(group) == 0:
                continue
            offset = 0
            for t in same:
                t.copy_(flat[offset:offset + t.numel()].view(t.shape))
                offset += t.numel()
