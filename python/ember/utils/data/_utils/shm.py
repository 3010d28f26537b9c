"""How a batch crosses from a worker process to the main process: its tensors through shared
memory, everything else pickled.

Worker side (``encode``): the batch is pickled with a Pickler whose ``persistent_id`` takes
every ember tensor (and every NumPy array of numbers of at least ``NUMPY_MIN_BYTES``) out of the
pickle and leaves a small index in its place. The data of all those tensors is then written,
contiguously and 64-byte aligned, into ONE new file of the batch in /dev/shm (a tmpfs: the
file's pages are shared memory; ``os.pwrite`` from the tensor's own memory, one copy). The
worker sends the main process only (file name, per-tensor offset/dtype/shape, pickle bytes)
over its result pipe: a few hundred bytes, whatever the batch's size.

Main side (``decode``): opens the file, maps it (MAP_SHARED, prefaulted), unlinks it at once
(the name goes, the memory stays while mapped), and unpickles; each index becomes
``ember.from_numpy(numpy.frombuffer(mapping, dtype, count, offset).reshape(shape))``: a tensor
on the mapped pages themselves, no copy. The mapping lives as long as any tensor (or array)
on it and is unmapped by the last one's release, which returns the memory to the system.

File names are ``<dir>/ember-dl-<main pid>-<token>-w<worker id>-<n>`` with a token per
DataLoader iterator: when a batch is never received (a worker killed between writing and
sending, an iterator dropped with batches in flight) the main process removes what is left
under its prefix when the workers stop (``sweep``). bfloat16 travels as int16 and is viewed
back; storage sharing between tensors of one batch (views of one tensor) is not kept: each
tensor arrives with its own memory, as its contiguous copy.
"""
import errno
import glob
import io
import mmap
import os
import pickle
import sys

import ember as torch

if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK):
    SHM_DIR = "/dev/shm"
else:  # no tmpfs there: an ordinary file, still mapped, still one copy
    import tempfile
    SHM_DIR = tempfile.gettempdir()
ALIGN = 64
NUMPY_MIN_BYTES = 4096  # smaller NumPy arrays are cheaper to pickle
_NUMPY_KINDS = "biufc"
_MAP_FLAGS = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)


def prefix_for(token):
    return os.path.join(SHM_DIR, "ember-dl-%d-%s-" % (os.getpid(), token))


def sweep(prefix):
    """Removes the files under ``prefix`` that no one received."""
    for path in glob.glob(glob.escape(prefix) + "*"):
        try:
            os.unlink(path)
        except OSError:
            pass


def discard(path):
    if path is not None:
        try:
            os.unlink(path)
        except OSError:
            pass


class _Collector:
    def __init__(self):
        # per shared object: (kind "t"/"n", offset, numpy dtype str, shape, view_as, requires_grad, device)
        self.metas = []
        self.arrays = []   # (offset, contiguous numpy array)
        self.ids = {}      # id(object) -> index; the objects are kept alive in self.keep
        self.keep = []
        self.total = 0

    def _place(self, arr):
        offset = self.total
        if arr.nbytes:
            self.arrays.append((offset, arr))
            self.total = (offset + arr.nbytes + ALIGN - 1) // ALIGN * ALIGN
        return offset

    def tensor(self, t):
        key = id(t)
        if key in self.ids:
            return self.ids[key]
        if t.requires_grad and not t.is_leaf:
            raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, "
                               "since autograd does not support crossing process boundaries.  "
                               "If you just want to transfer the data, call detach() on the tensor "
                               "before serializing (e.g., putting it on the queue).")
        d = t.detach()
        device = None
        if d.device.type != "cpu":  # travels through host memory, moved back on arrival
            device, d = str(d.device), d.cpu()
        view_as = None
        if d.dtype == torch.bfloat16:
            d, view_as = d.view(torch.int16), "bfloat16"
        if not d.is_contiguous():
            d = d.contiguous()
        arr = d.numpy()
        offset = self._place(arr)
        index = len(self.metas)
        self.metas.append(("t", offset, arr.dtype.str, tuple(arr.shape), view_as, bool(t.requires_grad),
                           device))
        self.ids[key] = index
        self.keep.append(t)
        return index

    def array(self, a):
        key = id(a)
        if key in self.ids:
            return self.ids[key]
        import numpy as np
        c = np.ascontiguousarray(a)
        offset = self._place(c)
        index = len(self.metas)
        self.metas.append(("n", offset, c.dtype.str, tuple(a.shape), None, False, None))
        self.ids[key] = index
        self.keep.append(a)
        return index


