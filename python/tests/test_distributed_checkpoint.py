"""torch.distributed.checkpoint from Python over the C++ side's DCP: a save on 2 ranks (ember-run)
with sharded weights, replicated tensors, an optimizer's state dict and plain values loads in
one process into a plain state dict and into other shardings; round trips in one process; the
directory is PyTorch's (.metadata + __{rank}_0.distcp); a checkpoint PyTorch 1.13 wrote
(committed under golden/, and the C++ tests' fixtures) loads with equal values, and one ember
writes loads in PyTorch 1.13 when /usr/bin/python3 has it; errors name the key and the shapes
and are raised on every rank. Multi-process runs are bounded and leave no process behind."""
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import textwrap

import pytest

import ember as torch
import ember.distributed.checkpoint as dcp
import ember.nn as nn
from ember.distributed.checkpoint import CheckpointException, ShardedTensor, shard_dim0

BUILD = os.environ.get("EMBER_BUILD_DIR")
HERE = pathlib.Path(__file__).resolve().parent
GOLDEN_113 = HERE / "golden" / "dcp_torch113"        # make_dcp.py: 1.13, one process
CPP_GOLDEN = HERE.parents[1] / "tests" / "golden" / "dcp"  # gen_dcp.py: 1.13 on 2 ranks
needs_build = pytest.mark.skipif(not BUILD, reason="EMBER_BUILD_DIR names the build with ember-run")


def make_model(seed):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(5, 7), nn.ReLU(), nn.Linear(7, 3))


def trained(seed=0):
    """A model and an AdamW after one step: the optimizer has state."""
    model = make_model(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=0.1)
    torch.manual_seed(1)
    model(torch.randn(4, 5)).pow(2).sum().backward()
    opt.step()
    return model, opt


