"""DistributedDataParallel for Python modules: parameters and buffers start equal on every rank
(broadcast from rank 0), and each backward averages the gradients across ranks in buckets of
about bucket_cap_mb, each all-reduced (asynchronously, on the process group's thread) as soon as
its last gradient is accumulated, so communication overlaps the rest of the backward; the
backward returns once all buckets are reduced. no_sync() accumulates locally instead.

Unused parameters (find_unused_parameters=True) are not supported yet: a parameter that gets no
gradient leaves its bucket unreduced, and the next forward raises PyTorch's error instead of
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
        if find_unused_parameters:
            raise RuntimeError("DistributedDataParallel(find_unused_parameters=True) is not in ember yet")
        if device_ids is not None and any(str(d) not in ("cpu", "-1") for d in device_ids):
            raise RuntimeError("DistributedDataParallel: device_ids name CUDA devices; this is a CPU build")
        if not dist.is_initialized():
            raise RuntimeError("Default process group has not been initialized, please make sure to "
                               "call init_process_group.")
        self.module = module
        self.process_group = process_group
        self.broadcast_buffers = broadcast_buffers
        self.require_backward_grad_sync = True
        self._params = [p for p in module.parameters() if p.requires_grad]
        self._world = dist.get_world_size(process_group)
        with no_grad():
            for t in list(module.parameters()) + list(module.buffers()):
                dist.broadcast(t, 0, group=process_group)
        self._buckets = self._make_buckets(bucket_cap_mb * 1024 * 1024)
        self._bucket_of = {}
        for i, bucket in enumerate(self._buckets):
            for p in bucket:
                self._bucket_of[id(p)] = i
        self._pending = None  # per bucket: parameters still to be accumulated this backward
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
                "loss. ember's DistributedDataParallel does not support find_unused_parameters=True "
                "yet: make every parameter take part in the loss.")
        self._pending = [len(b) for b in self._buckets]
        self._works = []

    def _grad_ready(self, param):
        if not self.require_backward_grad_sync or self._pending is None:
            return  # inside no_sync(), or a backward of the module used outside this wrapper
        i = self._bucket_of[id(param)]
        self._pending[i] -= 1
        if self._pending[i] == 0:
            bucket = self._buckets[i]
            flat = _C.cat([p.grad.reshape(-1) for p in bucket])
            self._works.append((i, flat, dist.all_reduce(flat, group=self.process_group, async_op=True)))
        if not any(self._pending):
            self._finish()

    def _finish(self):
        with no_grad():
            for i, flat, work in self._works:
                work.wait()
                flat.div_(self._world)
                offset = 0
                for p in self._buckets[i]:
                    n = p.numel()
                    p.grad.copy_(flat[offset:offset + n].view(p.grad.shape))
                    offset += n
        self._works = []
        self._pending = None

    def forward(self, *inputs, **kwargs):
        if self.require_backward_grad_sync and _C.is_grad_enabled():
            self._start_backward()
        if self.broadcast_buffers and self._world > 1:
            with no_grad():
                for b in self.module.buffers():
                    dist.broadcast(b, 0, group=self.process_group)
        return self.module(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Gradients accumulate locally inside; the first backward after it averages them all."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous
