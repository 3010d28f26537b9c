"""Helpers shared by the DataLoader, its workers and the samplers (torch.utils.data._utils)."""
import atexit
import sys

IS_WINDOWS = sys.platform == "win32"

MP_STATUS_CHECK_INTERVAL = 1.0
"""Seconds between liveness checks while a wait has nothing to report: a worker checks that the
main process still lives, the main process checks its workers (it also wakes at once when a
worker's process ends: it waits on the processes' sentinels). PyTorch uses 5 s."""

python_exit_status = False
"""True once the interpreter is shutting down (set by an atexit hook): iterators then stop their
workers without waiting on anything."""


def _set_python_exit_flag():
    global python_exit_status
    python_exit_status = True


atexit.register(_set_python_exit_flag)


from . import collate, fetch, worker  # noqa: E402,F401
