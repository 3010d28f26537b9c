"""The backward graph as Python sees it: its nodes (``type(t.grad_fn).__name__`` is the node's
name, "MulBackward0", "AccumulateGrad", ..., and every node is an instance of Node), and hooks on
what autograd saves for backward (saved_tensors_hooks, save_on_cpu)."""
from .. import _C

Node = _C._Node


class saved_tensors_hooks:
    """Inside the ``with`` block every tensor that autograd saves for backward is handed to
    ``pack_hook(tensor)``, whose result (any object) is kept in its place; backward gets the tensor
    back from ``unpack_hook(that object)``. Regions nest (the innermost applies) and belong to the
    thread that opened them. As in PyTorch, a tensor saved through hooks is not checked against
    later in-place changes, and the hooks must not modify what they are given."""

    def __init__(self, pack_hook, unpack_hook):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks(): pack_hook and unpack_hook must be callables")
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        _C._push_saved_tensors_hooks(self.pack_hook, self.unpack_hook)
        return self

    def __exit__(self, *args):
        _C._pop_saved_tensors_hooks()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept as CPU copies and moved back to their device for backward
    (pin_memory applies to CUDA builds; a CPU tensor is copied all the same, as PyTorch does)."""

    def __init__(self, pin_memory=False):
        def pack(tensor):
            cpu = _C.empty(tuple(tensor.shape), dtype=tensor.dtype, device="cpu")
            if pin_memory and _C._cuda_is_available():
                cpu = cpu.pin_memory()
            cpu.copy_(tensor)
            return (tensor.device, cpu)

        def unpack(packed):
            device, cpu = packed
            return cpu.to(device, non_blocking=pin_memory)

        super().__init__(pack, unpack)
