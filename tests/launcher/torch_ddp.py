# A PyTorch program as torchrun would run it (tests/launcher/pytorch_interop.sh runs it under
# ember-run with Debian's PyTorch 1.13): env:// rendezvous through the launcher's store, an
# all_reduce, and one DDP step. Writes <dir>/torch.<rank>: the sum and the trained weights.
import os
import sys

import torch
import torch.distributed as dist

out = sys.argv[1]
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
assert (rank, world) == (int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]))
t = torch.full((4,), rank + 1.0)
dist.all_reduce(t)
torch.manual_seed(0)
model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(3, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.arange(6.0).reshape(2, 3) + rank  # each rank its own batch
model(x).sum().backward()
opt.step()
weights = " ".join("%.6f" % v for v in torch.cat([p.detach().flatten() for p in model.parameters()]))
with open(os.path.join(out, "torch.%d" % rank), "w") as f:
    f.write("sum %g\nweights %s\n" % (t[0].item(), weights))
dist.destroy_process_group()
