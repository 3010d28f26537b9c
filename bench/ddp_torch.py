# PyTorch 1.13's side of bench/ddp_compare.sh, and ember's Python side when ember-run starts it
# through ember-python (`import torch` is then ember; its RESULT lines say ember_py): the same CNN, synthetic data, per-rank batch 64,
# AdamW + clip_grad_norm_, one thread per rank, gloo; "ddp" wraps the model in DDP, "local" trains
# it without any all-reduce, "lockstep" is local plus a 1-float all_reduce before forward and after
# backward. Rank 0 prints one RESULT line as bench/ddp_worker.cpp does.
# Launch: /usr/bin/python3 -m torch.distributed.run --standalone --nproc_per_node 2 -r 1 -t 1 ddp_torch.py ddp
import datetime, sys, time
import torch, torch.nn as nn, torch.distributed as dist

mode = sys.argv[1] if len(sys.argv) > 1 else "ddp"
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 30
warmup, batch = 5, 64
torch.set_num_threads(1)
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=120))
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(3136, 128), nn.ReLU(), nn.Dropout(0.25), nn.Linear(128, 10))
net = nn.parallel.DistributedDataParallel(model) if mode == "ddp" else model
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
torch.manual_seed(1 + rank)
x, y = torch.randn(batch, 1, 28, 28), torch.randint(0, 10, (batch,))
times = []
token = torch.zeros(1)
dist.barrier()
for step in range(warmup + steps):
    if step == warmup:
        dist.barrier()
        start = time.perf_counter()
    t0 = time.perf_counter()
    opt.zero_grad()
    if mode == "lockstep":
        dist.all_reduce(token)
    nn.functional.cross_entropy(net(x), y).backward()
    if mode == "lockstep":
        dist.all_reduce(token)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step >= warmup:
        times.append(time.perf_counter() - t0)
dist.barrier()
seconds = time.perf_counter() - start
times.sort()
if rank == 0:
    side = "ember_py" if torch.__name__ == "ember" else "torch"
    print(f"RESULT {side}-{mode} world={world} images_per_s={world * batch * steps / seconds:.1f} "
          f"step_median_ms={times[len(times) // 2] * 1e3:.2f}", flush=True)
dist.destroy_process_group()
