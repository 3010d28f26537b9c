"""Activation checkpointing by module: CheckpointWrapper runs a module's forward under
torch.utils.checkpoint, and apply_activation_checkpointing puts it around every submodule a
predicate picks (the reference's ``check_fn=lambda m: isinstance(m, TransformerBlock)``).

The wrapped module is the wrapper's child ``_checkpoint_wrapped_module``; state_dict() and the
wrapper's own named_parameters() leave that name out, and load_state_dict() puts it back, so a
checkpointed model saves and loads the same keys as the plain one, as in PyTorch 1.13."""
import functools
from enum import Enum, auto

from ....nn.modules.module import Module
from ....utils.checkpoint import checkpoint

_CHECKPOINT_PREFIX = "_checkpoint_wrapped_module"


class CheckpointImpl(Enum):
    REENTRANT = auto()
    NO_REENTRANT = auto()


def _rename_prefix(state_dict, old, new):
    """Renames the keys of ``state_dict`` that start with ``old`` to start with ``new`` instead,
    in place and in order."""
    items = list(state_dict.items())
    if not any(k.startswith(old) for k, _ in items):
        return
    state_dict.clear()
    for k, v in items:
        state_dict[new + k[len(old):] if k.startswith(old) else k] = v


class CheckpointWrapper(Module):
    """Runs ``mod`` under activation checkpointing. checkpoint_impl picks the use_reentrant value
    given to torch.utils.checkpoint.checkpoint (ember runs one implementation for both; see
    there). offload_to_cpu keeps the activations, moved to CPU memory (save_on_cpu), instead of
    recomputing them. checkpoint_fn replaces torch.utils.checkpoint.checkpoint, called as
    ``checkpoint_fn(module, *args, *checkpoint_fn_args, **kwargs, **checkpoint_fn_kwargs)``.
    Attributes the wrapper lacks are looked up on the wrapped module."""

    def __init__(self, mod, checkpoint_impl=CheckpointImpl.REENTRANT, offload_to_cpu=False,
                 checkpoint_fn=None, *checkpoint_fn_args, **checkpoint_fn_kwargs):
        super().__init__()
        if not isinstance(mod, Module):
            raise TypeError("CheckpointWrapper: expected an nn.Module to wrap, got %s" % type(mod).__name__)
        if not isinstance(checkpoint_impl, CheckpointImpl):
            raise TypeError("CheckpointWrapper: checkpoint_impl must be a CheckpointImpl, got %r"
                            % (checkpoint_impl,))
        if offload_to_cpu and (checkpoint_fn is not None or checkpoint_fn_args or checkpoint_fn_kwargs):
            # PyTorch 1.13 ignores checkpoint_fn then; ember says so instead.
            raise ValueError("CheckpointWrapper: offload_to_cpu=True keeps the activations on CPU "
                             "instead of recomputing them, so checkpoint_fn and its arguments "
                             "would be unused; give one or the other")
        if checkpoint_fn is None and (checkpoint_fn_args or checkpoint_fn_kwargs):
            raise ValueError("CheckpointWrapper: checkpoint_fn_args/checkpoint_fn_kwargs need a "
                             "checkpoint_fn to go to")
        self._checkpoint_wrapped_module = mod
        self.checkpoint_impl = checkpoint_impl
        self.offload_to_cpu = bool(offload_to_cpu)
        if self.offload_to_cpu:
            self.checkpoint_fn = None
        elif checkpoint_fn is None:
            self.checkpoint_fn = functools.partial(
                checkpoint, use_reentrant=checkpoint_impl is CheckpointImpl.REENTRANT)
        else:
            self.checkpoint_fn = _with_extra_arguments(checkpoint_fn, checkpoint_fn_args,
                                                       checkpoint_fn_kwargs)
        # Keys without the wrapper's child name in state_dict(), with it again when loading.
        self._register_state_dict_hook(CheckpointWrapper._strip_prefix)
        self._register_load_state_dict_pre_hook(CheckpointWrapper._add_prefix, with_module=True)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name == _CHECKPOINT_PREFIX:  # not set yet (inside __init__, or a copy being made)
                raise
            return getattr(self._checkpoint_wrapped_module, name)

    def __getitem__(self, key):
        """Indexing reaches the wrapped module (a wrapped nn.Sequential)."""
        return self._checkpoint_wrapped_module[key]

    def forward(self, *args, **kwargs):
        module = self._checkpoint_wrapped_module
        if self.offload_to_cpu:
            from ....autograd.graph import save_on_cpu
            with save_on_cpu(pin_memory=True):
                return module(*args, **kwargs)
        if kwargs and self.checkpoint_impl is CheckpointImpl.REENTRANT:
            # A reentrant checkpoint takes positional arguments only: the keywords go in the
            # function (their tensors still get gradients: ember's checkpoint records them).
            return self.checkpoint_fn(functools.partial(module, **kwargs), *args)
        return self.checkpoint_fn(module, *args, **kwargs)

    def named_parameters(self, *args, **kwargs):
        """The parameters' names as in the unwrapped module (no ``_checkpoint_wrapped_module.``),
        as PyTorch 1.13's wrapper names them when asked itself; a parent's named_parameters()
        keeps the full path, as in 1.13."""
        for name, param in super().named_parameters(*args, **kwargs):
            yield name.replace(_CHECKPOINT_PREFIX + ".", ""), param

    @staticmethod
    def _strip_prefix(module, state_dict, prefix, local_metadata):
        _rename_prefix(state_dict, prefix + _CHECKPOINT_PREFIX + ".", prefix)
        return state_dict

    @staticmethod
    def _add_prefix(module, state_dict, prefix, *args):
        wrapped = prefix + _CHECKPOINT_PREFIX + "."
        # Keys already spelled with the wrapper's child name are left as they are.
        for key in [k for k in state_dict if k.startswith(prefix) and not k.startswith(wrapped)]:
            state_dict[wrapped + key[len(prefix):]] = state_dict.pop(key)


