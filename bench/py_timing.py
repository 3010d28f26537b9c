"""Timing helpers shared by the Python sides of the benchmarks (torch_ops.py, python_ops.py)."""
import statistics
import time


def median_seconds(fn, reps=15):
    """fn() once to warm up, then the median of `reps` timed calls."""
    fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def tiny_seconds(fn, batch=2000):
    """Seconds per call of a call too short to time alone: batches of `batch` calls."""
    def run():
        for _ in range(batch):
            fn()
    return median_seconds(run, 15) / batch
