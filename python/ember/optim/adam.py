"""torch.optim's Adam family (Adam, AdamW, Adamax, NAdam, RAdam): PyTorch 1.13's options, their
defaults and checks; the updates are ember's fused C++ kernels."""
from .optimizer import Optimizer, _check


def _check_adam(lr, betas, eps, weight_decay):
    _check(0.0 <= lr, "Invalid learning rate: {}".format(lr))
    _check(0.0 <= eps, "Invalid epsilon value: {}".format(eps))
    _check(0.0 <= betas[0] < 1.0, "Invalid beta parameter at index 0: {}".format(betas[0]))
    _check(0.0 <= betas[1] < 1.0, "Invalid beta parameter at index 1: {}".format(betas[1]))
    _check(0.0 <= weight_decay, "Invalid weight_decay value: {}".format(weight_decay))


def _no_fused(fused, capturable, differentiable=False):
    if fused or capturable or differentiable:
        raise RuntimeError("fused=, capturable= and differentiable= (CUDA-graph and "
                           "higher-order options) are not in ember; its update is fused already")


class Adam(Optimizer):
    _cpp_name = "Adam"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False, fused=False):
        _check_adam(lr, betas, eps, weight_decay)
        _no_fused(fused, capturable, differentiable)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable,
                                      fused=fused))


class AdamW(Optimizer):
    _cpp_name = "AdamW"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False):
        _check_adam(lr, betas, eps, weight_decay)
        _no_fused(False, capturable)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, foreach=foreach, maximize=maximize,
                                      capturable=capturable))


class Adamax(Optimizer):
    _cpp_name = "Adamax"

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None,
                 *, maximize=False):
        _check_adam(lr, betas, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      foreach=foreach, maximize=maximize))


class NAdam(Optimizer):
    _cpp_name = "NAdam"

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, *, foreach=None):
        _check_adam(lr, betas, eps, weight_decay)
        _check(0.0 <= momentum_decay, "Invalid momentum_decay value: {}".format(momentum_decay))
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, foreach=foreach))


class RAdam(Optimizer):
    _cpp_name = "RAdam"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, *, foreach=None):
        _check_adam(lr, betas, eps, weight_decay)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      foreach=foreach))
