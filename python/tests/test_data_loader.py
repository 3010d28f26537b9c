"""torch.utils.data behaviour that golden files cannot show: worker processes (errors, deaths,
timeouts, cleanup, persistence, seeding hooks), the shared-memory hand-over of batches, and the
torch alias. PyTorch's exact numbers are test_data_golden.py's.

Every test runs under a SIGALRM deadline (the `guard` fixture, autouse): a hang fails the test
instead of the run, and whatever worker process is left after a test (passed or failed) is
killed and reported as a failure.
"""
import gc
import glob
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest

import ember as torch
from ember.utils.data import (BatchSampler, ChainDataset, DataLoader, Dataset, DistributedSampler,
                              IterableDataset, RandomSampler, SequentialSampler, TensorDataset,
                              default_collate, get_worker_info)

TEST_TIMEOUT_S = 15
# where the ember under test lives (the source tree or a build tree): subprocesses import it too
PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(torch.__file__)))


class _Deadline(Exception):
    pass


def _shm_files():
    return glob.glob("/dev/shm/ember-dl-%d-*" % os.getpid())


@pytest.fixture(autouse=True)
def guard():
    def on_alarm(signum, frame):
        raise _Deadline("test ran past %d s" % TEST_TIMEOUT_S)

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, TEST_TIMEOUT_S)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        gc.collect()  # iterators dropped by the test stop their workers
        leftover = multiprocessing.active_children()
        for p in leftover:
            p.kill()
            p.join(5)
        files = _shm_files()
        for f in files:
            os.unlink(f)
    assert not leftover, "worker processes left running: %r" % leftover
    assert not files, "shared-memory files left behind: %r" % files


# ── datasets used by the tests (module level: picklable for the spawn test) ───────────────────
class Decode(Dataset):
    """Each sample is 'decoded' from its index: deterministic, independent of the process."""

    def __init__(self, n=20, shape=(3, 4)):
        self.n, self.shape = n, shape

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        a = np.arange(int(np.prod(self.shape)), dtype=np.float32).reshape(self.shape) + i
        return torch.tensor(a), i


class Failing(Dataset):
    def __init__(self, bad, exc):
        self.bad, self.exc = bad, exc

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == self.bad:
            raise self.exc
        return i


class TwoArgError(Exception):
    def __init__(self, a, b):
        super().__init__(a, b)


class KillSelf(Dataset):
    def __len__(self):
        return 20

    def __getitem__(self, i):
        if i == 5:
            os.kill(os.getpid(), signal.SIGKILL)
        return i


