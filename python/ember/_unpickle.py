"""load(weights_only=False) for files whose pickle names other classes than tensors and
containers: Python's own unpickler, as torch.load uses it, over PyTorch's zip layout
(archive/data.pkl and one record per storage, archive/data/<key>). It imports and calls what
the file names; ember.load says so in its docstring. Files that hold only tensors, containers,
numbers and strings never come here: the C++ loader reads them without running anything."""
import collections
import importlib
import pickle
import zipfile

import numpy as np

from . import _C

_STORAGE_DTYPES = {
    "FloatStorage": "float32", "DoubleStorage": "float64", "HalfStorage": "float16",
    "BFloat16Storage": "bfloat16", "LongStorage": "int64", "IntStorage": "int32",
    "ShortStorage": "int16", "CharStorage": "int8", "ByteStorage": "uint8", "BoolStorage": "bool",
}


class _StorageType:
    def __init__(self, name):
        self.dtype = getattr(_C, _STORAGE_DTYPES[name])
        # The NumPy type that reads the raw bytes (bfloat16 through int16, then viewed).
        self.numpy_dtype = {"bfloat16": np.int16, "bool": np.bool_}.get(_STORAGE_DTYPES[name],
                                                                     _STORAGE_DTYPES[name])


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False,
                       backward_hooks=None, metadata=None):
    t = storage.as_strided(tuple(size), tuple(stride), storage_offset)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks):
    from .nn.parameter import Parameter

    return Parameter(data, requires_grad)


def _torch_name(module, name):
    """A global the file names under torch.*: ember's object of the same name, if it has one."""
    target = "ember" + module[len("torch"):]
    try:
        return getattr(importlib.import_module(target), name)
    except (ImportError, AttributeError):
        pass
    # ember splits some of PyTorch's files (torch.nn.modules.transformer's decoder lives in
    # transformer_decoder.py): a layer is found by its name in ember.nn.modules.
    if module.startswith("torch.nn.modules."):
        layers = importlib.import_module("ember.nn.modules")
        if name in getattr(layers, "__all__", ()):
            return getattr(layers, name)
    raise pickle.UnpicklingError("load(): the file uses %s.%s, which is not in ember" % (module, name)) from None


def load_any(path, map_location=None):
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        pkl = [n for n in names if n.endswith("/data.pkl") and n.count("/") == 1]
        if not pkl:
            raise RuntimeError("load(): %s is not a PyTorch zip checkpoint (no data.pkl)" % path)
        prefix = pkl[0][: -len("data.pkl")]
        storages = {}

        class Unpickler(pickle.Unpickler):
            def find_class(self, module, name):
                if module == "torch._utils" and name == "_rebuild_tensor_v2":
                    return _rebuild_tensor_v2
                if module == "torch._utils" and name == "_rebuild_parameter":
                    return _rebuild_parameter
                if module == "torch" and name in _STORAGE_DTYPES:
                    return _StorageType(name)
                if module == "collections" and name == "OrderedDict":
                    return collections.OrderedDict
                if module == "torch" or module.startswith("torch."):
                    return _torch_name(module, name)
                return super().find_class(module, name)

            def persistent_load(self, pid):
                typename, storage_type, key, location, numel = pid
                if typename != "storage":
                    raise pickle.UnpicklingError("load(): unknown persistent id %r" % (typename,))
                if key not in storages:
                    raw = np.frombuffer(z.read(prefix + "data/" + key), dtype=storage_type.numpy_dtype)
                    t = _C.from_numpy(raw.copy())
                    if t.dtype != storage_type.dtype:
                        t = t.view(storage_type.dtype)
                    device = map_location if map_location is not None else location
                    if str(device) != "cpu":
                        t = t.to(device)
                    storages[key] = t
                return storages[key]

        with z.open(pkl[0]) as f:
            return Unpickler(f).load()
