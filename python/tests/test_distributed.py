"""torch.distributed from Python: a 2-rank job under ember-run (which starts a .py script through
ember-python, as torchrun starts Python) runs every collective with PyTorch's signatures; errors
before init are PyTorch's. Processes are bounded by timeouts and none is left behind."""
import os
import subprocess
import sys
import textwrap

import pytest

import ember as torch
import ember.distributed as dist

BUILD = os.environ.get("EMBER_BUILD_DIR")


def run_two_ranks(tmp_path, name, source):
    """Writes the program `source` to tmp_path/name and runs it on 2 ranks under ember-run there
    (bounded: a hung rank fails the test after 120 s, and ember-run takes its children down)."""
    prog = tmp_path / name
    prog.write_text(source)
    return subprocess.run([os.path.join(BUILD, "tools", "ember-run"), "--standalone", "--nproc-per-node", "2",
                           str(prog)], capture_output=True, text=True, timeout=120, cwd=str(tmp_path))

PROGRAM = textwrap.dedent("""
    import datetime, torch, torch.distributed as dist
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
    r, w = dist.get_rank(), dist.get_world_size()
    t = torch.tensor([float(r + 1)] * 3)
    dist.all_reduce(t)
    m = torch.tensor([float(r)])
    dist.all_reduce(m, op=dist.ReduceOp.MAX)
    outs = [torch.zeros(2) for _ in range(w)]
    dist.all_gather(outs, torch.full((2,), float(r)))
    b = torch.tensor([float(r)])
    work = dist.broadcast(b, src=1, async_op=True)
    work.wait()
    rs = torch.zeros(1)
    dist.reduce_scatter(rs, [torch.tensor([float(r)]), torch.tensor([float(10 * r)])])
    if r == 0:
        dist.send(torch.tensor([42.0]), dst=1)
    else:
        got = torch.zeros(1)
        dist.recv(got, src=0)
        assert got.item() == 42.0
    sub = dist.new_group([0, 1])
    s = torch.ones(1)
    dist.all_reduce(s, group=sub)
    dist.barrier()
    with open("rank%d.txt" % r, "w") as f:  # one file per rank: the relayed stdout interleaves
        print("rank", r, "of", w, t.tolist(), m.tolist(), [o.tolist() for o in outs], b.tolist(),
              rs.tolist(), s.tolist(), file=f)
    dist.destroy_process_group()
""")


@pytest.mark.skipif(not BUILD, reason="EMBER_BUILD_DIR (set by CTest's python_tests) names the build with ember-run")
def test_collectives_on_two_ranks_under_ember_run(tmp_path):
    r = run_two_ranks(tmp_path, "prog.py", PROGRAM)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = [(tmp_path / ("rank%d.txt" % i)).read_text().strip() for i in range(2)]
    assert lines == [
        "rank 0 of 2 [3.0, 3.0, 3.0] [1.0] [[0.0, 0.0], [1.0, 1.0]] [1.0] [1.0] [2.0]",
        "rank 1 of 2 [3.0, 3.0, 3.0] [1.0] [[0.0, 0.0], [1.0, 1.0]] [1.0] [10.0] [2.0]",
    ]


@pytest.mark.skipif(not BUILD, reason="EMBER_BUILD_DIR (set by CTest's python_tests) names the build with ember-run")
def test_a_failing_rank_is_reported_not_hung(tmp_path):
    r = run_two_ranks(tmp_path, "bad.py",
                      "import torch, torch.distributed as dist, datetime\n"
                      "dist.init_process_group('gloo', timeout=datetime.timedelta(seconds=10))\n"
                      "if dist.get_rank() == 1:\n    raise ValueError('rank 1 gives up')\n"
                      "dist.all_reduce(torch.ones(1))\n")
    assert r.returncode != 0
    assert "rank 1 gives up" in r.stdout + r.stderr