class Pids(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        return i, os.getpid(), info.id, getattr(info.dataset, "tag", "")


class Slow(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        time.sleep(3)
        return i


class Stream(IterableDataset):
    def __init__(self, n, reported=None):
        self.n = n
        self.reported = n if reported is None else reported

    def __iter__(self):
        info = get_worker_info()
        wid, nw = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(wid, self.n, nw))

    def __len__(self):
        return self.reported


def _batches_equal(a, b):
    assert len(a) == len(b)
    for (xa, ia), (xb, ib) in zip(a, b):
        assert xa.dtype == xb.dtype and xa.shape == xb.shape
        assert xa.tolist() == xb.tolist() and ia.tolist() == ib.tolist()


# ── results ───────────────────────────────────────────────────────────────────────────────────
def test_same_batches_for_any_num_workers():
    runs = []
    for workers in (0, 1, 2):
        g = torch.Generator()
        g.manual_seed(1234)
        loader = DataLoader(Decode(23), batch_size=4, shuffle=True, generator=g, num_workers=workers)
        runs.append([list(loader), list(loader)])  # two epochs: the generator moves on alike
    for other in runs[1:]:
        _batches_equal(runs[0][0], other[0])
        _batches_equal(runs[0][1], other[1])
    first = [i for _, idx in runs[0][0] for i in idx.tolist()]
    assert sorted(first) == list(range(23)) and first != list(range(23))
    assert runs[0][0][0][1].tolist() != runs[0][1][0][1].tolist()  # a new order per epoch


def test_len_and_iterating_twice():
    loader = DataLoader(Decode(10), batch_size=3, num_workers=2)
    assert len(loader) == 4
    a, b = list(loader), list(loader)
    _batches_equal(a, b)
    assert [len(idx) for _, idx in a] == [3, 3, 3, 1]
    assert len(DataLoader(Decode(10), batch_size=3, drop_last=True)) == 3


def test_batch_contents_through_shared_memory():
    def collate(batch):
        base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
        big = torch.arange(1 << 20, dtype=torch.int32)
        return {
            "stacked": default_collate(batch),
            "bf16": torch.tensor([1.5, -2.0], dtype=torch.bfloat16),
            "f16": torch.tensor([0.25], dtype=torch.float16),
            "bool": torch.tensor([True, False, True]),
            "i8": torch.tensor([-3, 4], dtype=torch.int8),
            "u8": torch.tensor([200], dtype=torch.uint8),
            "empty": torch.zeros(0, 3),
            "scalar": torch.tensor(7.0),
            "strided": base.t(),
            "grad": torch.ones(2, requires_grad=True),
            "big": big,
            "same": (big, big),
            "np_big": np.arange(5000, dtype=np.float64),
            "np_small": np.arange(3),
            "text": ["a", "b"],
        }

    loader = DataLoader(Decode(4), batch_size=2, num_workers=2, collate_fn=collate)
    for n, b in enumerate(loader):
        x, idx = b["stacked"]
        assert x.shape == (2, 3, 4) and idx.tolist() == [2 * n, 2 * n + 1]
        assert x[1, 2, 3].item() == 11.0 + 2 * n + 1
        assert b["bf16"].dtype == torch.bfloat16 and b["bf16"].float().tolist() == [1.5, -2.0]
        assert b["f16"].dtype == torch.float16 and b["f16"].tolist() == [0.25]
        assert b["bool"].tolist() == [True, False, True]
        assert b["i8"].tolist() == [-3, 4] and b["u8"].tolist() == [200]
        assert b["empty"].shape == (0, 3) and b["empty"].dtype == torch.float32
        assert b["scalar"].shape == () and b["scalar"].item() == 7.0
        assert b["strided"].tolist() == torch.arange(24, dtype=torch.float32).reshape(4, 6).t().tolist()
        assert b["grad"].requires_grad and b["grad"].is_leaf
        assert b["big"].shape == (1 << 20,) and b["big"][-1].item() == (1 << 20) - 1
        assert b["same"][0] is b["same"][1] is b["big"]  # one tensor stays one tensor
        assert isinstance(b["np_big"], np.ndarray) and b["np_big"][-1] == 4999.0
        assert b["np_small"].tolist() == [0, 1, 2]
        assert b["text"] == ["a", "b"]
        b["big"][0] = -1  # writable, like PyTorch's
        assert b["big"][0].item() == -1


def _mapped_batch_files():
    with open("/proc/self/maps") as f:
        return [line for line in f if "ember-dl-%d-" % os.getpid() in line]


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="needs /proc")
def test_zero_copy_and_memory_released():
    loader = DataLoader(Decode(8, shape=(256, 256)), batch_size=4, num_workers=2)
    batches = list(loader)
    maps = _mapped_batch_files()
    assert len(maps) == 2 and all("(deleted)" in m for m in maps)  # mapped, already unlinked
    x = batches[0][0]
    start, end = (int(v, 16) for v in maps[0].split()[0].split("-"))
    ranges = [tuple(int(v, 16) for v in m.split()[0].split("-")) for m in maps]
    assert any(lo <= x.data_ptr() < hi for lo, hi in ranges)  # the tensor IS the shared memory
    assert not _shm_files()
    del batches, x
    gc.collect()
    assert _mapped_batch_files() == []  # the last tensor unmapped it


def test_pin_memory_accepted_without_cuda():
    assert not torch.cuda.is_available()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PyTorch 1.13 neither warns
        a = list(DataLoader(Decode(5), batch_size=2, pin_memory=True))
        b = list(DataLoader(Decode(5), batch_size=2, pin_memory=True, num_workers=1))
    _batches_equal(a, b)


