"""torch.optim.LBFGS (1.13): L-BFGS over all parameters as one vector, with PyTorch's options,
state layout and optional strong-Wolfe line search; the iterations run in C++ (optim::LBFGS),
calling the Python closure for each evaluation."""
from .. import _C
from .optimizer import Optimizer


class LBFGS(Optimizer):
    _cpp_name = "LBFGS"

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        if not isinstance(params, _C.Tensor):  # the base class names a lone tensor's error
            params = list(params)
        if isinstance(params, list) and len(params) > 1 and isinstance(params[0], dict):  # before the C++ side refuses it
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                                      tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change,
                                      history_size=history_size, line_search_fn=line_search_fn))

    def step(self, closure):
        """Runs up to max_iter iterations; closure re-evaluates the model and returns the loss.
        Returns the loss of the first evaluation."""
        self._cpp.sync(self.param_groups)
        return self._cpp.step_closure(closure)
