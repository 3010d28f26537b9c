"""torch.autocast: inside the region ops run in the lower precision their policy says (the C++
side's tables, taken from PyTorch's lists); a context manager and a decorator."""
import functools

from .. import _C


class autocast:
    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError("Expected `device_type` of type `str`, got: `%s`" % type(device_type))
        self.device = device_type
        self.fast_dtype = dtype if dtype is not None else (
            _C.bfloat16 if device_type == "cpu" else _C.float16)
        self._enabled = bool(enabled)
        self._cache_enabled = cache_enabled
        self._regions = []

    def __enter__(self):
        region = _C._amp.AutocastRegion(self.device, self.fast_dtype, self._enabled, self._cache_enabled)
        region.enter()
        self._regions.append(region)
        return self

    def __exit__(self, *exc):
        self._regions.pop().exit()
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled, self._cache_enabled):
                return func(*args, **kwargs)
        return wrapper


def is_autocast_enabled(device_type="cuda"):
    return _C._amp.is_autocast_enabled(device_type)


def get_autocast_dtype(device_type):
    return _C._amp.get_autocast_dtype(device_type)
