"""Anomaly detection: nodes remember where they were made, and a backward that produces NaN
names the forward op."""
from .. import _C


class detect_anomaly:
    def __init__(self, check_nan=True):
        self.prev = _C.is_anomaly_enabled()

    def __enter__(self):
        _C.set_detect_anomaly(True)

    def __exit__(self, *exc):
        _C.set_detect_anomaly(self.prev)


class set_detect_anomaly:
    """Sets anomaly mode at once, and restores it when used as a context manager."""

    def __init__(self, mode, check_nan=True):
        self.prev = _C.is_anomaly_enabled()
        _C.set_detect_anomaly(bool(mode))

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _C.set_detect_anomaly(self.prev)
