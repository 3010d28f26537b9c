"""torch.utils.checkpoint: activation checkpointing, trading compute for memory. A checkpointed
function keeps none of the tensors its graph would save for backward; the backward runs it
again to get them (the C++ side's non-reentrant checkpoint, ember/utils/checkpoint.h)."""
import warnings

from .. import _C


def _is_tensor(x):
    from .. import Tensor
    return isinstance(x, Tensor)


def checkpoint(function, *args, use_reentrant=True, preserve_rng_state=True, **kwargs):
    """Runs ``function(*args, **kwargs)`` without keeping the activations its backward needs, and
    returns what it returns (a tensor, a tuple, anything: tensors inside keep their graph). The
    first backward that needs one of those activations runs ``function`` again, under the
    forward's RNG state (``preserve_rng_state``: dropout draws the same mask again, and the
    surrounding RNG state is put back afterwards) and autocast settings. Gradients equal those of
    the plain call, for the inputs and for the parameters used inside. ``function`` must compute
    the same graph each time (a recompute that saves fewer tensors is an error).

    use_reentrant: both values run ember's one (non-reentrant) implementation, so the gradients
    are the same either way; what differs is what PyTorch 1.13 accepts:

    - use_reentrant=True (1.13's default) takes positional arguments only: keyword arguments are
      a ValueError, as in 1.13 (pass them with use_reentrant=False, or through CheckpointWrapper).
    - When no tensor argument requires grad, 1.13's reentrant checkpoint returns outputs without
      a graph, so the parameters inside get no gradients (it warns "None of the inputs have
      requires_grad=True. Gradients will be None"). ember warns too, but computes their
      gradients, as use_reentrant=False does, rather than silently drop them.
    - 1.13's reentrant checkpoint refuses torch.autograd.grad; ember's supports it with either
      value.

    Without grad mode (torch.no_grad()) the function just runs: there is no graph to save."""
    if not callable(function):
        raise TypeError("checkpoint(): function must be callable, got %s" % type(function).__name__)
    if use_reentrant and kwargs:
        raise ValueError("Unexpected keyword arguments: %s (checkpoint with use_reentrant=True passes "
                         "positional arguments only; use use_reentrant=False)" % ",".join(kwargs))
    from .. import is_grad_enabled
    if use_reentrant and is_grad_enabled() and not any(_is_tensor(a) and a.requires_grad for a in args):
        warnings.warn("None of the inputs have requires_grad=True. PyTorch 1.13's reentrant "
                      "checkpoint gives no gradients here; ember computes the gradients of the "
                      "parameters used inside, as use_reentrant=False does")

    positions = [i for i, a in enumerate(args) if _is_tensor(a)]
    # The forward's return value, handed back as it is; a recompute's is dropped. Cleared before
    # returning: the graph holds `run`, and the outputs must not be kept alive through it.
    forward = {"running": True, "result": None}

    def run(*tensors):
        full = list(args)
        for i, t in zip(positions, tensors):
            full[i] = t
        result = function(*full, **kwargs)
        if forward["running"]:
            forward["result"] = result

    _C._checkpoint(run, [args[i] for i in positions], bool(preserve_rng_state))
    result = forward["result"]
    forward["running"], forward["result"] = False, None
    return result


def checkpoint_sequential(functions, segments, input, *, use_reentrant=True,
                          preserve_rng_state=True):
    """Runs ``functions`` (an nn.Sequential or a list of modules or functions of one tensor) on
    ``input`` in order, cut into ``segments`` runs of len(functions) // segments: every segment
    but the last is checkpointed, the last (with the remainder) runs as usual, as in PyTorch.
    use_reentrant and preserve_rng_state as for checkpoint."""
    from ..nn import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())
    functions = list(functions)
    if isinstance(segments, bool) or not isinstance(segments, int) or not 1 <= segments <= len(functions):
        raise ValueError("checkpoint_sequential(): segments must be an int from 1 to the number of "
                         "functions (%d), got %r" % (len(functions), segments))
    size = len(functions) // segments

    def run_segment(part):
        def forward(x):
            for f in part:
                x = f(x)
            return x
        return forward

    x = input
    for start in range(0, size * (segments - 1), size):
        x = checkpoint(run_segment(functions[start:start + size]), x, use_reentrant=use_reentrant,
                       preserve_rng_state=preserve_rng_state)
    return run_segment(functions[size * (segments - 1):])(x)
