"""Where ember deliberately differs from PyTorch 1.13, and what it does instead (the golden
cases leave these out; see golden/cases.py). Each choice follows NumPy's indexing rules, which
later PyTorch releases follow too."""
import numpy as np
import pytest

import ember as torch


def test_one_ellipsis_only():
    # PyTorch 1.13 returns t for t[..., ...] but raises for t[..., ..., 0]: ember refuses both,
    # as NumPy does, with an IndexError.
    t = torch.arange(60).reshape(3, 4, 5)
    with pytest.raises(IndexError, match="single ellipsis"):
        t[..., ...]
    with pytest.raises(IndexError, match="single ellipsis"):
        t[..., ..., 0]


@pytest.mark.parametrize("index", [
    lambda m: (m, 0), lambda m: (m, slice(1, 3)), lambda m: (m, Ellipsis, 0), lambda m: (m, None),
])
def test_2d_bool_mask_followed_by_other_indices(index):
    # PyTorch 1.13 counts a 2-D mask as one dim here and raises; ember gives NumPy's result.
    a = np.arange(60).reshape(3, 4, 5)
    mask = np.array([[True, False, True, False]] * 3)
    t = torch.from_numpy(a)
    got = t[index(torch.from_numpy(mask))]
    want = a[index(mask)]
    assert got.shape == want.shape
    assert got.tolist() == want.tolist()


def test_int32_index_tensors_are_accepted():
    # PyTorch 1.13 raises IndexError; ember, like NumPy and PyTorch 2, indexes with them.
    t = torch.arange(60).reshape(3, 4, 5)
    got = t[torch.tensor([0, 2], dtype=torch.int32)]
    assert got.tolist() == t[torch.tensor([0, 2])].tolist()
