"""torch.optim.SGD (momentum, dampening, Nesterov, weight decay, maximize): PyTorch 1.13's
options and checks; the update is ember's fused C++ kernel."""
from .optimizer import Optimizer, _check, required


class SGD(Optimizer):
    _cpp_name = "SGD"

    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False):
        _check(lr is required or lr >= 0.0, "Invalid learning rate: {}".format(lr))
        _check(momentum >= 0.0, "Invalid momentum value: {}".format(momentum))
        _check(weight_decay >= 0.0, "Invalid weight_decay value: {}".format(weight_decay))
        _check(not nesterov or (momentum > 0 and dampening == 0),
               "Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                                      foreach=foreach, differentiable=differentiable))
