"""torch.cuda: devices, and the streams of ember's CUDA backend (Stream, current_stream,
default_stream, stream(s)). In a build without CUDA there are no devices, and making a stream
raises ember's error naming the missing backend."""
from . import _C

Stream = _C._CudaStream
Stream.__module__ = "torch.cuda"
Stream.__name__ = Stream.__qualname__ = "Stream"
Stream.__doc__ = ("A CUDA stream from the device's pool (device=None: the current device). "
                  "torch.Tensor.record_stream(s) keeps a tensor's memory from reuse until the "
                  "work queued on s is done.")


def is_available():
    return _C._cuda_is_available()


def device_count():
    return _C._cuda_device_count()


def current_stream(device=None):
    """This thread's current stream on `device` (the default stream unless a stream() context
    says otherwise)."""
    return _C._cuda_current_stream(device)


def default_stream(device=None):
    """The default (null) stream of `device`."""
    return _C._cuda_default_stream(device)


class StreamContext:
    """Makes `stream` the current stream of its device (and that device current) inside the
    `with` block; None does nothing, as in PyTorch."""

    def __init__(self, stream):
        self.stream = stream
        self._guard = None if stream is None else _C._CudaStreamGuard(stream)

    def __enter__(self):
        if self._guard is not None:
            self._guard.enter()
        return self.stream

    def __exit__(self, *exc):
        if self._guard is not None:
            self._guard.exit()
        return False


def stream(stream):
    """torch.cuda.stream(s): a context in which `s` is the current stream."""
    return StreamContext(stream)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError("module 'torch.cuda' has no attribute '%s': torch.cuda.%s is not in ember"
                         % (name, name))
