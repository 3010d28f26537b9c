#!/usr/bin/env python3
"""The reference's DDP program as a plain PyTorch script: the CNN of the main job on
Fashion-MNIST, DistributedDataParallel over every rank, a DistributedSampler with set_epoch,
AdamW, bfloat16 autocast, clip_grad_norm_, a checkpoint written by rank 0 after every epoch and
read back by every rank on restart. It says `import torch` and runs unchanged on PyTorch or on
ember, started by either launcher:

    build/tools/ember-run --standalone --nproc-per-node=2 examples/python/train_ddp.py --epochs 3
    torchrun --standalone --nproc_per_node=2 examples/python/train_ddp.py --epochs 3   # PyTorch

Where the reference says "nccl" and "cuda:{local_rank}", this script takes NCCL and the GPU when
CUDA is there and Gloo on the CPU otherwise (the reference's lines need a GPU, on PyTorch as on
ember). Its MyModel and MyDataset are the main job's CNN and Fashion-MNIST (Debian's
dataset-fashion-mnist). The reference also makes a GradScaler that its bfloat16 loop never uses;
this script leaves it out. DataLoader workers default to 0 here (the reference's 4 per rank only
add copies when the dataset is a tensor in memory); --workers 4 gives the reference's.
"""
import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from train_fashion_mnist import load, reference_cnn


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=32, help="per rank, as the reference's")
    ap.add_argument("--workers", type=int, default=0, help="DataLoader worker processes per rank")
    ap.add_argument("--amp", choices=["bf16", "none"], default="bf16", help="autocast to bfloat16")
    ap.add_argument("--data-dir", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--limit", type=int, default=0, help="train on the first N images (0: all)")
    ap.add_argument("--checkpoint", default="latest_checkpoint.pt")
    args = ap.parse_args()

    # ── Initialize distributed ──
    use_cuda = torch.cuda.is_available()
    dist.init_process_group(backend="nccl" if use_cuda else "gloo")
    rank = int(os.environ["RANK"])
    local_rank = int(os.environ["LOCAL_RANK"])
    world_size = int(os.environ["WORLD_SIZE"])
    if use_cuda:
        torch.cuda.set_device(local_rank)
        device = torch.device(f"cuda:{local_rank}")
    else:
        device = torch.device("cpu")

    # ── Model ──
    torch.manual_seed(0)
    model = reference_cnn().to(device)
    model = DDP(model, device_ids=[local_rank] if use_cuda else None)

    # ── Data ──
    dataset = load(args.data_dir, "train", args.limit)
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True)
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler,
                        num_workers=args.workers, pin_memory=True, drop_last=True)

    # ── Optimizer ──
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)

    # ── Resume from checkpoint ──
    start_epoch = 0
    if os.path.exists(args.checkpoint):
        # All ranks load (they all need the same state)
        ckpt = torch.load(args.checkpoint, map_location=device, weights_only=False)
        model.module.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        start_epoch = ckpt["epoch"] + 1
        if rank == 0:
            print(f"Resumed from epoch {start_epoch}", flush=True)

    # ── Training loop ──
    for epoch in range(start_epoch, args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        for step, (data, target) in enumerate(loader):
            data = data.to(device, non_blocking=True)
            target = target.to(device, non_blocking=True)
            optimizer.zero_grad(set_to_none=True)
            with torch.amp.autocast(device_type=device.type, dtype=torch.bfloat16,
                                    enabled=args.amp == "bf16"):
                output = model(data)
                loss = nn.functional.cross_entropy(output, target)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            optimizer.step()
            if rank == 0 and step % 100 == 0:
                print(f"Epoch {epoch} Step {step} Loss {loss.item():.4f}", flush=True)

        # ── Save checkpoint (rank 0 only) ──
        if rank == 0:
            torch.save({
                "epoch": epoch,
                "model": model.module.state_dict(),
                "optimizer": optimizer.state_dict(),
            }, args.checkpoint)
        # Every rank waits for rank 0's file before the next epoch (or a restart) may read it.
        dist.barrier()

    dist.destroy_process_group()


if __name__ == "__main__":
    main()
