"""torch.utils.data.dataloader: DataLoader and its iterators, PyTorch 1.13's behaviour.

Single process (``num_workers=0``): the iterator takes index lists from the batch sampler,
fetches the samples and collates them in the calling thread.

Several processes (``num_workers > 0``): the iterator starts ``num_workers`` processes (the
default multiprocessing start method, or ``multiprocessing_context``), each with

  * its own index queue (a multiprocessing.Queue, main -> worker): ``(task index, batch
    indices)``, assigned round robin to the workers still active, at most ``prefetch_factor``
    tasks per worker outstanding;
  * its own result pipe (worker -> main, one writer each: a worker killed in the middle of a
    write cannot leave a lock held for the others).

Results are delivered in task order whatever order they arrive in (early ones wait in a
dictionary). A batch's tensors do not travel in the pipe: the worker writes all their bytes into
one file in /dev/shm (tmpfs, i.e. shared memory) and sends only the file's name and each
tensor's offset, dtype and shape, inside a pickle of the rest of the batch (Pickler
``persistent_id``). The main process maps the file, unlinks it, and rebuilds each tensor with
``ember.from_numpy(numpy.frombuffer(mapping, ...))``: the tensors lie on the shared pages
themselves, no copy and no element-by-element pickling; the memory is freed with the last
tensor on it. (PyTorch collates straight into shared memory and passes file descriptors; here
the worker makes one copy, with pwrite, from the collated batch into the file.) See
_utils/shm.py for the details and the cleanup of files no one received.

Every wait of the main process is bounded: it waits on the result pipes and on the worker
processes' sentinels together (``multiprocessing.connection.wait``), so a worker that dies, e.g.
by SIGKILL, is noticed at once and reported as a RuntimeError naming the worker id, its pid and
the signal; ``timeout > 0`` bounds the wait for the next result. A worker's exception comes back
as the same exception type with the worker's traceback text in its message. Workers stop when
the iterator is exhausted (unless ``persistent_workers``), deleted, garbage collected, or at
interpreter exit; a worker also stops by itself when the main process disappears.

Randomness as in PyTorch: each iterator draws ``base_seed`` with
``torch.empty((), dtype=torch.int64).random_(generator=loader.generator)``; worker ``i`` seeds
``random``, ``torch.manual_seed`` with ``base_seed + i`` and NumPy with PyTorch's hash of
(base_seed, i), so the batches (and any randomness in the dataset) are the same for any
``num_workers`` that gives each sample to the same worker, and equal PyTorch's.

``pin_memory=True`` does nothing on a build without CUDA (PyTorch 1.13 ignores it silently there
too).
"""
import itertools
import os
import time

import ember as torch

from . import _utils
from ._utils import worker as _worker
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = [
    "DataLoader",
    "get_worker_info",
    "default_collate",
    "default_convert",
]

default_collate = _utils.collate.default_collate
default_convert = _utils.collate.default_convert
get_worker_info = _utils.worker.get_worker_info

# Imported with the first multi-process iterator (import ember stays light).
_shm = None  # ._utils.shm
_pickle = None

# Seconds a stopping iterator gives its workers to exit before terminating them.
_SHUTDOWN_TIMEOUT = 1.0


class _DatasetKind:
    Map = 0
    Iterable = 1

    @staticmethod
    def create_fetcher(kind, dataset, auto_collation, collate_fn, drop_last):
        if kind == _DatasetKind.Map:
            return _utils.fetch._MapDatasetFetcher(dataset, auto_collation, collate_fn, drop_last)
        return _utils.fetch._IterableDatasetFetcher(dataset, auto_collation, collate_fn, drop_last)


class _InfiniteConstantSampler(Sampler):
    """None forever: the 'indices' of an IterableDataset (the fetcher only counts them)."""

    def __init__(self):
        super().__init__(None)

    def __iter__(self):
        while True:
            yield None


