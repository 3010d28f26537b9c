"""torch.utils.data against PyTorch 1.13: every case in python/tests/golden/data/data.json
(written by python/tests/golden/data/generate.py under the real PyTorch) is replayed with
`torch` bound to ember and must give the same encoding (python/tests/golden_compare.py).

Covers: shuffled batch order with a seeded generator and with manual_seed only (several
epochs, and the default generator's state afterwards), the samplers, random_split (lengths,
fractions, default generator), DistributedSampler with set_epoch (2, 3 and 5 replicas),
default_collate/default_convert of nested structures, and with worker processes: per-worker
seeding of torch/random/NumPy, get_worker_info, IterableDataset sharding and ordering,
persistent workers.
"""
import gc
import json
import multiprocessing
import os
import signal
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from golden_compare import assert_matches, run_case  # noqa: E402

import ember  # noqa: E402

with open(os.path.join(HERE, "golden", "data", "data.json")) as _f:
    CASES = json.load(_f)["cases"]


def test_golden_file_present():
    assert len(CASES) > 50


CASE_TIMEOUT_S = 10


def _on_alarm(signum, frame):
    raise TimeoutError("golden case ran past %d s" % CASE_TIMEOUT_S)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_data_golden(case):
    # A case with worker processes must neither hang nor leave a process behind, pass or fail.
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, CASE_TIMEOUT_S)
    message = None
    try:
        actual = run_case(ember, case["setup"], case["expr"])  # a timeout is encoded as an error
        assert_matches(case["expected"], actual, "data[%s]" % case["id"], setup=None, expr=case["expr"])
    except AssertionError as err:
        message = str(err)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        gc.collect()  # iterators the case dropped stop their workers
        leftover = multiprocessing.active_children()
        for p in leftover:
            p.kill()
            p.join(5)
    if message is not None:
        pytest.fail(message, pytrace=False)
    assert not leftover, "worker processes left running: %r" % leftover
