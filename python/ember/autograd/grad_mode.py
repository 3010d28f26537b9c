"""no_grad, enable_grad, set_grad_enabled and inference_mode: context managers and decorators
over ember's thread-local grad modes."""
import functools

from .. import _C


class _DecoratorContextManager:
    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args):
                return func(*args, **kwargs)
        return wrapper

    _args = ()


class no_grad(_DecoratorContextManager):
    """Disables graph recording inside the block (torch.no_grad)."""

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


class enable_grad(_DecoratorContextManager):
    """Enables graph recording inside the block, even within no_grad."""

    def __enter__(self):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(True)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Sets grad mode at once (as a function call) and restores it when used as a context."""

    def __init__(self, mode):
        self.prev = _C.is_grad_enabled()
        self._args = (mode,)
        _C._set_grad_enabled(bool(mode))

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


class inference_mode(_DecoratorContextManager):
    """No graph, and tensors made inside can never be used in autograd later."""

    def __init__(self, mode=True):
        self._args = (mode,)
        self._scope = _C._InferenceModeScope(bool(mode))

    def __enter__(self):
        self._scope.__enter__()

    def __exit__(self, *exc):
        self._scope.__exit__(*exc)
