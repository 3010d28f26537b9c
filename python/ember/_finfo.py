"""torch.finfo and torch.iinfo: the numerical limits of ember's dtypes (NumPy's figures, imported
at first use: `import ember` does not import NumPy)."""

from . import _C


class finfo:
    """Limits of a floating dtype: bits, eps, max, min, tiny (smallest normal), resolution."""

    def __init__(self, type=None):
        type = _C.get_default_dtype() if type is None else type
        if not type.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo "
                            "to handle 'torch.finfo'")
        self.dtype = repr(type).split(".")[-1]
        if self.dtype == "bfloat16":  # 8 exponent bits, 7 mantissa bits
            self.bits, self.eps, self.max = 16, 2.0 ** -7, float.fromhex("0x1.fep127")
            self.tiny, self.resolution = 2.0 ** -126, 0.01
        else:
            import numpy as np
            info = np.finfo(getattr(np, self.dtype))
            self.bits, self.eps, self.max = info.bits, float(info.eps), float(info.max)
            self.tiny, self.resolution = float(info.tiny), float(info.resolution)
        self.min = -self.max
        self.smallest_normal = self.tiny

    def __repr__(self):
        return ("finfo(resolution=%g, min=%g, max=%g, eps=%g, smallest_normal=%g, tiny=%g, dtype=%s)"
                % (self.resolution, self.min, self.max, self.eps, self.tiny, self.tiny, self.dtype))


class iinfo:
    """Limits of an integer dtype: bits, min, max."""

    def __init__(self, type):
        if type.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to "
                            "handle 'torch.iinfo'")
        self.dtype = repr(type).split(".")[-1]
        if self.dtype == "bool":
            raise TypeError("torch.bool is not supported by torch.iinfo")
        import numpy as np
        info = np.iinfo(getattr(np, self.dtype))
        self.bits, self.min, self.max = info.bits, int(info.min), int(info.max)

    def __repr__(self):
        return "iinfo(min=%d, max=%d, dtype=%s)" % (self.min, self.max, self.dtype)
