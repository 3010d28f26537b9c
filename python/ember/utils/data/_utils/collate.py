"""default_collate and default_convert (torch.utils.data._utils.collate), PyTorch 1.13's rules:

    Tensor                    -> torch.stack(batch)                 (a new outer dimension)
    NumPy array               -> as_tensor each, then stacked       (string/object arrays: TypeError)
    NumPy scalar              -> torch.as_tensor(batch)             (NumPy's dtype)
    float / int (bool too)    -> torch.tensor(batch, dtype=float64) / torch.tensor(batch)
    str / bytes               -> the list unchanged
    Mapping                   -> the same type of mapping, collated by key
    namedtuple                -> the same namedtuple, collated by field
    tuple / other Sequence    -> a list (tuples) or the same sequence type, collated by position
                                 (all elements must have one length: RuntimeError otherwise)
    anything else             -> TypeError

``collate(batch, collate_fn_map=...)`` is the generic walker; ``default_collate_fn_map`` (a dict
from type to function, looked up by exact type, then by isinstance in insertion order) extends
it as in PyTorch.

NumPy is imported lazily (``import ember`` does not import it): the NumPy entries of
default_collate_fn_map are added, in PyTorch's place (after Tensor), as soon as NumPy is loaded.
A NumPy value cannot exist before that, so the rules are the same.
"""
import collections.abc
import sys

import ember as torch



class _Pattern:
    """re.compile(r"[SaUO]"), compiled at first use (``import ember`` does not import re)."""

    def __getattr__(self, name):
        global np_str_obj_array_pattern
        import re
        np_str_obj_array_pattern = re.compile(r"[SaUO]")
        return getattr(np_str_obj_array_pattern, name)


np_str_obj_array_pattern = _Pattern()  # dtype.str of string and object arrays
string_classes = (str, bytes)

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, "
    "dicts or lists; found {}")


def _np_to_tensor(data):
    """``torch.as_tensor`` of a NumPy array or NumPy scalar.

    ember's ``as_tensor`` rejects a NumPy scalar (TypeError: expected np.ndarray); a 0-d array
    carries the same value and dtype."""
    if type(data).__name__ != "ndarray":
        import numpy as np
        data = np.asarray(data)
    return torch.as_tensor(data)


def _dtype_of(x):
    import numpy as np
    if isinstance(x, np.generic):
        return _np_to_tensor(x).dtype
    if isinstance(x, bool):
        return torch.bool
    if isinstance(x, int):
        return torch.int64
    if isinstance(x, float):
        return torch.get_default_dtype()
    return None


def _np_scalars_to_tensor(batch):
    """``torch.as_tensor(batch)`` for a list that starts with a NumPy scalar: PyTorch keeps the
    scalars' NumPy dtype (promoted over the list with torch's rules); ember's as_tensor reads
    them as Python numbers (int64/float32/int64-for-bool), hence the detour."""
    import numpy as np
    t0 = type(batch[0])
    if all(type(x) is t0 for x in batch):
        return torch.as_tensor(np.array(batch, dtype=batch[0].dtype))
    dtype = None
    for x in batch:
        d = _dtype_of(x)
        if d is None:  # not a flat list of numbers: as_tensor decides (and raises)
            return torch.as_tensor(batch)
        dtype = d if dtype is None else torch.promote_types(dtype, d)
    return torch.tensor([x.item() if isinstance(x, np.generic) else x for x in batch], dtype=dtype)


def default_convert(data):
    """Converts NumPy arrays and scalars (also inside mappings, namedtuples, tuples and other
    sequences) to tensors, leaving everything else as it is. The DataLoader's default when
    automatic batching is off (``batch_size=None``)."""
    elem_type = type(data)
    if isinstance(data, torch.Tensor):
        return data
    elif elem_type.__module__ == "numpy" and elem_type.__name__ != "str_" \
            and elem_type.__name__ != "string_":
        # arrays of strings and objects stay arrays
        if elem_type.__name__ == "ndarray" \
                and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return _np_to_tensor(data)
    elif isinstance(data, collections.abc.Mapping):
        try:
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            # the mapping type does not take a dict
            return {key: default_convert(data[key]) for key in data}
    elif isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    elif isinstance(data, tuple):
        return [default_convert(d) for d in data]  # a list, as PyTorch (backwards compatibility)
    elif isinstance(data, collections.abc.Sequence) and not isinstance(data, string_classes):
        try:
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            # the sequence type does not take a list
            return [default_convert(d) for d in data]
    else:
        return data


def collate(batch, *, collate_fn_map=None):
    """Collates ``batch`` (a list of samples) by walking its structure; leaves go to the
    function ``collate_fn_map`` gives for their type."""
    if collate_fn_map is default_collate_fn_map and _numpy_pending:
        _add_numpy_entries()
    elem = batch[0]
    elem_type = type(elem)

    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        try:
            return elem_type({key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map)
                              for key in elem})
        except TypeError:
            # the mapping type does not take a dict
            return {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
    elif isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    elif isinstance(elem, collections.abc.Sequence):
        # every sample must have the same length
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(elem) == elem_size for elem in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))  # read twice below when the sequence type refuses a list
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            return elem_type([collate(samples, collate_fn_map=collate_fn_map) for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]

    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    # PyTorch stacks into shared memory inside a worker; ember's worker moves the finished batch
    # into shared memory in one copy instead (see dataloader.py).
    return torch.stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    # arrays of strings and objects cannot be collated
    if np_str_obj_array_pattern.search(elem.dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(elem.dtype))
    return collate([_np_to_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return _np_scalars_to_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    return torch.tensor(batch, dtype=torch.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return torch.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {torch.Tensor: collate_tensor_fn}
default_collate_fn_map[float] = collate_float_fn
default_collate_fn_map[int] = collate_int_fn
default_collate_fn_map[string_classes] = collate_str_fn
_numpy_pending = True


def _add_numpy_entries():
    """Puts the NumPy entries right after Tensor's (PyTorch's order: an np.float64, also a
    Python float, goes to the NumPy rule) once NumPy is imported; a no-op before."""
    global _numpy_pending
    np = sys.modules.get("numpy")
    if np is None or not hasattr(np, "ndarray"):
        return
    rest = [(k, v) for k, v in default_collate_fn_map.items() if k is not torch.Tensor]
    tensor_fn = default_collate_fn_map.get(torch.Tensor, collate_tensor_fn)
    default_collate_fn_map.clear()
    default_collate_fn_map[torch.Tensor] = tensor_fn
    default_collate_fn_map.setdefault(np.ndarray, collate_numpy_array_fn)
    default_collate_fn_map.setdefault((np.bool_, np.number, np.object_), collate_numpy_scalar_fn)
    for k, v in rest:
        default_collate_fn_map[k] = v
    _numpy_pending = False


_add_numpy_entries()


def default_collate(batch):
    """Puts a list of samples together into a batch (see the module docstring for the rules):

        >>> default_collate([0, 1, 2, 3])
        tensor([0, 1, 2, 3])
        >>> default_collate([{'A': 0, 'B': 1}, {'A': 100, 'B': 100}])
        {'A': tensor([  0, 100]), 'B': tensor([  1, 100])}
        >>> default_collate([(0, 1), (2, 3)])
        [tensor([0, 2]), tensor([1, 3])]
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
