#!/usr/bin/python3
"""PyTorch 1.13 twin of ember-train-fashion-mnist, for bench/train_compare.py: the reference's CNN,
loop and hyper-parameters (AdamW 1e-3, weight decay 0.01, cosine LR over the epochs, batch 128,
clip_grad_norm_ 1.0, dropout 0.25) on Fashion-MNIST normalised with mean 0.2860 / std 0.3530.
Prints one JSON line per epoch: train seconds (the training phase, data loading included),
images/s and test accuracy. --amp bf16 trains (and evaluates) under
torch.autocast("cpu", dtype=torch.bfloat16), like ember's --amp bf16.

  train_torch.py [--epochs 5] [--threads 2] [--workers 0] [--data-dir DIR] [--amp none|bf16]
                 [--limit N] [--val-limit N]
"""
import argparse
import gzip
import json
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

MEAN, STD = 0.2860, 0.3530


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    dims = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * dims).reshape(shape)


def load(data_dir, split):
    images = read_idx(os.path.join(data_dir, f"{split}-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(data_dir, f"{split}-labels-idx1-ubyte.gz"))
    x = (torch.from_numpy(images.copy()).float().div_(255) - MEAN) / STD
    return TensorDataset(x.unsqueeze(1), torch.from_numpy(labels.astype(np.int64)))


def reference_cnn():
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(3136, 128), nn.ReLU(), nn.Dropout(0.25), nn.Linear(128, 10))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data-dir", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--amp", choices=["none", "bf16"], default="none")
    ap.add_argument("--limit", type=int, default=0, help="train on the first N images (0: all)")
    ap.add_argument("--val-limit", type=int, default=0, help="test on the first N (0: all)")
    args = ap.parse_args()
    autocast = lambda: torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.amp == "bf16")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    train, test = load(args.data_dir, "train"), load(args.data_dir, "t10k")
    if args.limit:
        train = TensorDataset(*train[:args.limit])
    if args.val_limit:
        test = TensorDataset(*test[:args.val_limit])
    train_loader = DataLoader(train, batch_size=128, shuffle=True, num_workers=args.workers,
                              persistent_workers=args.workers > 0)
    test_loader = DataLoader(test, batch_size=256, num_workers=args.workers)
    model = reference_cnn()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs)
    for epoch in range(args.epochs):
        model.train()
        start = time.perf_counter()
        for x, y in train_loader:
            opt.zero_grad()
            with autocast():
                loss = F.cross_entropy(model(x), y)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
        seconds = time.perf_counter() - start
        model.eval()
        correct = 0
        with torch.no_grad(), autocast():
            for x, y in test_loader:
                correct += (model(x).argmax(1) == y).sum().item()
        sched.step()
        print(json.dumps({"epoch": epoch, "train_seconds": seconds,
                          "images_per_second": len(train) / seconds,
                          "accuracy": correct / len(test)}), flush=True)


if __name__ == "__main__":
    main()
