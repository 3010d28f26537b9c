# PyTorch 1.13's gloo all_reduce, measured as bench/distributed_bench.cpp measures ember's.
# Launch: /usr/bin/python3 -m torch.distributed.run --standalone --nproc_per_node 2 -r 1 -t 1 distributed_torch.py
import datetime, time
import torch, torch.distributed as dist

def median_all_reduce(n, iterations):
    t = torch.ones(n)
    for _ in range(3): dist.all_reduce(t)
    times = []
    for _ in range(iterations):
        s = time.perf_counter(); dist.all_reduce(t); times.append(time.perf_counter() - s)
    times.sort()
    return times[len(times) // 2]

torch.set_num_threads(1)
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
world = dist.get_world_size()
big = median_all_reduce(4 << 20, 20)
one = median_all_reduce(1, 300)
small = median_all_reduce(256, 300)
if dist.get_rank() == 0:
    nbytes = 4.0 * (4 << 20)
    print(f"RESULT torch size={world} 4M_median_ms={big*1e3:.3f} "
          f"busbw_GBps={nbytes/big/1e9*2*(world-1)/world:.3f} 1_float_us={one*1e6:.1f} "
          f"256_float_us={small*1e6:.1f}", flush=True)
dist.barrier()
dist.destroy_process_group()
