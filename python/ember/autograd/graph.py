"""torch.autograd.graph: the backward graph's nodes as Python sees them (``type(t.grad_fn).__name__``
is the node's name, "MulBackward0", "AccumulateGrad", ..., and every node is an instance of Node),
and hooks on the tensors the graph saves (saved_tensors_hooks, save_on_cpu)."""
from .. import _C

Node = _C._Node


class saved_tensors_hooks:
    """Context manager: inside the block, every tensor autograd saves for backward goes through
    ``pack_hook(tensor)``, which may return anything in its place, and the backward gets
    ``unpack_hook(that)`` back (a tensor of the same size and dtype). Blocks nest (the innermost
    applies) and hold for the thread that entered them. Tensors saved through hooks skip the
    in-place version check, as in PyTorch."""

    def __init__(self, pack_hook, unpack_hook):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks(): pack_hook and unpack_hook must be callable")
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook
        self._scopes = []  # one per entry that has not exited yet: a block may be re-entered

    def __enter__(self):
        scope = _C._SavedTensorsHooksScope(self.pack_hook, self.unpack_hook)
        scope.__enter__()
        self._scopes.append(scope)
        return self

    def __exit__(self, *exc):
        self._scopes.pop().__exit__(None, None, None)


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors go to CPU memory during the forward and come back to their device when the
    backward needs them (a copy, as in PyTorch, so later in-place changes cannot reach them).
    pin_memory pins the copies of tensors that come from a GPU, for a faster way back; a CPU
    tensor's copy is never pinned (it does not move)."""

    def __init__(self, pin_memory=False):
        from .. import empty

        def pack(tensor):
            pin = bool(pin_memory) and tensor.device.type != "cpu"
            packed = empty(tensor.size(), dtype=tensor.dtype, pin_memory=pin)
            packed.copy_(tensor.detach())
            return tensor.device, packed

        def unpack(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=bool(pin_memory))

        super().__init__(pack, unpack)
