"""torch.nn.Parameter: a tensor that a Module registers as one of its parameters when assigned as
an attribute."""
from collections import OrderedDict

from .. import _C


class Parameter(_C.Tensor):
    """A kind of Tensor that is to be considered a module parameter (torch.nn.Parameter).

    ``Parameter(data=None, requires_grad=True)`` aliases ``data``'s values (no copy) as a new
    leaf without history; ``data=None`` gives an empty tensor. Ops on a Parameter give plain
    tensors, as in PyTorch.
    """

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        elif not isinstance(data, _C.Tensor):
            raise TypeError("Parameter(): data must be a Tensor, not %s" % type(data).__name__)
        _C.Tensor.__init__(self, data)
        self.requires_grad_(bool(requires_grad))

    def __deepcopy__(self, memo):
        # PyTorch 1.13 copies the values and requires_grad, not the grad.
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + _C.Tensor.__repr__(self)

    def __reduce_ex__(self, proto):
        state = {k: v for k, v in getattr(self, "__dict__", {}).items()}
        if not state:
            return (_rebuild_parameter, (self.data, self.requires_grad, OrderedDict()))
        return (_rebuild_parameter_with_state, (self.data, self.requires_grad, OrderedDict(), state))


def _rebuild_parameter(data, requires_grad, backward_hooks):
    # backward_hooks: always empty (hooks are not serialized), kept for PyTorch's layout.
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = _rebuild_parameter(data, requires_grad, backward_hooks)
    for k, v in state.items():
        setattr(param, k, v)
    return param


def is_lazy(param):
    """ember has no lazy (uninitialized) parameters."""
    return False
