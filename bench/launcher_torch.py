# PyTorch's twin of bench/launcher_worker.cpp (see there), run by Debian's torchrun.
import os, sys, time
import torch
import torch.distributed as dist

def stamp(path):
    with open(path, "w") as f:
        f.write(f"{time.time_ns()}\n")

out, mode = sys.argv[1], sys.argv[2]
attempt = os.environ["TORCHELASTIC_RESTART_COUNT"]
dist.init_process_group("gloo")
t = torch.ones(1)
dist.all_reduce(t)
rank = dist.get_rank()
if rank == 0:
    stamp(f"{out}/first.{attempt}")
if mode == "restart" and attempt == "0":
    if rank == 1:
        stamp(f"{out}/fail")
        raise RuntimeError("injected failure of rank 1")
    dist.all_reduce(t)
dist.destroy_process_group()
