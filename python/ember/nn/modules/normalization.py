"""LayerNorm and GroupNorm (PyTorch 1.13), and RMSNorm (not in 1.13: later PyTorch's API)."""
import numbers

from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module
from .utils import _empty

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm"]


def _normalized_shape(shape):
    return (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)


def _affine(module, enabled, shape, device, dtype, names=("weight", "bias")):
    """Registers the learned scale (and shift) of a normalization layer, or None for each."""
    for name in names:
        if enabled:
            setattr(module, name, Parameter(_empty(shape, device, dtype)))
        else:
            module.register_parameter(name, None)


class LayerNorm(Module):
    """Normalizes over the trailing ``normalized_shape`` dims; weight ones, bias zeros."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _normalized_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine(self, elementwise_affine, self.normalized_shape, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}".format(
            **self.__dict__)


class GroupNorm(Module):
    """Normalizes (N, C, ...) over groups of C // num_groups channels."""

    __constants__ = ["num_groups", "num_channels", "eps", "affine"]

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine(self, affine, num_channels, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        if self.affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "{num_groups}, {num_channels}, eps={eps}, affine={affine}".format(**self.__dict__)


class RMSNorm(Module):
    """x / sqrt(mean(x^2 over the trailing ``normalized_shape`` dims) + eps) * weight, weight ones.
    PyTorch added it after 1.13 (2.4); this follows that API. eps=None: the machine epsilon of
    the input's dtype (torch.finfo(x.dtype).eps), as PyTorch's."""

    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _normalized_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine(self, elementwise_affine, self.normalized_shape, device, dtype, names=("weight",))
        self.reset_parameters()

    def reset_parameters(self):
        if self.elementwise_affine:
            init.ones_(self.weight)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return "{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}".format(
            **self.__dict__)