def test_calls_before_init_are_errors():
    assert dist.is_available() and not dist.is_initialized()
    with pytest.raises(RuntimeError):
        dist.all_reduce(torch.ones(1))
    with pytest.raises(RuntimeError, match="store="):
        dist.init_process_group("gloo", store=object())


DDP_PROGRAM = textwrap.dedent("""
    import datetime, copy, torch, torch.nn as nn, torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
    r, w = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(r)  # different initial weights per rank: DDP must broadcast rank 0's
    model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3)).double()
    torch.manual_seed(0)
    reference = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3)).double()  # rank 0's init
    ddp = DDP(model, bucket_cap_mb=0.0001)  # small buckets: several all-reduces per backward
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.1)
    torch.manual_seed(123)
    x, y = torch.randn(8, 6, dtype=torch.float64), torch.randn(8, 3, dtype=torch.float64)
    mine = slice(4 * r, 4 * r + 4)
    for step in range(3):
        opt.zero_grad()
        ((ddp(x[mine]) - y[mine]) ** 2).mean().backward()
        opt.step()
        ref_opt.zero_grad()  # one process, the full batch: the mean of the two halves' means
        ((reference(x) - y) ** 2).mean().backward()
        ref_opt.step()
    # no_sync: two local accumulations, then one averaged backward
    with ddp.no_sync():
        ((ddp(x[mine]) - y[mine]) ** 2).mean().backward()
    ((ddp(x[mine]) - y[mine]) ** 2).mean().backward()
    diff = max((a - b).abs().max().item() for a, b in zip(model.parameters(), reference.parameters()))
    g = [p.grad.clone() for p in model.parameters()]
    gs = [[torch.zeros_like(t) for _ in range(w)] for t in g]
    for t, out in zip(g, gs):
        dist.all_gather(out, t)
    same = all(o[0].equal(o[1]) for o in gs)
    with open("ddp%d.txt" % r, "w") as f:
        print(diff < 1e-12, same, file=f)
    dist.destroy_process_group()
""")


@pytest.mark.skipif(not BUILD, reason="EMBER_BUILD_DIR (set by CTest's python_tests) names the build with ember-run")
def test_ddp_on_two_ranks_equals_one_process_on_the_full_batch(tmp_path):
    r = run_two_ranks(tmp_path, "ddp.py", DDP_PROGRAM)
    assert r.returncode == 0, r.stdout + r.stderr
    for i in range(2):
        assert (tmp_path / ("ddp%d.txt" % i)).read_text().split() == ["True", "True"]


UNUSED_PROGRAM = textwrap.dedent("""
    import datetime, torch, torch.nn as nn, torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=30))
    r, w = dist.get_rank(), dist.get_world_size()

    class Branches(nn.Module):  # rank 0 takes branch a, rank 1 branch b; nobody uses `never`
        def __init__(self):
            super().__init__()
            self.stem = nn.Linear(4, 5)
            self.a = nn.Linear(5, 2)
            self.b = nn.Linear(5, 2)
            self.never = nn.Linear(5, 2)

        def forward(self, x, branch):
            h = torch.tanh(self.stem(x))
            return self.a(h) if branch == 0 else self.b(h)

    torch.manual_seed(0)
    model = Branches().double()
    torch.manual_seed(0)
    reference = Branches().double()
    ddp = DDP(model, find_unused_parameters=True, bucket_cap_mb=0.0001)
    torch.manual_seed(7)
    x, y = torch.randn(6, 4, dtype=torch.float64), torch.randn(6, 2, dtype=torch.float64)
    halves = [slice(0, 3), slice(3, 6)]
    ok = True
    for step in range(3):
        ddp.zero_grad(set_to_none=True)
        ((ddp(x[halves[r]], r) - y[halves[r]]) ** 2).mean().backward()
        reference.zero_grad(set_to_none=True)
        loss = sum(((reference(x[halves[i]], i) - y[halves[i]]) ** 2).mean() for i in range(w)) / w
        loss.backward()
        for (name, p), q in zip(model.named_parameters(), reference.parameters()):
            if (p.grad is None) != (q.grad is None):
                ok = False
            elif p.grad is not None and (p.grad - q.grad).abs().max().item() > 1e-12:
                ok = False
        with torch.no_grad():
            for p, q in zip(model.parameters(), reference.parameters()):
                if q.grad is not None:
                    p -= 0.1 * p.grad
                    q -= 0.1 * q.grad
    with open("unused%d.txt" % r, "w") as f:
        print(ok, model.never.weight.grad is None, model.a.weight.grad is not None, file=f)

    # Without find_unused_parameters, a parameter that gets no gradient is an error at the next
    # forward, not a hang or a silent wrong answer.
    strict = DDP(Branches().double())
    ((strict(x, 0) - y) ** 2).mean().backward()
    try:
        strict(x, 0)
        print("no error", file=open("strict%d.txt" % r, "w"))
    except RuntimeError as e:
        print("find_unused_parameters=True" in str(e), file=open("strict%d.txt" % r, "w"))
    dist.destroy_process_group()
""")


