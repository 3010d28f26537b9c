"""Tensor behaviour written in Python because it is Python's protocol, not an op: pickling
(pickle.dumps(t), multiprocessing) and copy.deepcopy, as PyTorch defines them."""
from . import _C

# The raw bytes of each dtype through NumPy (bfloat16 travels as int16 and is viewed back).
_BYTES_DTYPE = {"bfloat16": "int16"}


def _rebuild_tensor(data, dtype_name, shape, requires_grad):
    dtype = getattr(_C, dtype_name)
    carrier = _BYTES_DTYPE.get(dtype_name, dtype_name)
    import numpy as np  # at first use: `import ember` does not import NumPy

    array = np.frombuffer(data, dtype=np.dtype(carrier if carrier != "bool" else np.bool_)).copy()
    t = _C.from_numpy(array)
    if t.dtype != dtype:
        t = t.view(dtype)
    t = t.reshape(shape)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _reduce_ex(self, protocol):
    """Pickles the values (a copy: storage sharing between pickled tensors is ember.save's)."""
    name = repr(self.dtype).split(".")[-1]
    t = self.detach().cpu().contiguous()
    carrier = _BYTES_DTYPE.get(name)
    array = (t.view(getattr(_C, carrier)) if carrier else t).numpy()
    return (_rebuild_tensor, (array.tobytes(), name, tuple(self.shape), self.requires_grad))


def _deepcopy(self, memo):
    if not self.is_leaf:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the "
                           "deepcopy protocol at the moment.  If you were attempting to deepcopy a "
                           "module, this may be because of a torch.nn.utils.weight_norm usage, see "
                           "https://github.com/pytorch/pytorch/pull/103001")
    if id(self) in memo:
        return memo[id(self)]
    from .autograd.grad_mode import no_grad
    with no_grad():
        new = self.clone()
    new.requires_grad_(self.requires_grad)
    if self.grad is not None:
        new.grad = _deepcopy(self.grad, memo)
    for k, v in getattr(self, "__dict__", {}).items():
        import copy
        setattr(new, k, copy.deepcopy(v, memo))
    memo[id(self)] = new
    return new


_C.Tensor.__reduce_ex__ = _reduce_ex
_C.Tensor.__deepcopy__ = _deepcopy
