#!/usr/bin/env python3
"""Writes a synthetic MNIST (raw idx files at MNIST's sizes: 60,000 train and 10,000 test
images, as LibTorch's MNIST reader insists on) into the given directory. Each image is a
28x28 uint8 picture of its label — a bright bar whose place and angle depend on the digit —
plus noise, so that a small network learns it; the same files on every run (seeded).
    make_mnist.py <dir>
"""
import os
import struct
import sys

import numpy as np


def images_for(labels, rng):
    n = len(labels)
    rows = np.arange(28)[None, :, None]
    cols = np.arange(28)[None, None, :]
    centre = (4 + 2 * labels)[:, None, None]          # the bar's place: 4 .. 22
    slope = ((labels % 3) - 1)[:, None, None] * 0.5   # and its angle
    distance = np.abs(cols - centre - slope * (rows - 14))
    picture = np.clip(255 - 90 * distance, 0, 255)
    noise = rng.normal(0, 40, size=(n, 28, 28))
    return np.clip(picture + noise, 0, 255).astype(np.uint8)


def write(path, magic, array):
    with open(path, "wb") as f:
        f.write(struct.pack(">i", magic))
        for d in array.shape:
            f.write(struct.pack(">i", d))
        f.write(array.tobytes())


def main(directory):
    os.makedirs(directory, exist_ok=True)
    rng = np.random.default_rng(13)
    for prefix, n in (("train", 60000), ("t10k", 10000)):
        labels = rng.integers(0, 10, size=n).astype(np.uint8)
        write(os.path.join(directory, f"{prefix}-images-idx3-ubyte"), 2051, images_for(labels, rng))
        write(os.path.join(directory, f"{prefix}-labels-idx1-ubyte"), 2049, labels)


if __name__ == "__main__":
    main(sys.argv[1])