class _Pickler(pickle.Pickler):
    def __init__(self, file, collector):
        super().__init__(file, pickle.HIGHEST_PROTOCOL)
        self._collector = collector
        np = sys.modules.get("numpy")
        self._ndarray = getattr(np, "ndarray", None)

    def persistent_id(self, obj):
        t = type(obj)
        if t is torch.Tensor:
            return self._collector.tensor(obj)
        if t is self._ndarray and obj.dtype.kind in _NUMPY_KINDS and obj.nbytes >= NUMPY_MIN_BYTES:
            return self._collector.array(obj)
        return None


def _write_all(fd, arr, offset):
    view = memoryview(arr.reshape(-1).view("uint8"))
    done, n = 0, len(view)
    while done < n:
        done += os.pwrite(fd, view[done:], offset + done)


def encode(obj, new_path):
    """(path or None, metas, pickle bytes) for ``obj``; ``new_path()`` names the batch's file.
    The file belongs to the receiver from here on (``decode`` or ``discard``)."""
    collector = _Collector()
    buf = io.BytesIO()
    _Pickler(buf, collector).dump(obj)
    path = None
    if collector.total:
        path = new_path()
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.ftruncate(fd, collector.total)
            for offset, arr in collector.arrays:
                _write_all(fd, arr, offset)
        except BaseException as e:
            os.close(fd)
            discard(path)
            if isinstance(e, OSError) and e.errno == errno.ENOSPC:
                raise OSError(e.errno, "no space left in %s for a batch of %d bytes: the DataLoader "
                              "passes batches through shared memory there; make it larger (e.g. "
                              "docker --shm-size) or keep fewer/smaller batches in flight"
                              % (SHM_DIR, collector.total)) from None
            raise
        os.close(fd)
    return path, collector.metas, buf.getvalue()


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, metas, mapping):
        super().__init__(file)
        self._metas = metas
        self._mapping = mapping
        self._built = {}

    def persistent_load(self, pid):
        obj = self._built.get(pid)
        if obj is None:
            obj = self._built[pid] = self._build(*self._metas[pid])
        return obj

    def _build(self, kind, offset, dtype_str, shape, view_as, requires_grad, device):
        import numpy as np
        dtype = np.dtype(dtype_str)
        count = 1
        for s in shape:
            count *= s
        if count:
            arr = np.frombuffer(self._mapping, dtype=dtype, count=count, offset=offset).reshape(shape)
        else:
            arr = np.empty(shape, dtype=dtype)
        if kind == "n":
            return arr
        t = torch.from_numpy(arr)
        if view_as is not None:
            t = t.view(getattr(torch, view_as))
        if device is not None:
            t = t.to(device)
        if requires_grad:
            t.requires_grad_(True)
        return t


def decode(path, metas, body):
    """The object ``encode`` gave, its tensors on the file's pages (the file is unlinked)."""
    mapping = None
    if path is not None:
        fd = os.open(path, os.O_RDWR)
        try:
            os.unlink(path)
            size = os.fstat(fd).st_size
            mapping = mmap.mmap(fd, size, flags=_MAP_FLAGS, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        finally:
            os.close(fd)
    return _Unpickler(io.BytesIO(body), metas, mapping).load()
