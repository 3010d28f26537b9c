"""torch.cuda.amp.GradScaler / torch.amp.GradScaler over the C++ scaler: scale the loss, unscale
the gradients, skip steps with inf/NaN gradients, grow and back off the scale."""
from .. import _C


class GradScaler:
    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._cpp = _C._amp.GradScaler(init_scale=float(init_scale), growth_factor=float(growth_factor),
                                       backoff_factor=float(backoff_factor),
                                       growth_interval=int(growth_interval), enabled=bool(enabled))

    def scale(self, outputs):
        if isinstance(outputs, _C.Tensor):
            return self._cpp.scale(outputs)
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def unscale_(self, optimizer):
        optimizer._cpp.sync(optimizer.param_groups)
        self._cpp.unscale_(optimizer._cpp)

    def step(self, optimizer, *args, **kwargs):
        """optimizer.step() unless the gradients hold inf/NaN; returns what step returned."""
        if args or kwargs:
            raise RuntimeError("GradScaler.step(): closures are not supported, as in PyTorch")
        optimizer._cpp.sync(optimizer.param_groups)
        self._cpp.step(optimizer._cpp)
        return None

    def update(self, new_scale=None):
        if isinstance(new_scale, _C.Tensor):
            new_scale = new_scale.item()
        self._cpp.update(new_scale)

    def get_scale(self):
        return self._cpp.get_scale()

    def is_enabled(self):
        return self._cpp.is_enabled()

    def get_growth_factor(self):
        return self._cpp.get_growth_factor()

    def set_growth_factor(self, new_factor):
        self._cpp.set_growth_factor(new_factor)

    def get_backoff_factor(self):
        return self._cpp.get_backoff_factor()

    def set_backoff_factor(self, new_factor):
        self._cpp.set_backoff_factor(new_factor)

    def get_growth_interval(self):
        return self._cpp.get_growth_interval()

    def set_growth_interval(self, new_interval):
        self._cpp.set_growth_interval(new_interval)

    def state_dict(self):
        return self._cpp.state_dict()

    def load_state_dict(self, state_dict):
        self._cpp.load_state_dict(state_dict)