def run_ranks(prog, cwd, *args, timeout=120):
    """Runs prog.py on 2 ranks under ember-run in its own process group; on a timeout the whole
    group is killed, so no rank outlives the test."""
    cmd = [os.path.join(BUILD, "tools", "ember-run"), "--standalone", "--nproc-per-node", "2",
           str(prog), *args]
    p = subprocess.Popen(cmd, cwd=str(cwd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        pytest.fail("ember-run timed out:\n" + out)
    assert p.returncode == 0, out
    return out


SAVE_ON_TWO_RANKS = textwrap.dedent("""
    import datetime, json, sys, torch, torch.nn as nn, torch.distributed as dist
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint import shard_dim0
    out = sys.argv[1]
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
    r, w = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 7), nn.ReLU(), nn.Linear(7, 3))
    opt = torch.optim.AdamW(model.parameters(), lr=0.1)
    torch.manual_seed(1)
    model(torch.randn(4, 5)).pow(2).sum().backward()
    opt.step()
    full = model.state_dict()
    # Weights sharded on dim 0 as FSDP's sharded state dict cuts them, biases replicated.
    state = {"model": {k: shard_dim0(v, r, w) if k.endswith("weight") else v for k, v in full.items()},
             "optimizer": opt.state_dict(), "epoch": 3, "ema": torch.arange(6.0).reshape(2, 3),
             "tag": "step-3", "lrs": [0.1, 0.05]}
    dcp.save(state, checkpoint_id=out + "/ckpt")
    if r == 0:
        torch.save({"model": full, "optimizer": opt.state_dict()}, out + "/expected.pt")
        # no_dist inside the group: rank 0 alone writes a full checkpoint.
        dcp.save_state_dict({"model": full}, dcp.FileSystemWriter(out + "/solo"), no_dist=True)
    dist.barrier()
    # Every rank loads its own shards back.
    back = {"model": {"0.weight": shard_dim0(torch.zeros(7, 5), r, w)}, "epoch": None}
    dcp.load(back, checkpoint_id=out + "/ckpt")
    ok = torch.equal(back["model"]["0.weight"].local_tensor(),
                     shard_dim0(full["0.weight"], r, w).local_tensor())
    # A key only rank 1 asks for: both ranks raise, naming rank 1 and the key.
    probe = {"model": {"0.bias": torch.zeros(7)}}
    if r == 1:
        probe["nope"] = torch.zeros(1)
    try:
        dcp.load(probe, checkpoint_id=out + "/ckpt")
        failure = "no error"
    except dcp.CheckpointException as e:
        failure = [sorted(e.failures), "'nope'" in str(e)]
    with open(out + "/rank%d.json" % r, "w") as f:
        json.dump({"ok": ok, "epoch": back["epoch"], "failure": failure}, f)
    dist.destroy_process_group()
""")


@pytest.fixture(scope="module")
def two_rank_checkpoint(tmp_path_factory):
    if not BUILD:
        pytest.skip("EMBER_BUILD_DIR names the build with ember-run")
    tmp = tmp_path_factory.mktemp("dcp2")
    prog = tmp / "save.py"
    prog.write_text(SAVE_ON_TWO_RANKS)
    run_ranks(prog, tmp, str(tmp))
    return tmp


@needs_build
def test_two_ranks_save_load_their_shards_and_fail_together(two_rank_checkpoint):
    for r in range(2):
        got = json.loads((two_rank_checkpoint / ("rank%d.json" % r)).read_text())
        assert got == {"ok": True, "epoch": 3, "failure": [[1], True]}


@needs_build
def test_the_directory_is_pytorchs_layout(two_rank_checkpoint):
    assert sorted(os.listdir(two_rank_checkpoint / "ckpt")) == [".metadata", "__0_0.distcp", "__1_0.distcp"]
    assert sorted(os.listdir(two_rank_checkpoint / "solo")) == [".metadata", "__0_0.distcp"]


@needs_build
def test_two_rank_checkpoint_loads_in_one_process_into_a_plain_state_dict(two_rank_checkpoint):
    expected = torch.load(two_rank_checkpoint / "expected.pt")
    model = make_model(seed=5)  # other values everywhere
    opt = torch.optim.AdamW(model.parameters(), lr=0.1)  # no state yet
    state = {"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 0,
             "ema": torch.zeros(2, 3), "tag": None, "lrs": None}
    dcp.load(state, checkpoint_id=two_rank_checkpoint / "ckpt")
    assert state["epoch"] == 3 and state["tag"] == "step-3" and state["lrs"] == [0.1, 0.05]
    assert torch.equal(state["ema"], torch.arange(6.0).reshape(2, 3))
    model.load_state_dict(state["model"])
    for k, v in expected["model"].items():
        assert torch.equal(model.state_dict()[k], v), k
    # The optimizer's state came back with its int keys.
    opt.load_state_dict(state["optimizer"])
    saved, loaded = expected["optimizer"], opt.state_dict()
    assert sorted(loaded["state"]) == sorted(saved["state"]) == [0, 1, 2, 3]
    for i, s in saved["state"].items():
        for name, v in s.items():
            assert torch.equal(loaded["state"][i][name], v), (i, name)
    assert loaded["param_groups"] == saved["param_groups"]
    # The solo checkpoint (no_dist on rank 0) holds the full model.
    solo = {"model": make_model(seed=6).state_dict()}
    dcp.load_state_dict(solo, dcp.FileSystemReader(two_rank_checkpoint / "solo"))
    for k, v in expected["model"].items():
        assert torch.equal(solo["model"][k], v), k


@needs_build
def test_two_rank_checkpoint_loads_into_other_shardings(two_rank_checkpoint):
    full = torch.load(two_rank_checkpoint / "expected.pt")["model"]["0.weight"]  # (7, 5)
    for r in range(3):  # three ranks' blocks, one after the other
        state = {"model": {"0.weight": shard_dim0(torch.zeros(7, 5), r, 3)}}
        dcp.load(state, checkpoint_id=two_rank_checkpoint / "ckpt")
        assert torch.equal(state["model"]["0.weight"].local_tensor(), shard_dim0(full, r, 3).local_tensor())
    # A block across both saved shards and inside dim 1.
    block = ShardedTensor(torch.zeros(3, 2), [2, 3], [7, 5])
    dcp.load({"model": {"0.weight": block}}, checkpoint_id=two_rank_checkpoint / "ckpt")
    assert torch.equal(block.local_tensor(), full[2:5, 3:5])


def test_round_trip_in_one_process(tmp_path):
    model, opt = trained()
    state = {"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 4,
             "best": 0.25, "name": "run", "betas": (0.9, 0.999), "none": None,
             "sharded": shard_dim0(torch.arange(10.0).reshape(5, 2), 0, 1)}
    dcp.save(state, checkpoint_id=tmp_path / "ck")
    assert sorted(os.listdir(tmp_path / "ck")) == [".metadata", "__0_0.distcp"]
    model2 = make_model(seed=3)
    opt2 = torch.optim.AdamW(model2.parameters(), lr=0.1)
    back = {"model": model2.state_dict(), "optimizer": opt2.state_dict(), "epoch": 0, "best": 0.0,
            "name": "", "betas": None, "none": 1,
            "sharded": ShardedTensor(torch.zeros(2, 2), [3, 0], [5, 2])}
    before = back["model"]["0.weight"]
    dcp.load(back, checkpoint_id=str(tmp_path / "ck"))
    assert back["model"]["0.weight"] is before  # filled in place
    assert (back["epoch"], back["best"], back["name"], back["betas"], back["none"]) == (
        4, 0.25, "run", (0.9, 0.999), None)
    assert torch.equal(back["sharded"].local_tensor(), torch.arange(6.0, 10.0).reshape(2, 2))
    model2.load_state_dict(back["model"])
    opt2.load_state_dict(back["optimizer"])
    for (k, a), b in zip(model.state_dict().items(), model2.state_dict().values()):
        assert torch.equal(a, b), k
    s1, s2 = opt.state_dict()["state"], opt2.state_dict()["state"]
    assert s1.keys() == s2.keys()
    for i in s1:
        for name in s1[i]:
            assert torch.equal(s1[i][name], s2[i][name])
    # Both steps go on the same way.
    for m, o in ((model, opt), (model2, opt2)):
        o.zero_grad()
        torch.manual_seed(2)
        m(torch.randn(3, 5)).sum().backward()
        o.step()
    assert all(torch.equal(a, b) for a, b in zip(model.parameters(), model2.parameters()))


def test_errors_name_the_key_and_the_shapes(tmp_path):
    ck = tmp_path / "ck"
    dcp.save({"w": torch.zeros(7, 5), "step": 3}, checkpoint_id=ck)
    with pytest.raises(CheckpointException, match="'missing' is not in the checkpoint") as info:
        dcp.load({"missing": torch.zeros(1)}, checkpoint_id=ck)
    assert list(info.value.failures) == [0]
    assert isinstance(info.value.failures[0][0], RuntimeError)
    assert not isinstance(info.value, Exception)  # a BaseException, as PyTorch's
    with pytest.raises(CheckpointException, match=r"'w'.*shape \[7, 5\].*shape \[5, 7\]"):
        dcp.load({"w": torch.zeros(5, 7)}, checkpoint_id=ck)
    with pytest.raises(CheckpointException, match="'w'.*dtype"):
        dcp.load({"w": torch.zeros(7, 5, dtype=torch.float64)}, checkpoint_id=ck)
    with pytest.raises(CheckpointException, match="'step' was saved as a non-tensor"):
        dcp.load({"step": torch.zeros(1)}, checkpoint_id=ck)
    (ck / ".metadata").unlink()
    with pytest.raises(CheckpointException, match="no .metadata"):
        dcp.load({"w": torch.zeros(7, 5)}, checkpoint_id=ck)
    with pytest.raises(CheckpointException, match="no checkpoint directory"):
        dcp.load({"w": torch.zeros(7, 5)}, checkpoint_id=tmp_path / "nowhere")


def test_argument_errors(tmp_path):
    with pytest.raises(TypeError, match="dict"):
        dcp.save([torch.zeros(1)], checkpoint_id=tmp_path / "a")
    with pytest.raises(TypeError, match="only str and int keys"):
        dcp.save({("a", 1): torch.zeros(1)}, checkpoint_id=tmp_path / "a")
    with pytest.raises(TypeError, match="ember saves tensors"):
        dcp.save({"f": object()}, checkpoint_id=tmp_path / "a")
    with pytest.raises(ValueError, match="checkpoint_id"):
        dcp.save({"w": torch.zeros(1)})
    with pytest.raises(NotImplementedError, match="planner"):
        dcp.save({"w": torch.zeros(1)}, checkpoint_id=tmp_path / "a", planner=object())
    with pytest.raises(NotImplementedError, match="single_file_per_rank"):
        dcp.FileSystemWriter(tmp_path / "a", single_file_per_rank=False)
    with pytest.raises(TypeError, match="FileSystemReader"):
        dcp.load_state_dict({}, storage_reader=dcp.FileSystemWriter(tmp_path / "a"))
    with pytest.raises(ValueError, match="outside the global size"):
        ShardedTensor(torch.zeros(3), [5], [6])


def golden_113_state():
    return {"model": {"fc.weight": torch.zeros(4, 3), "fc.bias": torch.zeros(4, dtype=torch.float64)},
            "half": torch.zeros(5, dtype=torch.float16), "ids": torch.zeros(3, dtype=torch.int64),
            "mask": torch.zeros(3, dtype=torch.bool), "epoch": 0, "lr": 0.0, "name": "",
            "lrs": [], "betas": None, "cfg": {}, "none": 1,
            "optim": {"state": {}, "param_groups": []}}  # a fresh optimizer's state dict


@pytest.mark.parametrize("spelling", ["load", "1.13"])
def test_loads_a_checkpoint_pytorch_113_wrote(spelling):
    state = golden_113_state()
    if spelling == "load":
        dcp.load(state, checkpoint_id=GOLDEN_113)
    else:  # 1.13's own import path and spelling
        import ember.distributed._shard.checkpoint as dcp113
        dcp113.load_state_dict(state, dcp113.FileSystemReader(str(GOLDEN_113)), no_dist=True)
    assert torch.equal(state["model"]["fc.weight"], torch.arange(12, dtype=torch.float32).reshape(4, 3))
    assert torch.equal(state["model"]["fc.bias"], torch.arange(4, dtype=torch.float64) / 4)
    assert torch.equal(state["half"], torch.arange(5, dtype=torch.float16))
    assert state["ids"].tolist() == [3, 1, 2] and state["mask"].tolist() == [True, False, True]
    assert (state["epoch"], state["lr"], state["name"], state["lrs"], state["betas"]) == (
        7, 0.5, "run", [0.1, 0.01], (0.9, 0.999))
    assert state["cfg"] == {"depth": 2, "act": "gelu"} and state["none"] is None
    assert state["optim"]["param_groups"] == [{"lr": 0.1, "params": [0]}]
    assert list(state["optim"]["state"]) == [0]
    assert state["optim"]["state"][0]["step"].item() == 3.0
    assert torch.equal(state["optim"]["state"][0]["exp_avg"], torch.arange(4.0) / 8)


def test_keys_inside_a_dict_pytorch_113_saved_whole():
    # 1.13 saved "cfg" and "optim" as one item each; nested targets take their parts, tensors
    # in place.
    exp_avg = torch.zeros(4)
    state = {"cfg": {"depth": 0}, "optim": {"state": {0: {"exp_avg": exp_avg}}}}
    dcp.load(state, checkpoint_id=GOLDEN_113)
    assert state["cfg"] == {"depth": 2}
    assert state["optim"]["state"][0]["exp_avg"] is exp_avg
    assert torch.equal(exp_avg, torch.arange(4.0) / 8)
    with pytest.raises(CheckpointException, match="'cfg' was saved as one value, which has no 'width'"):
        dcp.load({"cfg": {"width": 0}}, checkpoint_id=GOLDEN_113)
    with pytest.raises(CheckpointException, match=r"'optim.state.0.exp_avg': the checkpoint has shape \[4\]"):
        dcp.load({"optim": {"state": {0: {"exp_avg": torch.zeros(5)}}}}, checkpoint_id=GOLDEN_113)


@pytest.mark.parametrize("layout", ["torch113_files", "torch113_per_rank"])
def test_loads_pytorch_113_two_rank_checkpoints_into_three_shards(layout):
    full = torch.arange(24, dtype=torch.float32).reshape(8, 3)  # what gen_dcp.py saved as "w"
    for r in range(3):
        state = {"w": shard_dim0(torch.zeros(8, 3), r, 3), "b": torch.zeros(3), "step": None}
        dcp.load(state, checkpoint_id=CPP_GOLDEN / layout)
        assert torch.equal(state["w"].local_tensor(), shard_dim0(full, r, 3).local_tensor())
        assert state["b"].tolist() == [1.5, 2.5, 3.5] and state["step"] == 7


def real_torch_python():
    """/usr/bin/python3 when it has PyTorch (CI does not), else None."""
    if not os.path.exists("/usr/bin/python3"):
        return None
    r = subprocess.run(["/usr/bin/python3", "-c", "import torch"], capture_output=True, timeout=120)
    return "/usr/bin/python3" if r.returncode == 0 else None


READ_WITH_113 = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, sys.argv[2])
    import gen_dcp  # makes 1.13's torch.distributed._shard importable on Python 3.11
    import torch
    import torch.distributed._shard.checkpoint as dcp
    state = {"model.0.weight": torch.zeros(7, 5), "model.2.bias": torch.zeros(3),
             "optimizer.state.0.exp_avg": torch.zeros(7, 5), "epoch": None, "name": None,
             "sharded": torch.zeros(5, 2)}
    dcp.load_state_dict(state, dcp.FileSystemReader(sys.argv[1]), no_dist=True)
    print(json.dumps({k: v.flatten().tolist() if isinstance(v, torch.Tensor) else v
                      for k, v in state.items()}))
""")


def test_pytorch_113_reads_what_ember_wrote(tmp_path):
    python = real_torch_python()
    if python is None:
        pytest.skip("/usr/bin/python3 has no PyTorch (the committed golden files test the other way)")
    model, opt = trained()
    sharded = torch.arange(10.0).reshape(5, 2)
    dcp.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 4, "name": "run",
              "sharded": shard_dim0(sharded, 0, 1)}, checkpoint_id=tmp_path / "ck")
    script = tmp_path / "read.py"
    script.write_text(READ_WITH_113)
    r = subprocess.run([python, str(script), str(tmp_path / "ck"), str(CPP_GOLDEN.parent)],
                       capture_output=True, text=True, timeout=300, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["epoch"] == 4 and got["name"] == "run"
    assert got["model.0.weight"] == model.state_dict()["0.weight"].flatten().tolist()
    assert got["model.2.bias"] == model.state_dict()["2.bias"].tolist()
    assert got["optimizer.state.0.exp_avg"] == opt.state_dict()["state"][0]["exp_avg"].flatten().tolist()
    assert got["sharded"] == sharded.flatten().tolist()
