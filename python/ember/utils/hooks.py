"""Handles returned by register_hook and friends."""


class RemovableHandle:
    """``handle.remove()`` removes the hook it was returned for (again: nothing)."""

    def __init__(self, remove):
        self._remove = remove

    def remove(self):
        if self._remove is not None:
            self._remove()
            self._remove = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
