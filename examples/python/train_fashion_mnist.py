#!/usr/bin/env python3
"""The main job as a plain PyTorch program: the reference CNN on Fashion-MNIST, 5 epochs, AdamW
(lr 1e-3, weight decay 0.01), cosine LR over the epochs, batch 128, clip_grad_norm_ 1.0 — the
recipe of ember-train-fashion-mnist (examples/fashion_mnist). It says `import torch` and runs
unchanged on PyTorch or on ember:

    build/python/ember-python examples/python/train_fashion_mnist.py [--epochs 5]
    /usr/bin/python3 examples/python/train_fashion_mnist.py          # PyTorch, for comparison

It reads Debian's dataset-fashion-mnist files (idx, gzipped) itself, prints one line per epoch
and the test accuracy, and saves the state_dict as model.pt.
"""
import argparse
import gzip
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

MEAN, STD = 0.2860, 0.3530  # Fashion-MNIST's training-set mean and std


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def load(data_dir, split, limit=0):
    images = read_idx(os.path.join(data_dir, f"{split}-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(data_dir, f"{split}-labels-idx1-ubyte.gz"))
    if limit:
        images, labels = images[:limit], labels[:limit]
    x = (torch.from_numpy(images.copy()).float().div_(255) - MEAN) / STD
    return TensorDataset(x.unsqueeze(1), torch.from_numpy(labels.astype(np.int64)))


def reference_cnn():
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(3136, 128), nn.ReLU(), nn.Dropout(0.25), nn.Linear(128, 10))


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    loss_sum = 0.0
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
            loss_sum += F.cross_entropy(out, y, reduction="sum").item()
            correct += (out.argmax(dim=1) == y).sum().item()
            total += y.numel()
    return loss_sum / total, correct / total


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--workers", type=int, default=0, help="DataLoader worker processes")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data-dir", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--limit", type=int, default=0, help="train on the first N images (0: all)")
    ap.add_argument("--val-limit", type=int, default=0, help="test on the first N images (0: all)")
    ap.add_argument("--out", default="model.pt")
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    train_set = load(args.data_dir, "train", args.limit)
    test_set = load(args.data_dir, "t10k", args.val_limit)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                              num_workers=args.workers, persistent_workers=args.workers > 0)
    test_loader = DataLoader(test_set, batch_size=256, num_workers=args.workers)

    model = reference_cnn()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    for epoch in range(args.epochs):
        model.train()
        train_loss, seen = 0.0, 0
        start = time.perf_counter()
        for data, target in train_loader:
            optimizer.zero_grad()
            output = model(data)
            loss = criterion(output, target)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            optimizer.step()
            train_loss += loss.item()
            seen += target.numel()
        seconds = time.perf_counter() - start
        scheduler.step()
        val_loss, accuracy = evaluate(model, test_loader)
        print(f"Epoch {epoch}: train_loss={train_loss / len(train_loader):.4f}, "
              f"val_loss={val_loss:.4f}, val_acc={accuracy:.4f}, lr={scheduler.get_last_lr()[0]:.6f}, "
              f"{seen / seconds:.0f} img/s", flush=True)
    torch.save(model.state_dict(), args.out)
    print(f"Test accuracy {accuracy:.4f}")


if __name__ == "__main__":
    main()
