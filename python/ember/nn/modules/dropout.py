"""Dropout layers: active in training mode only (PyTorch 1.13)."""
import math

from ... import _C
from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


def _alpha_dropout(input, p=0.5, training=False, inplace=False, feature=False):
    """F.alpha_dropout / F.feature_alpha_dropout as PyTorch computes them (used while
    nn.functional does not have them): keep with probability 1-p, dropped values go to SELU's
    negative saturation, then an affine map keeps mean and variance."""
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    if feature:
        noise = _C.empty(tuple(input.shape[:2]) + (1,) * (input.dim() - 2), dtype=input.dtype)
    else:
        noise = _C.empty_like(input)
    noise.bernoulli_(1 - p)
    alpha = 1.7580993408473766
    a = 1. / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    b = noise.add(-1).mul_(alpha * a).add_(alpha * a * p)
    noise.mul_(a)
    if inplace:
        return input.mul_(noise).add_(b)
    return input * noise + b


class _DropoutNd(Module):
    __constants__ = ["p", "inplace"]

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return "p={}, inplace={}".format(self.p, self.inplace)


class Dropout(_DropoutNd):
    """Zeroes each element with probability p and scales the rest by 1/(1-p)."""

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    def forward(self, input):
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zeroes whole channels of (N, C, H, W) or (C, H, W)."""

    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    def forward(self, input):
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    def forward(self, input):
        fn = getattr(F, "alpha_dropout", None)
        if fn is not None:
            return fn(input, self.p, self.training)
        return _alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    def forward(self, input):
        fn = getattr(F, "feature_alpha_dropout", None)
        if fn is not None:
            return fn(input, self.p, self.training)
        return _alpha_dropout(input, self.p, self.training, feature=True)
