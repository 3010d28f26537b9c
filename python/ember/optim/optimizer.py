"""torch.optim.Optimizer: param_groups as Python dicts a program may edit, over a C++ optimizer
(ember._C._optim) that holds the state and runs the fused update kernels. Each step first pushes
the groups' options to C++, so `g['lr'] = ...` (and every LR scheduler) takes effect at the next
step; state_dict()/load_state_dict() are the C++ side's, in PyTorch's layout."""
from collections import defaultdict

from .. import _C
from ..autograd.grad_mode import enable_grad


class _RequiredParameter:
    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Base class: subclasses name their C++ optimizer (_cpp_name) and check their options."""

    _cpp_name = None

    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, _C.Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + type(params).__name__)
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        self.param_groups = []
        for group in param_groups:
            self.param_groups.append(self._complete_group(group))
        self._cpp = _C._optim.Optimizer(self._cpp_name, self.param_groups, self._plain_defaults())

    def _plain_defaults(self):
        return {k: v for k, v in self.defaults.items() if v is not required}

    def _complete_group(self, param_group):
        group = dict(param_group)
        params = group["params"]
        group["params"] = [params] if isinstance(params, _C.Tensor) else list(params)
        for p in group["params"]:
            if not isinstance(p, _C.Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + type(p).__name__)
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError("parameter group didn't specify a value of required optimization "
                                 "parameter " + name)
            group.setdefault(name, default)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        return group

    def add_param_group(self, param_group):
        """Adds a group (fine-tuning a layer that was frozen); the state of the others is kept."""
        group = self._complete_group(param_group)
        self._cpp.sync(self.param_groups)
        saved = self._cpp.state_dict()
        self.param_groups.append(group)
        cpp = _C._optim.Optimizer(self._cpp_name, self.param_groups, self._plain_defaults())
        first = sum(len(g["params"]) for g in self.param_groups[:-1])
        saved["param_groups"].append(
            {**{k: v for k, v in group.items() if k != "params"},
             "params": list(range(first, first + len(group["params"])))})
        cpp.load_state_dict(saved)
        self._cpp = cpp

    def zero_grad(self, set_to_none=False):
        """Zeroes the gradients (PyTorch 1.13's default), or drops them with set_to_none=True."""
        self._cpp.zero_grad(set_to_none)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        self._cpp.sync(self.param_groups)
        self._cpp.step()
        return loss

    def state_dict(self):
        self._cpp.sync(self.param_groups)
        state_dict = self._cpp.state_dict()
        # A parameter that is one rank's block of a flat tensor (an FSDP shard) passes that on to
        # its states of the same size, for distributed checkpoints (checkpoint/sharded_tensor.py).
        params = [p for group in self.param_groups for p in group["params"]]
        for index, states in state_dict["state"].items():
            shard = getattr(params[index], "_dcp_shard", None) if index < len(params) else None
            if shard is None:
                continue
            for value in states.values():
                if isinstance(value, _C.Tensor) and value.dim() == 1 and value.numel() == params[index].numel():
                    value._dcp_shard = shard
        return state_dict

    def load_state_dict(self, state_dict):
        self._cpp.sync(self.param_groups)
        self._cpp.load_state_dict(state_dict)
        for i, group in enumerate(self.param_groups):
            params = group["params"]
            group.clear()
            group.update(self._cpp.group_options(i))
            group["params"] = params

    @property
    def state(self):
        """Per-parameter state (a snapshot: its tensors are the optimizer's own)."""
        out = defaultdict(dict)
        for group in self.param_groups:
            for p in group["params"]:
                st = self._cpp.state(p)
                if st:
                    out[p] = st
        return out

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __repr__(self):
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += "\nParameter Group %d" % i
            for key in sorted(group.keys()):
                if key != "params":
                    s += "\n    %s: %s" % (key, group[key])
        return s + "\n)"


def _check(cond, message):
    if not cond:
        raise ValueError(message)