# ── worker errors ─────────────────────────────────────────────────────────────────────────────
def test_worker_exception_reraised_with_traceback():
    loader = DataLoader(Failing(5, ValueError("bad sample 5")), batch_size=2, num_workers=2)
    it = iter(loader)
    assert next(it)[0].item() == 0 and next(it)[0].item() == 2
    with pytest.raises(ValueError) as info:
        next(it)
    msg = str(info.value)
    assert "Caught ValueError in DataLoader worker process 0" in msg
    assert "Original Traceback (most recent call last)" in msg
    assert "in __getitem__" in msg and "raise self.exc" in msg and "bad sample 5" in msg
    assert os.path.basename(__file__) in msg
    del it, loader


def test_worker_exception_in_main_process_is_plain():
    with pytest.raises(ValueError, match="^bad sample 5$"):
        list(DataLoader(Failing(5, ValueError("bad sample 5")), batch_size=2))


def test_worker_key_error_and_odd_exception_types():
    with pytest.raises(KeyError) as info:
        list(DataLoader(Failing(1, KeyError("k")), batch_size=2, num_workers=1))
    assert str(info.value).startswith("Caught KeyError in DataLoader worker process 0.\nOriginal Traceback")
    with pytest.raises(RuntimeError, match="Caught TwoArgError in DataLoader worker process 1"):
        list(DataLoader(Failing(3, TwoArgError(1, 2)), batch_size=2, num_workers=2))

    class Local(Exception):  # not picklable by reference: travels as its name
        pass

    with pytest.raises(RuntimeError, match="(?s)Caught Local in DataLoader worker process 0.*Local: x"):
        list(DataLoader(Failing(0, Local("x")), batch_size=2, num_workers=1))


def test_worker_init_fn_exception():
    def init(worker_id):
        if worker_id == 1:
            raise ZeroDivisionError("init of worker 1")

    with pytest.raises(ZeroDivisionError, match="Caught ZeroDivisionError in DataLoader worker process 1"):
        list(DataLoader(Decode(8), batch_size=2, num_workers=2, worker_init_fn=init))


def test_unpicklable_batch_reported():
    loader = DataLoader(Decode(4), batch_size=2, num_workers=1, collate_fn=lambda b: (lambda: 0))
    with pytest.raises(Exception, match="Caught .* in DataLoader worker process 0"):
        list(loader)


def test_worker_killed_by_sigkill_is_reported_fast():
    loader = DataLoader(KillSelf(), batch_size=2, num_workers=2)  # index 5: batch 2, worker 0
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker 0 \(pid \d+\) is killed by signal: .*SIGKILL"):
        list(loader)
    assert time.monotonic() - t0 < 5


def test_worker_killed_from_outside_is_reported_fast():
    loader = DataLoader(Slow(), batch_size=1, num_workers=2)
    it = iter(loader)
    time.sleep(0.2)
    os.kill(it._workers[1].pid, signal.SIGKILL)
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader worker 1 \(pid \d+\) is killed by signal"):
        for _ in it:
            pass
    assert time.monotonic() - t0 < 5  # worker 0's first sample takes 3 s: this is < 3 s + slack
    assert not any(w.is_alive() for w in it._workers)


def test_timeout():
    loader = DataLoader(Slow(), batch_size=1, num_workers=1, timeout=0.3)
    it = iter(loader)
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0.3 seconds"):
        next(it)
    assert time.monotonic() - t0 < 2
    del it


# ── worker life ───────────────────────────────────────────────────────────────────────────────
@pytest.mark.filterwarnings("ignore:This DataLoader will create 3 worker processes")
def test_worker_init_fn_and_get_worker_info():
    assert get_worker_info() is None

    def init(worker_id):
        info = get_worker_info()
        assert info.id == worker_id and info.num_workers == 3
        info.dataset.tag = "w%d" % worker_id  # this worker's own copy
        with pytest.raises(RuntimeError, match="Cannot assign attributes"):
            info.id = 5

    ds = Pids()
    loader = DataLoader(ds, batch_size=None, num_workers=3, worker_init_fn=init)
    out = list(loader)
    assert [o[0] for o in out] == list(range(8))
    assert [o[2] for o in out] == [i % 3 for i in range(8)]  # round robin, in order
    assert [o[3] for o in out] == ["w%d" % (i % 3) for i in range(8)]
    assert len({o[1] for o in out}) == 3 and os.getpid() not in {o[1] for o in out}
    assert not hasattr(ds, "tag")


