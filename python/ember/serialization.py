"""ember.save / ember.load in PyTorch's own file format (a zip with a pickle and raw storages),
so ``torch.load`` reads what ember writes and ember reads what ``torch.save`` wrote."""
import os

from . import _C


def _is_path(f):
    return isinstance(f, (str, bytes, os.PathLike))


def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True):
    """Saves a tree of tensors, dicts (OrderedDicts keep their order and ``_metadata``), lists,
    tuples, numbers, strings and None to ``f`` (a path or a binary file object). Views of one
    storage keep sharing it in the file. The write to a path is atomic."""
    if pickle_module is not None or pickle_protocol != 2 or not _use_new_zipfile_serialization:
        raise ValueError("save(): ember writes PyTorch's zip format with pickle protocol 2 only")
    if _is_path(f):
        _C._save(obj, os.fsdecode(f))
        return
    import tempfile  # only for file objects

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "obj.pt")
        _C._save(obj, path)
        with open(path, "rb") as src:
            f.write(src.read())


def load(f, map_location=None, pickle_module=None, *, weights_only=False, mmap=None, **pickle_load_args):
    """Loads a file written by ``torch.save`` or ``ember.save`` from a path or a binary file object.

    weights_only=True uses ember's restricted unpickler: only tensors, containers, numbers,
    strings and torch.Size; nothing from the file is ever executed. weights_only=False (PyTorch
    1.13's default) also accepts other objects in the pickle: the file is first read with the
    restricted unpickler and, if it names other classes, unpickled by Python's pickle, which
    imports and calls what the file names — as torch.load does. Load only files you trust that
    way.
    """
    if pickle_module is not None or pickle_load_args:
        raise ValueError("load(): pickle_module and pickle arguments are not in ember")
    if map_location is not None and not isinstance(map_location, (str, _C.device)):
        raise TypeError("load(): map_location must be a device or a string in ember (got %s)"
                        % type(map_location).__name__)
    if not _is_path(f):
        import tempfile  # only for file objects

        data = f.read()
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "obj.pt")
            with open(path, "wb") as out:
                out.write(data)
            return load(path, map_location, weights_only=weights_only, mmap=False)
    path = os.fsdecode(f)
    try:
        return _C._load(path, map_location, weights_only=True, mmap=bool(mmap))
    except RuntimeError as e:
        # Only a global outside the restricted set sends the file to Python's unpickler.
        if weights_only or "data.pkl uses the global" not in str(e):
            raise
    from ._unpickle import load_any
    return load_any(path, map_location)
