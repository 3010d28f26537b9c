"""The worker process of a multi-process DataLoader (torch.utils.data._utils.worker):
WorkerInfo / get_worker_info, PyTorch's per-worker seeding, and the worker loop.

A worker reads ``(task index, batch indices)`` from its own index queue, fetches and collates
the batch, and sends the result over its own result pipe (tensors through shared memory: see
shm.py). ``None`` on the index queue ends it; so does the main process going away (checked every
MP_STATUS_CHECK_INTERVAL seconds, and a write to a closed pipe). An exception while fetching is
sent back with its traceback text and re-raised by the main process.
"""
import os
import sys

import ember as torch

from . import MP_STATUS_CHECK_INTERVAL

# Message kinds on a worker's result pipe: (kind, task index, payload)
DATA, ERROR, ITERATION_END, RESUMED = 0, 1, 2, 3

_worker_info = None


class WorkerInfo:
    """What a worker knows about itself: ``id``, ``num_workers``, ``seed`` (this worker's torch
    seed, ``base_seed + id``) and ``dataset`` (this process's copy). Read-only."""

    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError("Cannot assign attributes to {} objects".format(self.__class__.__name__))
        return super().__setattr__(key, val)

    def __repr__(self):
        items = ["{}={}".format(k, getattr(self, k)) for k in self.__keys]
        return "{}({})".format(self.__class__.__name__, ", ".join(items))


def get_worker_info():
    """The current DataLoader worker's WorkerInfo inside a worker process; None in the main
    process. Use it in an IterableDataset's ``__iter__`` or a ``worker_init_fn`` to give each
    worker's copy of the dataset its own share of the work."""
    return _worker_info