def _pin_memory(data):
    """Tensors (also inside containers) in page-locked memory; the data unchanged where ember
    has no pinned memory (CPU builds)."""
    if isinstance(data, torch.Tensor):
        pin = getattr(data, "pin_memory", None)
        return pin() if pin is not None else data
    if isinstance(data, dict):
        return type(data)({k: _pin_memory(v) for k, v in data.items()}) \
            if type(data) is not dict else {k: _pin_memory(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(_pin_memory(v) for v in data))
    if isinstance(data, (list, tuple)):
        return type(data)(_pin_memory(v) for v in data)
    return data


class DataLoader:
    """Batches of a dataset, optionally loaded by worker processes.

    Args (PyTorch's): dataset; batch_size (1; None: no automatic batching); shuffle; sampler;
    batch_sampler; num_workers (0: in this process); collate_fn; pin_memory; drop_last; timeout
    (seconds to wait for a worker's batch, 0: forever); worker_init_fn (called with the worker
    id in each worker after seeding); multiprocessing_context (a start method name or context);
    generator (RandomSampler's randomness and the workers' base_seed); prefetch_factor (tasks
    per worker in flight, keyword-only); persistent_workers (keep the workers between epochs);
    pin_memory_device.
    """

    __initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=2, persistent_workers=False, pin_memory_device=""):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; "
                             "use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor != 2:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing.")
        assert prefetch_factor > 0
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            # An IterableDataset decides its own order: no shuffle, sampler or batch_sampler.
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 "shuffle option, but got shuffle={}".format(shuffle))
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 "sampler option, but got sampler={}".format(sampler))
            elif batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 "batch_sampler option, but got batch_sampler={}".format(batch_sampler))
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")

        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive "
                                 "with batch_size, shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None:
            if drop_last:
                raise ValueError("batch_size=None option disables auto-batching "
                                 "and is mutually exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)

        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator

        if collate_fn is None:
            collate_fn = _utils.collate.default_collate if self._auto_collation \
                else _utils.collate.default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers

        self.__initialized = True
        self._IterableDataset_len_called = None  # len(dataset) once len(loader) asked for it
        self._iterator = None

        self.check_worker_number_rationality()

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessingDataLoaderIter(self)

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, multiprocessing_context):
        if multiprocessing_context is not None:
            if self.num_workers > 0:
                import multiprocessing
                import multiprocessing.context
                if isinstance(multiprocessing_context, (str, bytes)):
                    valid_start_methods = multiprocessing.get_all_start_methods()
                    if multiprocessing_context not in valid_start_methods:
                        raise ValueError(("multiprocessing_context option should specify a valid start "
                                          "method in {!r}, but got multiprocessing_context={!r}")
                                         .format(valid_start_methods, multiprocessing_context))
                    multiprocessing_context = multiprocessing.get_context(multiprocessing_context)
                if not isinstance(multiprocessing_context, multiprocessing.context.BaseContext):
                    raise TypeError(("multiprocessing_context option should be a valid context "
                                     "object or a string specifying the start method, but got "
                                     "multiprocessing_context={}").format(multiprocessing_context))
            else:
                raise ValueError(("multiprocessing_context can only be used with "
                                  "multi-process loading (num_workers > 0), but got "
                                  "num_workers={}").format(self.num_workers))
        self.__multiprocessing_context = multiprocessing_context

    def __setattr__(self, attr, val):
        if self.__initialized and attr in (
                "batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers"):
            raise ValueError("{} attribute should not be set after {} is "
                             "initialized".format(attr, self.__class__.__name__))
        super().__setattr__(attr, val)

    def __iter__(self):
        # persistent workers: one iterator for the loader's life, reset for every epoch
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        # what the iterator draws from: lists of indices (automatic batching) or single indices
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self):
        if self._dataset_kind == _DatasetKind.Iterable:
            # An estimate: the dataset's own length in batches (right only when the workers
            # split the stream without duplicates and without several short last batches).
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                from math import ceil
                length = length // self.batch_size if self.drop_last else ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)

    def check_worker_number_rationality(self):
        """Warns when num_workers exceeds the CPUs this process may run on."""
        if not self.num_workers:
            return
        max_num_worker_suggest = None
        cpuset_checked = False
        if hasattr(os, "sched_getaffinity"):
            try:
                max_num_worker_suggest = len(os.sched_getaffinity(0))
                cpuset_checked = True
            except Exception:
                pass
        if max_num_worker_suggest is None:
            max_num_worker_suggest = os.cpu_count()
        if max_num_worker_suggest is None or self.num_workers > max_num_worker_suggest:
            if max_num_worker_suggest is None:
                suggested = ("DataLoader is not able to compute a suggested max number of worker "
                             "in current system.")
            else:
                suggested = ("Our suggested max number of worker in current system is {}{}, which is "
                             "smaller than what this DataLoader is going to create.").format(
                    max_num_worker_suggest, "" if cpuset_checked else " (`cpuset` is not taken into account)")
            import warnings
            warnings.warn("This DataLoader will create {} worker processes in total. {} Please be aware "
                          "that excessive worker creation might get DataLoader running slow or even "
                          "freeze, lower the worker number to avoid potential slowness/freeze if "
                          "necessary.".format(self.num_workers, suggested))


