"""Auto-wrap policies (torch.distributed.fsdp.wrap, 1.13): which submodules become FSDP units of
their own. A policy is called as ``policy(module=m, recurse=r, unwrapped_params=n)``: with
recurse=True it says whether to look inside ``m``'s children, with recurse=False whether to wrap
``m`` itself (``n`` is then the count of its parameters no wrapped child took). Extra arguments
are bound with functools.partial:

    policy = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={Block})

Also enable_wrap()/wrap() for wrapping by hand with shared arguments, and _recursive_wrap, the
walk FSDP and apply_activation_checkpointing run a policy with."""
import contextlib

from ...nn.modules.activation import MultiheadAttention
from ...nn.modules.batchnorm import _BatchNorm
from ...nn.modules.container import ModuleDict, ModuleList

__all__ = ["always_wrap_policy", "lambda_auto_wrap_policy", "transformer_auto_wrap_policy",
           "size_based_auto_wrap_policy", "enable_wrap", "wrap"]


def always_wrap_policy(*args, **kwargs):
    """Every submodule becomes a unit."""
    return True


def lambda_auto_wrap_policy(module, recurse, unwrapped_params, lambda_fn):
    """Looks everywhere; wraps the modules for which ``lambda_fn(module)`` is true."""
    return True if recurse else bool(lambda_fn(module))


def transformer_auto_wrap_policy(module, recurse, unwrapped_params, transformer_layer_cls):
    """Looks everywhere; wraps the instances of the classes in ``transformer_layer_cls`` (a set of
    module classes). Everything else (embeddings, heads, shared weights) stays with the root."""
    return True if recurse else isinstance(module, tuple(transformer_layer_cls))


def _wrap_batchnorm_individually(module, recurse, *args, **kwargs):
    return True if recurse else isinstance(module, _BatchNorm)


def _or_policy(module, recurse, unwrapped_params, policies):
    return any(p(module=module, recurse=recurse, unwrapped_params=unwrapped_params) for p in policies)


def size_based_auto_wrap_policy(module, recurse, unwrapped_params, min_num_params=int(1e8),
                                force_leaf_modules=None, exclude_wrap_modules=None):
    """Wraps a module once it holds at least ``min_num_params`` parameters not yet wrapped. It does
    not look inside ``force_leaf_modules`` (default: MultiheadAttention, whose forward reads its
    parameters directly) and never wraps ``exclude_wrap_modules`` (default: ModuleList and
    ModuleDict, which have no forward)."""
    if force_leaf_modules is None:
        force_leaf_modules = size_based_auto_wrap_policy.FORCE_LEAF_MODULES
    if exclude_wrap_modules is None:
        exclude_wrap_modules = size_based_auto_wrap_policy.EXCLUDE_WRAP_MODULES
    large_enough = unwrapped_params >= min_num_params
    if recurse:
        return large_enough and not isinstance(module, tuple(force_leaf_modules))
    return large_enough and not isinstance(module, tuple(exclude_wrap_modules))


size_based_auto_wrap_policy.EXCLUDE_WRAP_MODULES = {ModuleList, ModuleDict}
size_based_auto_wrap_policy.FORCE_LEAF_MODULES = {MultiheadAttention}


def _wrap(module, wrapper_cls, **kwargs):
    # A module may carry its own overrides (FSDP sets mixed_precision=None on BatchNorm).
    overrides = getattr(module, "_wrap_overrides", None)
    if overrides:
        kwargs = {**kwargs, **overrides}
    return wrapper_cls(module, **kwargs)


def _recursive_wrap(module, auto_wrap_policy, wrapper_cls, ignored_modules=(), ignored_params=(),
                    only_wrap_children=False, **kwargs):
    """Wraps the submodules of ``module`` that ``auto_wrap_policy`` picks, innermost first (a
    picked module's own picked children are wrapped before it), replacing them in their parents.
    Returns (the module or its wrapper, the number of parameters now inside wrappers).
    only_wrap_children: never wrap ``module`` itself (the caller does)."""
    ignored_modules = set(ignored_modules)
    ignored_ids = {id(p) for p in ignored_params}
    if isinstance(wrapper_cls, type):
        for name, child in module.named_modules():
            if child not in ignored_modules and isinstance(child, wrapper_cls):
                raise ValueError("Expected %s to NOT be %s if using an `auto_wrap_policy`"
                                 % (name or "the module", wrapper_cls.__name__))
    count = sum(p.numel() for p in module.parameters() if id(p) not in ignored_ids)
    if not auto_wrap_policy(module=module, recurse=True, unwrapped_params=count):
        return module, 0
    wrapped = 0
    for name, child in list(module.named_children()):
        if child in ignored_modules:
            continue
        new_child, n = _recursive_wrap(child, auto_wrap_policy, wrapper_cls, ignored_modules,
                                       ignored_params, False, **kwargs)
        if new_child is not child:
            setattr(module, name, new_child)
        wrapped += n
    remainder = count - wrapped
    if not only_wrap_children and auto_wrap_policy(module=module, recurse=False,
                                                   unwrapped_params=remainder):
        return _wrap(module, wrapper_cls, **kwargs), count
    return module, wrapped


class _ConfigAutoWrap:
    """The arguments enable_wrap() set for wrap() (one context at a time, as in 1.13)."""

    in_autowrap_context = False
    wrapper_cls = None
    kwargs = {}


@contextlib.contextmanager
def enable_wrap(*, wrapper_cls, **wrapper_kwargs):
    """Inside, wrap(module) returns ``wrapper_cls(module, **wrapper_kwargs)``."""
    if _ConfigAutoWrap.in_autowrap_context:
        raise NotImplementedError("You are already within an autowrap context and we currently do "
                                  "not supported nested autowrap.")
    _ConfigAutoWrap.in_autowrap_context = True
    _ConfigAutoWrap.wrapper_cls = wrapper_cls
    _ConfigAutoWrap.kwargs = dict(wrapper_kwargs)
    try:
        yield
    finally:
        _ConfigAutoWrap.in_autowrap_context = False
        _ConfigAutoWrap.wrapper_cls = None
        _ConfigAutoWrap.kwargs = {}


def wrap(module, **wrap_overrides):
    """Inside enable_wrap(): the module wrapped with the context's arguments (``wrap_overrides``
    win). Outside: the module itself, so that a model builds with or without FSDP."""
    if not _ConfigAutoWrap.in_autowrap_context:
        return module
    return _wrap(module, _ConfigAutoWrap.wrapper_cls, **{**_ConfigAutoWrap.kwargs, **wrap_overrides})
