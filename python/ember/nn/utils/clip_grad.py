"""Gradient clipping (torch.nn.utils.clip_grad_norm_ / clip_grad_value_, PyTorch 1.13)."""
import math
import warnings

from ... import _C
from ...autograd.grad_mode import no_grad

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_"]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scales the gradients in place so that their joint norm (the norm of the per-gradient
    norms) is at most max_norm; returns that total norm (before clipping) as a tensor."""
    if isinstance(parameters, _C.Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    norm_type = float(norm_type)
    if len(grads) == 0:
        return _C.tensor(0.)
    device = grads[0].device
    with no_grad():
        if norm_type == math.inf:
            norms = [g.detach().abs().max().to(device) for g in grads]
            total_norm = norms[0] if len(norms) == 1 else _C.max(_C.stack(norms))
        else:
            total_norm = _C.norm(_C.stack([_C.norm(g.detach(), norm_type).to(device) for g in grads]),
                                 norm_type)
        if error_if_nonfinite and bool(_C.logical_or(total_norm.isnan(), total_norm.isinf())):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
                "so it cannot be clipped. To disable this error and scale the gradients by the "
                "non-finite norm anyway, set `error_if_nonfinite=False`")
        clip_coef = max_norm / (total_norm + 1e-6)
        clip_coef_clamped = _C.clamp(clip_coef, max=1.0)
        for g in grads:
            g.detach().mul_(clip_coef_clamped.to(g.device))
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2., error_if_nonfinite=False):
    warnings.warn("torch.nn.utils.clip_grad_norm is now deprecated in favor of "
                  "torch.nn.utils.clip_grad_norm_.", stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite)


def clip_grad_value_(parameters, clip_value):
    """Clamps every gradient in place to [-clip_value, clip_value]."""
    if isinstance(parameters, _C.Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    with no_grad():
        for p in filter(lambda p: p.grad is not None, parameters):
            p.grad.data.clamp_(min=-clip_value, max=clip_value)