def test_worker_info_seed_and_repr():
    def seed_of(_):
        info = get_worker_info()
        return [info.seed, torch.initial_seed(), repr(info).startswith("WorkerInfo(id=")]

    g = torch.Generator()
    g.manual_seed(5)
    out = list(DataLoader(range(2), batch_size=1, num_workers=2, generator=g, collate_fn=seed_of))
    base = out[0][0]
    assert out == [[base, base, True], [base + 1, base + 1, True]]


def test_persistent_workers_two_epochs():
    g = torch.Generator()
    g.manual_seed(3)
    loader = DataLoader(Pids(), batch_size=2, num_workers=2, persistent_workers=True, shuffle=True, generator=g)
    e1, e2 = list(loader), list(loader)
    pids1 = {p for b in e1 for p in b[1].tolist()}
    pids2 = {p for b in e2 for p in b[1].tolist()}
    assert pids1 == pids2 and len(pids1) == 2  # the same two processes
    assert sorted(i for b in e1 for i in b[0].tolist()) == list(range(8))
    assert sorted(i for b in e2 for i in b[0].tolist()) == list(range(8))
    assert all(w.is_alive() for w in loader._iterator._workers)
    # an epoch cut short, then a full one: nothing of the old epoch leaks into the new one
    for n, _ in enumerate(loader):
        if n == 0:
            break
    e3 = list(loader)
    assert sorted(i for b in e3 for i in b[0].tolist()) == list(range(8))
    workers = loader._iterator._workers
    del loader, e1, e2, e3
    gc.collect()
    assert not any(w.is_alive() for w in workers)


def test_persistent_workers_iterable_dataset():
    loader = DataLoader(Stream(7), batch_size=2, num_workers=2, persistent_workers=True)
    first = [b.tolist() for b in loader]
    second = [b.tolist() for b in loader]
    assert first == second == [[0, 2], [1, 3], [4, 6], [5]]


def test_iterable_dataset_sharding_and_len_warning():
    loader = DataLoader(Stream(9), batch_size=2, num_workers=2)
    assert len(loader) == 5
    out = [b.tolist() for b in loader]
    assert out == [[0, 2], [1, 3], [4, 6], [5, 7], [8]]
    # PyTorch compares the number of batches yielded with len(dataset) (not len(loader))
    loader = DataLoader(Stream(6, reported=3), batch_size=None, num_workers=2)
    assert len(loader) == 3
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = list(loader)
    assert sorted(out) == list(range(6))
    msgs = [str(x.message) for x in w if "Length of IterableDataset" in str(x.message)]
    assert len(msgs) == 3 and "was reported to be 3" in msgs[0] and "4 samples have been fetched" in msgs[0]


def test_iterator_deleted_early_stops_workers():
    loader = DataLoader(Decode(40), batch_size=2, num_workers=2)
    it = iter(loader)
    next(it)
    workers = list(it._workers)
    assert all(w.is_alive() for w in workers)
    del it
    gc.collect()
    assert not any(w.is_alive() for w in workers)
    assert not _shm_files()  # batches prefetched but never taken are gone too


def test_break_out_of_loop_stops_workers():
    for n, _ in enumerate(DataLoader(Decode(40), batch_size=2, num_workers=2)):
        if n == 1:
            break
    gc.collect()
    assert multiprocessing.active_children() == []


def test_spawn_context():
    loader = DataLoader(Decode(6), batch_size=3, num_workers=1, multiprocessing_context="spawn")
    _batches_equal(list(loader), list(DataLoader(Decode(6), batch_size=3)))


