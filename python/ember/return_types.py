"""The named pairs ops return, as torch.return_types: ``values, indices = t.max(dim=1)``."""


def _pair(name, first="values", second="indices"):
    def __new__(cls, a, b=None):
        if b is None:  # built from one sequence, as structseq
            a, b = a
        return tuple.__new__(cls, (a, b))

    def __repr__(self):
        return "torch.return_types.%s(\n%s=%r,\n%s=%r)" % (name, first, self[0], second, self[1])

    def __reduce__(self):
        return (type(self), (tuple(self),))

    return type(name, (tuple,), {
        "__slots__": (), "__new__": __new__, "__repr__": __repr__, "__reduce__": __reduce__,
        first: property(lambda self: self[0]), second: property(lambda self: self[1]),
        "n_fields": 2, "n_sequence_fields": 2, "__module__": "torch.return_types",
    })


max = _pair("max")  # noqa: A001
min = _pair("min")  # noqa: A001
sort = _pair("sort")
topk = _pair("topk")
kthvalue = _pair("kthvalue")
median = _pair("median")
mode = _pair("mode")
nanmedian = _pair("nanmedian")
aminmax = _pair("aminmax", "min", "max")