class _BaseDataLoaderIter:
    def __init__(self, loader):
        self._dataset = loader.dataset
        self._shared_seed = None
        self._dataset_kind = loader._dataset_kind
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        if len(loader.pin_memory_device) == 0:
            self._pin_memory = loader.pin_memory and torch.cuda.is_available()
        else:
            if not loader.pin_memory:
                import warnings
                warnings.warn("pin memory device is set and pin_memory flag is not used then device "
                              "pinned memory won't be usedplease set pin_memory to true, if you need "
                              "to use the device pin memory")
            self._pin_memory = loader.pin_memory and torch.cuda.is_available()
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        # drawn for every iterator, also without workers: the generator advances as PyTorch's
        self._base_seed = torch.empty((), dtype=torch.int64).random_(generator=loader.generator).item()
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)  # may raise StopIteration

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        if self._sampler_iter is None:
            self._reset()
        data = self._next_data()
        self._num_yielded += 1
        if self._dataset_kind == _DatasetKind.Iterable and \
                self._IterableDataset_len_called is not None and \
                self._num_yielded > self._IterableDataset_len_called:
            warn_msg = ("Length of IterableDataset {} was reported to be {} (when accessing "
                        "len(dataloader)), but {} samples have been fetched. ").format(
                self._dataset, self._IterableDataset_len_called, self._num_yielded)
            if self._num_workers > 0:
                warn_msg += ("For multiprocessing data-loading, this could be caused by not properly "
                             "configuring the IterableDataset replica at each worker. Please see "
                             "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset "
                             "for examples.")
            import warnings
            warnings.warn(warn_msg)
        return data

    def __len__(self):
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError("{} cannot be pickled".format(self.__class__.__name__))


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        super().__init__(loader)
        assert self._timeout == 0
        assert self._num_workers == 0
        self._dataset_fetcher = _DatasetKind.create_fetcher(
            self._dataset_kind, self._dataset, self._auto_collation, self._collate_fn, self._drop_last)

    def _next_data(self):
        index = self._next_index()  # may raise StopIteration
        data = self._dataset_fetcher.fetch(index)  # may raise StopIteration
        if self._pin_memory:
            data = _pin_memory(data)
        return data


# Multi-process iterators whose workers may still run (a WeakSet, made with the first one);
# stopped at interpreter exit.
_live_iterators = None


def _register_live(it):
    global _live_iterators
    if _live_iterators is None:
        import atexit
        import weakref
        _live_iterators = weakref.WeakSet()
        atexit.register(_stop_live_iterators)
    _live_iterators.add(it)


# Strong references to each live iterator's processes, queues, pipes and event, by id(iterator).
# An iterator that becomes cyclic garbage (e.g. held by an exception's traceback) is finalized by
# the garbage collector together with what it references, in no defined order: without these
# references the pipes' own finalizers could close their descriptors before the iterator's
# __del__ stops the workers (which then reads closed, possibly reused, descriptors).
_resources = {}