def _with_extra_arguments(fn, extra_args, extra_kwargs):
    """fn(module, *args, **kwargs) with the wrapper's own extra arguments after the call's."""
    def call(module, *args, **kwargs):
        return fn(module, *args, *extra_args, **kwargs, **extra_kwargs)
    return call


def checkpoint_wrapper(module, checkpoint_impl=CheckpointImpl.REENTRANT, offload_to_cpu=False,
                       checkpoint_fn=None, *checkpoint_fn_args, **checkpoint_fn_kwargs):
    """``CheckpointWrapper(module, ...)``: calls of the returned module checkpoint ``module``."""
    return CheckpointWrapper(module, checkpoint_impl, offload_to_cpu, checkpoint_fn,
                             *checkpoint_fn_args, **checkpoint_fn_kwargs)


def apply_activation_checkpointing(model, checkpoint_wrapper_fn=checkpoint_wrapper,
                                   check_fn=lambda _: True):
    """Replaces, in place, every submodule of ``model`` for which ``check_fn(submodule)`` is true
    by ``checkpoint_wrapper_fn(submodule)`` (``model`` itself is never wrapped; wrap it with
    CheckpointWrapper directly). A submodule's own children are visited first, so a match inside
    a match is checkpointed within its parent's checkpoint, as in PyTorch 1.13. A module that is
    already wrapped and matches again (a second call) is a ValueError rather than 1.13's second
    checkpoint around the first. Returns None."""
    if not isinstance(model, Module):
        raise TypeError("apply_activation_checkpointing: expected an nn.Module, got %s"
                        % type(model).__name__)
    if not callable(check_fn) or not callable(checkpoint_wrapper_fn):
        raise TypeError("apply_activation_checkpointing: check_fn and checkpoint_wrapper_fn must be callable")
    _wrap_children(model, "", checkpoint_wrapper_fn, check_fn)


def _wrap_children(module, path, wrap, check_fn):
    for name, child in list(module.named_children()):
        child_path = path + ("." if path else "") + name
        _wrap_children(child, child_path, wrap, check_fn)
        if not check_fn(child):
            continue
        if isinstance(module, CheckpointWrapper):
            raise ValueError("apply_activation_checkpointing: module '%s' (%s) is checkpointed "
                             "already (was apply_activation_checkpointing called twice?)"
                             % (child_path, type(child).__name__))
        setattr(module, name, wrap(child))
