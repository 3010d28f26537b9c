"""torch.optim.RMSprop and Adagrad: PyTorch 1.13's options, defaults and checks; the updates are
ember's fused C++ kernels."""
from .optimizer import Optimizer, _check


class RMSprop(Optimizer):
    _cpp_name = "RMSprop"

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, foreach=None, maximize=False, differentiable=False):
        _check(0.0 <= lr, "Invalid learning rate: {}".format(lr))
        _check(0.0 <= eps, "Invalid epsilon value: {}".format(eps))
        _check(0.0 <= momentum, "Invalid momentum value: {}".format(momentum))
        _check(0.0 <= weight_decay, "Invalid weight_decay value: {}".format(weight_decay))
        _check(0.0 <= alpha, "Invalid alpha value: {}".format(alpha))
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps,
                                      centered=centered, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))


class Adagrad(Optimizer):
    _cpp_name = "Adagrad"

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False):
        _check(0.0 <= lr, "Invalid learning rate: {}".format(lr))
        _check(0.0 <= lr_decay, "Invalid lr_decay value: {}".format(lr_decay))
        _check(0.0 <= weight_decay, "Invalid weight_decay value: {}".format(weight_decay))
        _check(0.0 <= initial_accumulator_value,
               "Invalid initial_accumulator_value value: {}".format(initial_accumulator_value))
        _check(0.0 <= eps, "Invalid epsilon value: {}".format(eps))
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      foreach=foreach, maximize=maximize))