class _IterableDatasetStopIteration:
    """A worker's IterableDataset is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id

    def __eq__(self, other):
        return isinstance(other, _IterableDatasetStopIteration) and other.worker_id == self.worker_id

    def __hash__(self):
        return hash(self.worker_id)

    def __repr__(self):
        return "_IterableDatasetStopIteration(worker_id=%r)" % (self.worker_id,)


class _ResumeIteration:
    """Sent to persistent workers at the start of a new epoch: make a new fetcher, confirm."""

    def __init__(self, seed=None):
        self.seed = seed


class KeyErrorMessage(str):
    """A str whose repr is itself: KeyError shows its argument's repr, which would bury the
    worker's traceback in escapes."""

    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception's type and formatted traceback, for re-raising in another process."""

    def __init__(self, exc_info=None, where="in background"):
        import traceback
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_type_name = exc_info[0].__name__
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raises the exception again: the same type (RuntimeError where that type cannot be
        made from one message), the message saying where it was caught and the original
        traceback."""
        msg = "Caught {} {}.\nOriginal {}".format(self.exc_type_name, self.where, self.exc_msg)
        exc_type = self.exc_type
        if exc_type is None:  # the type could not travel (not picklable)
            raise RuntimeError(msg)
        if exc_type == KeyError:
            msg = KeyErrorMessage(msg)
        elif getattr(exc_type, "message", None):
            raise exc_type(message=msg)
        try:
            exception = exc_type(msg)
        except TypeError:
            # an exception type that takes other arguments
            raise RuntimeError(msg) from None
        raise exception


def _generate_state(base_seed, worker_id):
    """The 4 x 32-bit NumPy seed PyTorch derives from (base_seed, worker_id): a SeedSequence-
    style hash of the entropy words [worker_id, base_seed low 32 bits, base_seed high bits, 0],
    so workers get unrelated NumPy streams (numpy.random.seed(base_seed + worker_id) would give
    neighbouring workers related ones)."""
    INIT_A, MULT_A = 0x43b0d7e5, 0x931e8875
    INIT_B, MULT_B = 0x8b51f9dd, 0x58f38ded
    MIX_MULT_L, MIX_MULT_R = 0xca01f9dd, 0x4973f715
    XSHIFT = 16
    MASK32 = 0xFFFFFFFF

    entropy = [worker_id, base_seed & MASK32, base_seed >> 32, 0]
    pool = [0] * 4
    hash_const_a = INIT_A

    def hash32(value):
        nonlocal hash_const_a
        value = (value ^ hash_const_a) & MASK32
        hash_const_a = (hash_const_a * MULT_A) & MASK32
        value = (value * hash_const_a) & MASK32
        return (value ^ (value >> XSHIFT)) & MASK32

    def mix(x, y):
        r = ((MIX_MULT_L * x) - (MIX_MULT_R * y)) & MASK32
        return (r ^ (r >> XSHIFT)) & MASK32

    for i in range(4):
        pool[i] = hash32(entropy[i])
    for i_src in range(4):
        for i_dst in range(4):
            if i_src != i_dst:
                pool[i_dst] = mix(pool[i_dst], hash32(pool[i_src]))

    hash_const_b = INIT_B
    state = []
    for value in pool:
        value = (value ^ hash_const_b) & MASK32
        hash_const_b = (hash_const_b * MULT_B) & MASK32
        value = (value * hash_const_b) & MASK32
        state.append((value ^ (value >> XSHIFT)) & MASK32)
    return state


def _send(conn, message):
    """Pickles and sends one message; an unpicklable exception type travels as its name."""
    import pickle
    try:
        data = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
    except Exception:
        kind, idx, payload = message
        if kind != ERROR:
            raise
        payload.exc_type = None
        data = pickle.dumps((kind, idx, payload), pickle.HIGHEST_PROTOCOL)
    conn.send_bytes(data)


def _worker_loop(dataset_kind, dataset, index_queue, result_conn, done_event, auto_collation,
                 collate_fn, drop_last, base_seed, init_fn, worker_id, num_workers,
                 persistent_workers, shm_prefix):
    # One thread: ember's OpenMP pool is not usable in a forked child (libgomp), and N workers
    # each running a full pool would oversubscribe the cores anyway.
    torch.set_num_threads(1)
    import queue
    import random

    from . import shm
    manager_pid = os.getppid()
    counter = [0]

    def new_path():
        counter[0] += 1
        return "%sw%d-%d" % (shm_prefix, worker_id, counter[0])

    try:
        seed = base_seed + worker_id
        random.seed(seed)
        torch.manual_seed(seed)
        try:
            import numpy as np
        except ImportError:
            np = None
        if np is not None:
            np.random.seed(_generate_state(base_seed, worker_id))

        global _worker_info
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)

        from ..dataloader import _DatasetKind

        init_exception = None
        fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_exception = ExceptionWrapper(where="in DataLoader worker process {}".format(worker_id))

        # iteration_end: this worker's IterableDataset is exhausted; it answers nothing more
        # until a new epoch (_ResumeIteration) or the end (None).
        iteration_end = False
        while True:
            try:
                r = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                if os.getppid() != manager_pid:  # the main process is gone
                    break
                continue
            if isinstance(r, _ResumeIteration):
                iteration_end = False
                fetcher = _DatasetKind.create_fetcher(dataset_kind, dataset, auto_collation, collate_fn, drop_last)
                _send(result_conn, (RESUMED, None, None))
                continue
            if r is None:
                break
            if done_event.is_set() or iteration_end:
                continue  # shutting down, or nothing left to give: drop the task
            idx, index = r
            if init_exception is not None:
                message = (ERROR, idx, init_exception)
                init_exception = None
            else:
                try:
                    batch = fetcher.fetch(index)
                    message = (DATA, idx, shm.encode(batch, new_path))
                    del batch
                except Exception as e:
                    if isinstance(e, StopIteration) and dataset_kind == _DatasetKind.Iterable:
                        message = (ITERATION_END, idx, _IterableDatasetStopIteration(worker_id))
                        iteration_end = True
                    else:
                        message = (ERROR, idx, ExceptionWrapper(
                            where="in DataLoader worker process {}".format(worker_id)))
            try:
                _send(result_conn, message)
            except (BrokenPipeError, ConnectionError, EOFError, OSError):
                if message[0] == DATA:
                    shm.discard(message[2][0])
                break  # the main process is gone or stopped listening
            del message, r, idx, index
    except KeyboardInterrupt:
        pass  # the main process gets it too and stops the workers
    finally:
        try:
            result_conn.close()
        except OSError:
            pass
