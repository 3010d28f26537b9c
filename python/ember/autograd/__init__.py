"""torch.autograd: backward and grad, grad modes, anomaly detection and custom Functions."""
from .. import _C
from .grad_mode import no_grad, enable_grad, set_grad_enabled, inference_mode  # noqa: F401
from .function import Function, FunctionCtx, once_differentiable  # noqa: F401
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: F401
from . import graph  # noqa: F401
from . import function  # noqa: F401


def _tensors(x):
    if x is None:
        return None
    if isinstance(x, _C.Tensor):
        return (x,)
    return tuple(x)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    """Accumulates the gradients of ``tensors`` into the leaves' ``.grad``."""
    if grad_variables is not None:
        grad_tensors = grad_variables
    if inputs is not None:
        raise RuntimeError("backward(inputs=...) is not in ember: use ember.autograd.grad")
    _C._backward(_tensors(tensors), _tensors(grad_tensors), retain_graph, create_graph)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, is_grads_batched=False):
    """Gradients of ``outputs`` with respect to ``inputs`` (a tuple), without touching ``.grad``."""
    if is_grads_batched:
        raise RuntimeError("grad(is_grads_batched=True) is not in ember")
    return _C._grad(_tensors(outputs), _tensors(inputs), _tensors(grad_outputs), retain_graph,
                    create_graph, allow_unused)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError("module 'torch.autograd' has no attribute '%s': torch.autograd.%s is not in ember"
                         % (name, name))
