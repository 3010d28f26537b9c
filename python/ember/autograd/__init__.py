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


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, **unsupported):
    """Compares func's Jacobian from backward with central differences (float64 inputs that
    require grad). Raises RuntimeError naming the mismatch, or returns False when
    raise_exception=False."""
    return _check(func, inputs, eps, atol, rtol, raise_exception, unsupported, False)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  raise_exception=True, **unsupported):
    """gradcheck of the backward itself (second derivatives)."""
    if grad_outputs is not None:
        unsupported["grad_outputs"] = grad_outputs
    return _check(func, inputs, eps, atol, rtol, raise_exception, unsupported, True)


def _check(func, inputs, eps, atol, rtol, raise_exception, unsupported, second_order):
    if unsupported:
        raise TypeError("gradcheck(): %s not in ember" % ", ".join(sorted(unsupported)))
    try:
        return _C._gradcheck(func, _tensors(inputs), eps, atol, rtol, second_order)
    except RuntimeError:
        if raise_exception:
            raise
        return False


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