@pytest.mark.skipif(not BUILD, reason="EMBER_BUILD_DIR (set by CTest's python_tests) names the build with ember-run")
def test_ddp_find_unused_parameters_when_ranks_take_different_branches(tmp_path):
    r = run_two_ranks(tmp_path, "unused.py", UNUSED_PROGRAM)
    assert r.returncode == 0, r.stdout + r.stderr
    for i in range(2):
        assert (tmp_path / ("unused%d.txt" % i)).read_text().split() == ["True", "True", "True"]
        assert (tmp_path / ("strict%d.txt" % i)).read_text().split() == ["True"]


SRUN_PROGRAM = textwrap.dedent("""
    import datetime, os, torch, torch.distributed as dist
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
    t = torch.ones(2)
    dist.all_reduce(t)
    r = os.environ["RANK"]
    with open("srun%s.txt" % r, "w") as f:
        print(dist.get_rank(), dist.get_world_size(), os.environ["WORLD_SIZE"], os.environ["LOCAL_RANK"],
              os.environ["MASTER_ADDR"], t.tolist(), file=f)
    dist.destroy_process_group()
""")


@pytest.mark.parametrize("launcher", ["srun", "mpirun"])
def test_tasks_started_by_srun_or_mpirun_join_without_a_launcher(tmp_path, launcher):
    """The variables srun and mpirun give their tasks are enough (no RANK, WORLD_SIZE or
    MASTER_ADDR); after init the program finds torchrun's variables in os.environ."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    prog = tmp_path / "srun.py"
    prog.write_text(SRUN_PROGRAM)
    base = {k: v for k, v in os.environ.items()
            if k not in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")
            and not k.startswith(("SLURM_", "OMPI_", "PMI_", "TORCHELASTIC_"))}
    procs = []
    try:
        for rank in range(2):
            if launcher == "srun":
                extra = {"SLURM_STEP_ID": "0", "SLURM_PROCID": str(rank), "SLURM_NTASKS": "2",
                         "SLURM_LOCALID": str(rank), "SLURM_STEP_NODELIST": "localhost"}
            else:
                extra = {"OMPI_COMM_WORLD_RANK": str(rank), "OMPI_COMM_WORLD_SIZE": "2",
                         "OMPI_COMM_WORLD_LOCAL_RANK": str(rank), "OMPI_COMM_WORLD_LOCAL_SIZE": "2"}
            env = dict(base, MASTER_PORT=str(port), **extra)
            procs.append(subprocess.Popen([sys.executable, "-m", "ember.compat", str(prog)], env=env,
                                          cwd=str(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.STDOUT))
        outputs = [p.communicate(timeout=60)[0].decode() for p in procs]
        assert [p.returncode for p in procs] == [0, 0], outputs
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    host = "localhost" if launcher == "srun" else "127.0.0.1"
    for rank in range(2):
        assert (tmp_path / ("srun%d.txt" % rank)).read_text().split() == [
            str(rank), "2", "2", str(rank), host, "[2.0,", "2.0]"]
