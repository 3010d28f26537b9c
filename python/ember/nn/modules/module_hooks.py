"""The hooks of torch.nn.Module: the handles register_*_hook returns, the global hooks
(torch.nn.modules.module.register_module_*_hook, run for every module) and the machinery of full
backward hooks (an identity autograd Function around a module's inputs and outputs)."""
import functools
import itertools
import weakref
from collections import OrderedDict

from ... import _C
from ...autograd.function import Function

Tensor = _C.Tensor

# ── hook handles ────────────────────────────────────────────────────────────────────────────────
_next_handle_id = itertools.count()


class RemovableHandle:
    """What the register_*_hook methods return: ``handle.remove()`` takes the hook out of the
    dict(s) it was put in (again: nothing); ``handle.id`` is its key there, as in PyTorch; a
    ``with`` block removes it at the end. (Not ember.utils.hooks': importing ember.utils would
    import the data loader with every ``import ember.nn``.)"""

    def __init__(self, hooks_dict, *extra_dicts):
        self.id = next(_next_handle_id)
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.extra_dict_refs = tuple(weakref.ref(d) for d in extra_dicts)

    def remove(self):
        for ref in (self.hooks_dict_ref,) + self.extra_dict_refs:
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _WrappedHook:
    def __init__(self, hook, module=None):
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = False
        if module is not None:
            self.module = weakref.ref(module)
            self.with_module = True

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)


# Global hooks (torch.nn.modules.module.register_module_*_hook): run for every module.
_global_backward_hooks = OrderedDict()  # full backward hooks only (the others are refused)
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()


def register_module_forward_pre_hook(hook):
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook):
    handle = RemovableHandle(_global_forward_hooks)
    _global_forward_hooks[handle.id] = hook
    return handle


def register_module_backward_hook(hook):
    raise RuntimeError("register_module_backward_hook (the deprecated non-full backward hook) is not "
                       "in ember: use register_module_full_backward_hook")


def register_module_full_backward_hook(hook):
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


# ── full backward hooks ─────────────────────────────────────────────────────────────────────────
class _BackwardHookFunction(Function):
    """Identity on the given tensors whose backward hands the incoming gradients to a callback
    (torch.nn.modules._functions.BackwardHookFunction plus the hook on its grad_fn). The callback
    may return replacement gradients."""

    @staticmethod
    def forward(ctx, callback, materialize, *args):
        ctx.callback = callback
        # The output side sees an unused output's gradient as None, the input side as zeros.
        ctx.set_materialize_grads(materialize)
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        res = ctx.callback(grads)
        if res is not None:
            grads = tuple(res)
        return (None, None) + tuple(grads)


class _BackwardHook:
    """One call's full backward hook (torch.utils.hooks.BackwardHook): the module's tensor inputs
    and outputs go through identities whose backward collects grad_output and then calls the
    user's hooks with (module, grad_input, grad_output)."""

    def __init__(self, module, user_hooks):
        self.user_hooks = user_hooks
        self.module = module
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices, values, size):
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    @staticmethod
    def _unpack_none(indices, values):
        return tuple(values[idx] for idx in indices)

    def _apply_on_tensors(self, callback, args, materialize):
        tensors_idx, tensors = [], []
        requires_grad = False
        for i, arg in enumerate(args):
            if isinstance(arg, Tensor):
                tensors_idx.append(i)
                tensors.append(arg)
                requires_grad |= arg.requires_grad
        if not (requires_grad and _C.is_grad_enabled()):
            return args, None
        new_tensors = _BackwardHookFunction.apply(callback, materialize, *tensors)
        if len(new_tensors) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input Tensors.")
        arg_list = list(args)
        for idx, val in zip(tensors_idx, new_tensors):
            arg_list[idx] = val
        return tuple(arg_list), tensors_idx

    def _input_callback(self, grad_input):
        if self.grad_outputs is None:
            # The gradient reached the inputs without passing through the outputs.
            return None
        res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
        for hook in self.user_hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(res):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                   "got {}, but expected {}".format(len(out), len(res)))
            res = out
        self.grad_outputs = None
        return self._unpack_none(self.input_tensors_index, res)

    def _output_callback(self, grad_output):
        self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output,
                                                 self.n_outputs)
        if self.input_tensors_index is None:
            # No input requires grad: the user hooks run here, with grad_input all None.
            grad_inputs = self._pack_with_none([], [], self.n_inputs)
            for user_hook in self.user_hooks:
                res = user_hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple) and all(el is None for el in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all gradients.")
            self.grad_outputs = None
        return None

    def setup_input_hook(self, args):
        res, input_idx = self._apply_on_tensors(self._input_callback, args, True)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def setup_output_hook(self, args):
        is_tuple = isinstance(args, tuple)
        if not is_tuple:
            args = (args,)
        res, output_idx = self._apply_on_tensors(self._output_callback, args, False)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        return res if is_tuple else res[0]
