"""What save and load share: CheckpointException (PyTorch's error for a failed save or load, on
every rank, with each failing rank's error) and the call into the C++ side's DCP
(ember._C._dcp), whose errors become that exception."""
import os
import re


class CheckpointException(BaseException):
    """A save or load failed on some ranks; raised on every rank. ``failures`` maps each failing
    rank to ``(exception, traceback)``, as in PyTorch, where the traceback is None: the error
    came from the C++ side, whose message names the step, the key and the shapes.

    A BaseException, as PyTorch's: ``except Exception`` does not catch it."""

    def __init__(self, msg, failures):
        super().__init__(msg, failures)
        self._failures = failures

    @property
    def failures(self):
        return self._failures

    def __str__(self):
        return self.args[0]


# The C++ side reports every failing rank on a line of its own: "\n  rank 3: <that rank's error>".
_RANK_LINE = re.compile(r"\n  rank (\d+): ")


def _failures(message, this_rank):
    parts = _RANK_LINE.split(message)
    if len(parts) == 1:  # one process: the error as it was raised
        return {this_rank: (RuntimeError(message), None)}
    return {int(rank): (RuntimeError(text), None) for rank, text in zip(parts[1::2], parts[2::2])}


def _rank(process_group, no_dist):
    from .. import get_rank, is_initialized
    if no_dist or (process_group is None and not is_initialized()):
        return 0
    return get_rank(process_group)


def _path(checkpoint_id, storage, storage_class, op):
    """The directory to use: checkpoint_id, else the storage's path (later PyTorch's rule: a
    checkpoint_id given beside a storage writer or reader points it at that directory)."""
    if storage is not None and not isinstance(storage, storage_class):
        raise TypeError("%s(): ember's storage is %s (a directory of PyTorch's layout); got %s"
                        % (op, storage_class.__name__, type(storage).__name__))
    if checkpoint_id is not None:
        return os.fspath(checkpoint_id)
    if storage is None:
        raise ValueError("%s(): give checkpoint_id (the checkpoint's directory) or a %s"
                         % (op, storage_class.__name__))
    return os.fspath(storage.path)


def _check_common(op, planner, coordinator_rank):
    if planner is not None:
        raise NotImplementedError("%s(planner=...): custom planners are not in ember; the default "
                                  "planner (PyTorch's DefaultSavePlanner/DefaultLoadPlanner "
                                  "behaviour) is always used" % op)
    if isinstance(coordinator_rank, bool) or not isinstance(coordinator_rank, int):
        raise TypeError("%s(): coordinator_rank must be an int, got %s"
                        % (op, type(coordinator_rank).__name__))


def _run(call, process_group, no_dist):
    """Runs a C++ save or load; its error (raised on every rank) as CheckpointException."""
    try:
        call()
    except RuntimeError as e:
        message = str(e)
        raise CheckpointException(message, _failures(message, _rank(process_group, no_dist))) from None