def _run_script(code, timeout=10):
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, timeout=timeout,
                          capture_output=True, text=True)


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (reparented, not yet reaped) counts as gone
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_workers_cleaned_up_at_exit_and_when_main_dies():
    # normal exit with persistent workers still running; then a main process killed outright
    for ending in ("pass", "os.kill(os.getpid(), signal.SIGKILL)"):
        r = _run_script("""
            import os, signal, sys
            import ember as torch
            from ember.utils.data import DataLoader
            loader = DataLoader(list(range(100)), batch_size=2, num_workers=2, persistent_workers=True)
            it = iter(loader)
            next(it)
            print(" ".join(str(w.pid) for w in it._workers), os.getpid(), flush=True)
            %s
        """ % ending)
        pids = [int(p) for p in r.stdout.split()]
        assert len(pids) == 3, (r.stdout, r.stderr)
        deadline = time.monotonic() + 5
        while any(_pid_alive(p) for p in pids[:2]) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_pid_alive(p) for p in pids[:2]), ending
        if ending == "pass":
            assert r.returncode == 0 and r.stderr == "", r.stderr
            assert not glob.glob("/dev/shm/ember-dl-%d-*" % pids[2])
        for f in glob.glob("/dev/shm/ember-dl-%d-*" % pids[2]):  # a killed main cannot sweep
            os.unlink(f)


def test_torch_alias():
    r = _run_script("""
        from ember import compat
        compat.install()
        import torch
        from torch.utils.data import DataLoader, TensorDataset
        import torch.utils.data as D
        assert D is __import__("ember").utils.data
        ds = TensorDataset(torch.arange(6.).reshape(3, 2), torch.arange(3))
        print([b[1].tolist() for b in DataLoader(ds, batch_size=2, num_workers=1)])
        try:
            D.DataLoader2
        except AttributeError as e:
            print("AttributeError:", e)
    """)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "[[0, 1], [2]]"
    assert "not in ember" in lines[1] and "DataPipes" in lines[1]


# ── arguments and small pieces ────────────────────────────────────────────────────────────────
def test_argument_errors():
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(Decode(), num_workers=-1)
    with pytest.raises(ValueError, match="persistent_workers option needs num_workers > 0"):
        DataLoader(Decode(), persistent_workers=True)
    with pytest.raises(ValueError, match="prefetch_factor option could only be specified"):
        DataLoader(Decode(), prefetch_factor=4)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        DataLoader(Decode(), batch_size=2, batch_sampler=BatchSampler(range(3), 2, False))
    with pytest.raises(ValueError, match="multiprocessing_context can only be used"):
        DataLoader(Decode(), multiprocessing_context="fork")
    with pytest.raises(ValueError, match="should specify a valid start method"):
        DataLoader(Decode(), num_workers=1, multiprocessing_context="nope")
    loader = DataLoader(Decode(), batch_size=2)
    with pytest.raises(ValueError, match="batch_size attribute should not be set"):
        loader.batch_size = 3


def test_distributed_sampler_asks_the_default_group():
    # Without num_replicas/rank the default process group answers; none is initialized here.
    with pytest.raises(RuntimeError, match="not initialized"):
        DistributedSampler(range(4))
    with pytest.raises(RuntimeError, match="not initialized"):
        DistributedSampler(range(4), num_replicas=2)
    s = DistributedSampler(range(5), num_replicas=2, rank=1, shuffle=False)
    assert list(s) == [1, 3, 0] and len(s) == 3


def test_missing_names_say_so():
    import ember.utils.data as D
    with pytest.raises(AttributeError, match="DataLoader2 is not in ember .*DataPipes"):
        D.DataLoader2


def test_generic_subscripts_and_small_classes():
    class Mine(Dataset[int]):
        def __getitem__(self, i):
            return i

    assert issubclass(Mine, Dataset)
    assert list(SequentialSampler(range(3))) == [0, 1, 2]
    assert isinstance(Decode() + Decode(), torch.utils.data.ConcatDataset)
    assert isinstance(Stream(2) + Stream(3), ChainDataset)
    t = TensorDataset(torch.arange(4), torch.arange(4) * 2)
    assert [x.tolist() for x in t[2]] == [2, 4]
    assert RandomSampler(range(3), num_samples=7).num_samples == 7


def test_seed_draws_match_pytorch_stream():
    # PyTorch 1.13: torch.manual_seed(0); torch.empty((), dtype=torch.int64).random_() twice;
    # the same with a Generator seeded 5 (RandomSampler's seed and the workers' base_seed)
    torch.manual_seed(0)
    draws = [torch.empty((), dtype=torch.int64).random_().item() for _ in range(2)]
    assert draws == [900450186894289455, 3969543146641149120]
    g = torch.Generator()
    g.manual_seed(5)
    assert torch.empty((), dtype=torch.int64).random_(generator=g).item() == 4095051218741643470