def _stop_live_iterators():
    for it in list(_live_iterators or ()):
        try:
            it._shutdown_workers()
        except Exception:
            pass


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Iterates once over the loader's batches, loaded by worker processes (see the module
    docstring). Task bookkeeping, as PyTorch's:

      _send_idx          index of the next task to send
      _rcvd_idx          index of the next task to return
      _task_info[i]      (worker id,) while task i is outstanding, (worker id, message) once its
                         result arrived early; tasks of a worker whose IterableDataset ended are
                         skipped
      _tasks_outstanding tasks sent and not yet answered
      _workers_status[w] whether worker w still gets tasks this epoch
    """

    def __init__(self, loader):
        super().__init__(loader)
        assert self._num_workers > 0
        assert self._prefetch_factor > 0
        import multiprocessing
        import multiprocessing.connection
        import pickle
        from ._utils import shm
        global _shm, _pickle
        _shm, _pickle = shm, pickle
        self._mp_wait = multiprocessing.connection.wait
        ctx = loader.multiprocessing_context or multiprocessing.get_context()

        self._owner_pid = os.getpid()
        self._worker_init_fn = loader.worker_init_fn
        self._shutdown = False
        self._task_info = {}
        self._workers_status = []
        self._workers = []
        self._index_queues = []
        self._result_conns = []
        self._shm_prefix = _shm.prefix_for(os.urandom(6).hex())
        self._workers_done_event = ctx.Event()
        _resources[id(self)] = (self._workers, self._index_queues, self._result_conns,
                                self._workers_done_event)
        _register_live(self)
        try:
            for i in range(self._num_workers):
                index_queue = ctx.Queue()
                index_queue.cancel_join_thread()  # never block exit on indices no one reads
                reader, writer = ctx.Pipe(duplex=False)
                w = ctx.Process(
                    target=_worker._worker_loop,
                    args=(self._dataset_kind, self._dataset, index_queue, writer,
                          self._workers_done_event, self._auto_collation, self._collate_fn,
                          self._drop_last, self._base_seed, self._worker_init_fn, i,
                          self._num_workers, self._persistent_workers, self._shm_prefix))
                w.daemon = True
                self._index_queues.append(index_queue)
                self._result_conns.append(reader)
                self._workers.append(w)
                self._workers_status.append(True)
                w.start()
                writer.close()  # the worker holds the only write end: its death means EOF here
            self._reset(loader, first_iter=True)
        except BaseException:
            self._shutdown_workers()
            raise

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._discard_buffered()
        self._send_idx = 0
        self._rcvd_idx = 0
        self._task_info = {}
        self._tasks_outstanding = 0
        self._workers_status = [True for _ in range(self._num_workers)]
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            # persistent workers: new fetchers (a new pass over an IterableDataset); whatever
            # the last epoch left in flight arrives before each worker's confirmation and is
            # dropped
            for idx in range(self._num_workers):
                self._index_queues[idx].put(_worker._ResumeIteration(self._shared_seed))
            resume_iteration_cnt = self._num_workers
            while resume_iteration_cnt > 0:
                kind, _, payload = self._get_data()
                if kind == _worker.RESUMED:
                    resume_iteration_cnt -= 1
                elif kind == _worker.DATA:
                    _shm.discard(payload[0])
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    # ── receiving ─────────────────────────────────────────────────────────────────────────────
    def _worker_failure(self, worker_id):
        w = self._workers[worker_id]
        code = w.exitcode
        if code is not None and code < 0:
            import signal
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = "signal %d" % -code
            text = signal.strsignal(-code) or name
            msg = "DataLoader worker {} (pid {}) is killed by signal: {} ({}).".format(
                worker_id, w.pid, text, name)
            if -code == getattr(signal, "SIGBUS", None):
                msg += (" It is possible that the worker ran out of shared memory (/dev/shm); "
                        "a larger /dev/shm or fewer/smaller batches in flight may help.")
        else:
            msg = "DataLoader worker {} (pid {}) exited unexpectedly with exit code {}.".format(
                worker_id, w.pid, code)
        return msg

    def _fail(self, worker_ids):
        msgs = [self._worker_failure(i) for i in worker_ids]
        self._shutdown_workers(graceful=False)
        raise RuntimeError(" ".join(msgs))

    def _dead_active_workers(self):
        return [i for i, w in enumerate(self._workers)
                if self._workers_status[i] and not w.is_alive()]

    def _get_data(self):
        """The next message from any worker, as (kind, task index, payload). Raises when an
        active worker died, and after ``timeout`` seconds without a message (if set)."""
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        while True:
            conns = {c: i for i, c in enumerate(self._result_conns) if c is not None}
            sentinels = {self._workers[i].sentinel: i for i in range(self._num_workers)
                         if self._workers_status[i]}
            wait_s = _utils.MP_STATUS_CHECK_INTERVAL
            if deadline is not None:
                wait_s = max(0.0, min(wait_s, deadline - time.monotonic()))
            ready = self._mp_wait(list(conns) + list(sentinels), wait_s)
            dead = []
            for obj in ready:
                worker_id = conns.get(obj)
                if worker_id is None:
                    continue
                try:
                    data = obj.recv_bytes()
                except (EOFError, OSError):
                    # the worker closed its end: it exited
                    obj.close()
                    self._result_conns[worker_id] = None
                    if self._workers_status[worker_id]:
                        dead.append(worker_id)
                    continue
                return _pickle.loads(data)
            for worker_id in dead:  # its pipe closed: give the process a moment to be reaped
                self._workers[worker_id].join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)
            if dead or not ready or any(s in sentinels for s in ready):
                failed = self._dead_active_workers()
                if failed:
                    self._fail(failed)
            if deadline is not None and time.monotonic() >= deadline:
                raise RuntimeError("DataLoader timed out after {} seconds".format(self._timeout))

    def _next_data(self):
        while True:
            # Skip the tasks that will never be answered: those of workers whose IterableDataset
            # ended. Stop when nothing is left.
            while self._rcvd_idx < self._send_idx:
                info = self._task_info[self._rcvd_idx]
                worker_id = info[0]
                if len(info) == 2 or self._workers_status[worker_id]:
                    break
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration

            if len(self._task_info[self._rcvd_idx]) == 2:  # arrived earlier
                message = self._task_info.pop(self._rcvd_idx)[1]
                return self._process_data(message)

            assert not self._shutdown and self._tasks_outstanding > 0
            kind, idx, payload = self._get_data()
            if kind == _worker.RESUMED:
                continue
            self._tasks_outstanding -= 1
            if kind == _worker.ITERATION_END:
                # this worker's stream ended: it gets no more tasks this epoch
                if self._persistent_workers:
                    self._workers_status[payload.worker_id] = False
                else:
                    self._mark_worker_as_unavailable(payload.worker_id)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                self._task_info[idx] += ((kind, payload),)
            else:
                del self._task_info[idx]
                return self._process_data((kind, payload))

    def _try_put_index(self):
        assert self._tasks_outstanding < self._prefetch_factor * self._num_workers
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):  # the next active worker, if any
            worker_queue_idx = next(self._worker_queue_idx_cycle)
            if self._workers_status[worker_queue_idx]:
                break
        else:
            return  # no active worker left (every IterableDataset copy ended)
        self._index_queues[worker_queue_idx].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker_queue_idx,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _process_data(self, message):
        self._rcvd_idx += 1
        self._try_put_index()
        kind, payload = message
        if kind == _worker.ERROR:
            payload.reraise()
        data = _shm.decode(*payload)
        if self._pin_memory:
            data = _pin_memory(data)
        return data

    def _mark_worker_as_unavailable(self, worker_id, shutdown=False):
        # None ends the worker's loop; it is told once
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False

    def _discard_buffered(self):
        """Drops results that arrived early and will not be returned (their shared files)."""
        for info in self._task_info.values():
            if len(info) == 2 and info[1][0] == _worker.DATA:
                _shm.discard(info[1][1][0])
        self._task_info = {}

    # ── stopping ──────────────────────────────────────────────────────────────────────────────
    def _shutdown_workers(self, graceful=True):
        if getattr(self, "_shutdown", True) or getattr(self, "_owner_pid", None) != os.getpid():
            return  # done already, or a copy of the iterator in a forked child
        self._shutdown = True
        if _live_iterators is not None:
            _live_iterators.discard(self)
        try:
            self._workers_done_event.set()
            for worker_id in range(len(self._workers)):
                if self._persistent_workers or self._workers_status[worker_id]:
                    self._mark_worker_as_unavailable(worker_id, shutdown=True)
            if graceful and not _utils.python_exit_status:
                # let them exit; read and drop what they still send so none blocks on a full pipe
                deadline = time.monotonic() + _SHUTDOWN_TIMEOUT
                while time.monotonic() < deadline:
                    alive = [w for w in self._workers if w.is_alive()]
                    if not alive:
                        break
                    conns = {c: i for i, c in enumerate(self._result_conns) if c is not None}
                    ready = self._mp_wait(list(conns) + [w.sentinel for w in alive],
                                          max(0.0, deadline - time.monotonic()))
                    for obj in ready:
                        if obj in conns:
                            self._drop_message(obj, conns[obj])
        finally:
            # each step on its own: a failure in one must not leave processes or files behind
            for step in (self._stop_processes, self._drop_pending, self._close_queues,
                         self._discard_buffered):
                try:
                    step()
                except Exception:
                    pass
            _shm.sweep(self._shm_prefix)
            _resources.pop(id(self), None)

    def _stop_processes(self):
        for w in self._workers:
            if w.is_alive():
                w.terminate()
        for w in self._workers:
            if w.pid is not None:  # started
                w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)
                if w.is_alive():
                    w.kill()
                    w.join()

    def _drop_pending(self):
        """Reads the complete messages left in the pipes (their shared files go), closes them."""
        for i, c in enumerate(self._result_conns):
            if c is None:
                continue
            try:
                while c.poll() and self._drop_message(c, i):
                    pass
            except (EOFError, OSError):
                pass
            if self._result_conns[i] is not None:
                self._result_conns[i] = None
                try:
                    c.close()
                except OSError:
                    pass

    def _close_queues(self):
        for q in self._index_queues:
            q.cancel_join_thread()
            q.close()

    def _drop_message(self, conn, worker_id):
        try:
            data = conn.recv_bytes()
        except (EOFError, OSError):
            self._result_conns[worker_id] = None
            try:
                conn.close()
            except OSError:
                pass
            return False
        try:
            kind, _, payload = _pickle.loads(data)
        except Exception:
            return True
        if kind == _worker.DATA:
            _shm.discard(payload[0])
        return True

    def __del__(self):
        try:
            self._shutdown_workers()
        except Exception:
            pass
