"""torch.distributed.fsdp on ember: 2-rank runs under ember-run (the programs in fsdp/) equal one
process training the plain model on the whole batch for every sharding strategy; mixed precision
computes and reduces in bfloat16; state dicts of the three types; no_sync, clip_grad_norm_,
prefetch; FULL_SHARD frees a unit's parameters between its forward and its backward; wrong uses
get errors that name FSDP. The auto-wrap policies and the argument checks run in this process.
Every run has a timeout and leaves no process behind."""
import functools
import json
import os
import pathlib
import subprocess

import pytest

import ember as torch
import ember.nn as nn
from ember.distributed.fsdp import (BackwardPrefetch, CPUOffload, FullyShardedDataParallel as FSDP,
                                    MixedPrecision, ShardingStrategy, StateDictType)
from ember.distributed.fsdp.wrap import (_recursive_wrap, always_wrap_policy, enable_wrap,
                                         lambda_auto_wrap_policy, size_based_auto_wrap_policy,
                                         transformer_auto_wrap_policy, wrap)

BUILD = os.environ.get("EMBER_BUILD_DIR")
PROGRAMS = pathlib.Path(__file__).resolve().parent / "fsdp"
needs_ember_run = pytest.mark.skipif(
    not BUILD, reason="EMBER_BUILD_DIR (set by CTest's python_tests) names the build with ember-run")
STRATEGIES = ["FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD"]
_runs = {}


def run(tmp_path_factory, program, nproc, *args):
    """Each rank's result of one ember-run of PROGRAMS/program (run once per session)."""
    key = (program, nproc) + args
    if key not in _runs:
        cwd = tmp_path_factory.mktemp(program.replace(".py", ""))
        r = subprocess.run([os.path.join(BUILD, "tools", "ember-run"), "--standalone",
                            "--nproc-per-node", str(nproc), str(PROGRAMS / program), *args],
                           capture_output=True, text=True, timeout=180, cwd=str(cwd))
        assert r.returncode == 0, r.stdout + r.stderr
        _runs[key] = [json.loads((cwd / ("result%d.json" % i)).read_text()) for i in range(nproc)]
    return _runs[key]


@pytest.fixture(params=STRATEGIES)
def trained(request, tmp_path_factory):
    return request.param, run(tmp_path_factory, "train_strategy.py", 2, request.param)


# ── training on 2 ranks equals one process on the whole batch ────────────────────────────────
@needs_ember_run
def test_training_equals_one_process_on_the_full_batch(trained):
    strategy, ranks = trained
    for res in ranks:
        assert res["strategy"] == strategy
        assert res["loss_diff"] < 1e-12
        assert res["train_diff"] < 1e-12  # the parameters after 3 AdamW steps, float64


@needs_ember_run
def test_parameters_are_the_flat_shards_under_1_13s_names(trained):
    strategy, ranks = trained
    inner = "_fsdp_wrapped_module._fpw_module."
    assert ranks[0]["names"] == [
        "_fsdp_wrapped_module.flat_param",
        inner + "blocks.0._fsdp_wrapped_module.flat_param",
        inner + "blocks.0." + inner + "mlp._fsdp_wrapped_module.flat_param",
        inner + "blocks.1._fsdp_wrapped_module.flat_param",
        inner + "blocks.1." + inner + "mlp._fsdp_wrapped_module.flat_param"]
    # root: embed 5*6+6 and head 6*3+3 = 57; block: LayerNorm 12; MLP 6*13+13+13*6+6 = 175.
    whole = [57, 12, 175, 12, 175]
    expected = whole if strategy == "NO_SHARD" else [-(-n // 2) for n in whole]  # padded halves
    assert ranks[0]["numels"] == ranks[1]["numels"] == expected


@needs_ember_run
def test_full_state_dict_is_the_plain_models(trained):
    _, ranks = trained
    for rank, res in enumerate(ranks):
        assert res["keys_equal"]
        assert res["load_plain"] == "<All keys matched successfully>"
        assert res["load_plain_diff"] < 1e-12
        assert res["load_back"] == "<All keys matched successfully>"
        assert res["load_back_diff"] == 0.0
        assert res["rank0_only_len"] == (17 if rank == 0 else 0)
        assert res["offload_diff"] == 0.0 and res["offload_on_cpu"]


@needs_ember_run
def test_sharded_state_dict_chunks_cover_every_parameter(trained):
    _, ranks = trained
    full = ranks[0]["full"]
    assert all(res["sharded_keys_equal"] for res in ranks)
    assert set(ranks[0]["sharded"]) == {k for k in full if k != "scale"}  # buffers stay tensors
    for key in ranks[0]["sharded"]:
        blocks = sorted((res["sharded"][key] for res in ranks), key=lambda b: b[0][0])
        size = blocks[0][3]
        row = len(full[key]) // size[0]
        rows, values = 0, []
        for offsets, shape, local, global_size in blocks:
            assert global_size == size and offsets == [rows] + [0] * (len(size) - 1)
            assert shape[1:] == size[1:]
            rows += shape[0]
            values += local
        assert rows == size[0] and len(values) == rows * row
        assert max(abs(a - b) for a, b in zip(values, full[key])) == 0.0
    for res in ranks:
        assert res["sharded_roundtrip_diff"] == 0.0


@needs_ember_run
def test_local_state_dict_is_each_units_flat_shard(trained):
    strategy, ranks = trained
    whole = {"flat_param": 57, "blocks.0.flat_param": 12, "blocks.0.mlp.flat_param": 175,
             "blocks.1.flat_param": 12, "blocks.1.mlp.flat_param": 175}
    for rank, res in enumerate(ranks):
        assert set(res["local"]) == set(whole) | {"scale"}
        for key, n in whole.items():
            offsets, shape, global_size = res["local"][key]
            assert global_size == [n]
            if strategy == "NO_SHARD":
                assert offsets == [0] and shape == [n]
            else:  # rank 1 holds the rest, without the padding
                chunk = -(-n // 2)
                assert offsets == [chunk * rank] and shape == [chunk if rank == 0 else n - chunk]
        assert res["local_roundtrip_diff"] == 0.0


@needs_ember_run
def test_when_units_are_gathered_and_freed(trained):
    strategy, ranks = trained
    for res in ranks:
        # Module parameters read as shape [0] while their unit is freed.
        if strategy == "FULL_SHARD":  # nested units freed after forward (the root is not), gathered
            assert res["forward_gathers"] == 5  # again in backward, all freed after it
            assert res["after_forward"] == {"root": 30, "block": 0, "mlp": 0}
            assert res["backward_gathers"] == 4
            assert res["after_backward"] == {"root": 0, "block": 0, "mlp": 0}
        elif strategy == "SHARD_GRAD_OP":  # gathered from forward to the end of backward
            assert res["forward_gathers"] == 5 and res["backward_gathers"] == 0
            assert res["after_forward"] == {"root": 30, "block": 6, "mlp": 78}
            assert res["after_backward"] == {"root": 0, "block": 0, "mlp": 0}
        else:  # every rank holds everything: nothing to gather
            assert res["forward_gathers"] == 0 and res["backward_gathers"] == 0
            assert res["after_backward"] == {"root": 30, "block": 6, "mlp": 78}
        # forward_prefetch (FULL_SHARD here) issues the MLP's gather before its block computes.
        assert res["gathered_ahead"] == [strategy != "SHARD_GRAD_OP"]


@needs_ember_run
def test_no_sync_accumulates_and_clip_grad_norm_equals_the_plain_models(trained):
    _, ranks = trained
    for res in ranks:
        assert res["no_sync_grads_kept_local"]  # nothing reduced inside no_sync()
        assert res["no_sync_diff"] < 1e-12  # the next backward reduced both micro-batches
        assert res["clip_clipped"] and res["clip_total_diff"] < 1e-12
        assert res["clip_diff"] < 1e-12


@needs_ember_run
def test_optimizer_state_dicts_gather_by_name_and_shard_again(trained):
    _, ranks = trained
    assert [res["full_osd_len"] for res in ranks] == [2, 0]  # rank0_only by default
    for res in ranks:
        assert res["osd_names"]  # keyed by the plain model's parameter names
        assert res["osd_diff"] < 1e-12  # equal to the plain model's AdamW state
        assert res["osd_reshard_equal"]  # sharded back: the same optimizer state
        assert res["osd_rewrapped_diff"] == 0.0  # into a model wrapped otherwise


@needs_ember_run
def test_train_eval_summon_full_params_and_apply_reach_the_wrapped_modules(trained):
    for res in trained[1]:
        assert res["eval"] == 0 and res["train"] == 0
        assert res["summoned_names"] and res["summon_writeback"] and res["apply_zeroed"]


@needs_ember_run
def test_world_size_one_runs_no_shard(tmp_path_factory):
    (res,) = run(tmp_path_factory, "train_strategy.py", 1, "FULL_SHARD")
    assert res["strategy"] == "NO_SHARD"  # forced, as in 1.13
    assert res["train_diff"] < 1e-12 and res["no_sync_diff"] < 1e-12 and res["clip_diff"] < 1e-12
    assert res["keys_equal"] and res["sharded_roundtrip_diff"] == 0.0


# ── mixed precision, the reference's spelling, wrong uses ────────────────────────────────────
@pytest.fixture
def mixed(tmp_path_factory):
    return run(tmp_path_factory, "mixed_precision.py", 2)


@needs_ember_run
def test_mixed_precision_computes_and_reduces_in_bfloat16(mixed):
    for res in mixed:
        assert res["seen"] == [["torch.bfloat16", "torch.bfloat16"]]  # gathered weight, input
        assert res["gathered"] == ["torch.bfloat16"] and res["reduced"] == ["torch.bfloat16"]
        assert res["flat_dtypes"] == ["torch.float32"] and res["grad_dtypes"] == ["torch.float32"]
        for fsdp_loss, fp32_loss in res["losses"]:
            assert abs(fsdp_loss - fp32_loss) < 0.02 * fp32_loss
        assert res["buffer_in_training"] == "torch.bfloat16"  # cast at the first forward
        assert res["sd_dtypes"] == ["torch.float32"] and res["sd_keys_equal"]  # own dtypes
        assert res["buffer_after_sd"] == "torch.bfloat16"


@needs_ember_run
def test_the_references_spelling(mixed):
    for rank, res in enumerate(mixed):
        # device_id=local_rank names a CUDA device: on a CPU build that is where PyTorch fails too.
        assert res["device_id_error"].startswith("FullyShardedDataParallel(device_id=%d)" % rank)
        assert "Leave device_id out" in res["device_id_error"]
        assert len(res["losses"]) == 3  # the same spelling without it trains


@needs_ember_run
def test_wrong_uses_name_fsdp_and_what_was_expected(mixed):
    errors = mixed[0]["errors"]
    assert errors["twice"][0] == "ValueError" and "already FullyShardedDataParallel" in errors["twice"][1]
    assert errors["auto_wrap_over_fsdp"][0] == "ValueError"
    assert "to NOT be FullyShardedDataParallel" in errors["auto_wrap_over_fsdp"][1]
    for name in ("nested_no_sync", "nested_forward", "nested_clip"):
        assert errors[name][0] == "RuntimeError" and "root" in errors[name][1]


@needs_ember_run
def test_less_common_uses(tmp_path_factory):
    for res in run(tmp_path_factory, "edge_cases.py", 2):
        assert res["tied_keys"] and res["tied_diff"] < 1e-12  # both names, one parameter
        assert res["unused_diff"] < 1e-12  # a parameter without gradient, a dict output
        assert res["two_forwards_diff"] < 1e-12  # each unit run twice in one forward
        assert res["accumulate_diff"] < 1e-12  # .grad adds up over backwards, as in 1.13
        assert "'head.weight' is shared with a module that another FSDP unit" in res["cross_error"]
        assert res["ignored_names"] == ["_fsdp_wrapped_module.flat_param",
                                        "_fsdp_wrapped_module._fpw_module.2.weight",
                                        "_fsdp_wrapped_module._fpw_module.2.bias"]
        assert res["ignored_grad"]
        assert res["bn_warned"] and res["bn_unit_mp"] and res["bn_ran"]
        assert res["synced_spread"] == 0.0 and res["synced_buffer"] == [1.0] * 4  # rank 0's
        assert 'Missing key(s) in state_dict: "2.bias"' in res["missing_error"]  # plain names
        assert res["non_strict"] == "_IncompatibleKeys(missing_keys=['2.bias'], unexpected_keys=[])"
        assert "SHARDED_STATE_DICT expects a ShardedTensor" in res["sharded_type_error"]
        for strategy in ("FULL_SHARD", "SHARD_GRAD_OP"):  # the wrapper's name is not in the keys
            keys_equal, diff = res["checkpoint_" + strategy]
            assert keys_equal and diff < 1e-12


def test_arguments_are_checked_before_any_communication():
    m = nn.Linear(2, 2)
    cases = [
        (dict(sharding_strategy="FULL"), ValueError, "sharding_strategy must be a ShardingStrategy"),
        (dict(sharding_strategy=4), ValueError, "FULL_SHARD, SHARD_GRAD_OP or NO_SHARD"),
        (dict(cpu_offload=CPUOffload(offload_params=True)), ValueError, "offload_params=False"),
        (dict(param_init_fn=lambda m: None), ValueError, "meta device"),
        (dict(mixed_precision=MixedPrecision(param_dtype=torch.int32)), ValueError, "floating dtype"),
        (dict(mixed_precision=MixedPrecision(keep_low_precision_grads=True)), ValueError, "keep_low"),
        (dict(backward_prefetch="pre"), ValueError, "BackwardPrefetch"),
        (dict(auto_wrap_policy=3), TypeError, "auto_wrap_policy must be a callable"),
        (dict(device_id=0), RuntimeError, "names a CUDA device"),
        (dict(), RuntimeError, "init_process_group"),  # the arguments are fine: no group yet
        (dict(device_id="cpu", cpu_offload=CPUOffload(), limit_all_gathers=True), RuntimeError,
         "init_process_group"),
        (dict(device_id=torch.device("cpu")), RuntimeError, "init_process_group"),
    ]
    if torch.cuda.is_available():
        cases = [c for c in cases if "device_id" not in c[0]]
    for kwargs, error, text in cases:
        with pytest.raises(error, match=text) as info:
            FSDP(m, **kwargs)
        assert "FullyShardedDataParallel" in str(info.value)
    with pytest.raises(TypeError, match="expected an nn.Module"):
        FSDP(torch.zeros(2))
    assert list(m.state_dict()) == ["weight", "bias"]  # untouched by the failed wraps
    assert BackwardPrefetch.BACKWARD_PRE.value == 1 and ShardingStrategy.NO_SHARD.value == 3
    assert StateDictType.SHARDED_STATE_DICT.value == 3


# ── auto-wrap policies (1.13's protocol), with a recording wrapper ───────────────────────────
class Wrapped(nn.Module):
    def __init__(self, module, **kwargs):
        super().__init__()
        self.module, self.kwargs = module, kwargs


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn, self.fc = nn.Linear(4, 4), nn.Linear(4, 8)


def model():
    return nn.Sequential(nn.Linear(3, 4), nn.ModuleList([Block(), Block()]), nn.Linear(4, 2))


def test_transformer_policy_wraps_the_layer_classes_only():
    m = model()
    policy = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={Block})
    out, n = _recursive_wrap(m, policy, Wrapped, only_wrap_children=True, flag=1)
    assert out is m and n == 2 * (20 + 40)
    assert [type(b).__name__ for b in m[1]] == ["Wrapped", "Wrapped"]
    assert m[1][0].kwargs == {"flag": 1} and isinstance(m[0], nn.Linear)


def test_size_based_policy_counts_unwrapped_parameters():
    m = model()
    policy = functools.partial(size_based_auto_wrap_policy, min_num_params=40)
    _recursive_wrap(m, policy, Wrapped, only_wrap_children=True)
    # Each block's fc (40) is wrapped; then each Block has 20 left (< 40) and stays; the
    # ModuleList is never wrapped (EXCLUDE_WRAP_MODULES).
    assert isinstance(m[1], nn.ModuleList)
    assert [type(b.fc).__name__ for b in m[1]] == ["Wrapped", "Wrapped"]
    assert isinstance(m[1][0].attn, nn.Linear)
    assert size_based_auto_wrap_policy(nn.MultiheadAttention(4, 2), recurse=True,
                                       unwrapped_params=10 ** 9) is False  # a forced leaf


def test_lambda_and_always_policies_and_enable_wrap():
    m = model()
    _recursive_wrap(m, functools.partial(lambda_auto_wrap_policy,
                                         lambda_fn=lambda mod: isinstance(mod, nn.Linear)),
                    Wrapped, only_wrap_children=True)
    assert type(m[0]).__name__ == "Wrapped" and type(m[1][1].fc).__name__ == "Wrapped"
    assert always_wrap_policy(None, True, 0)
    lin = nn.Linear(2, 2)
    assert wrap(lin) is lin  # outside enable_wrap: unchanged
    with enable_wrap(wrapper_cls=Wrapped, a=1):
        w = wrap(lin, b=2)
    assert isinstance(w, Wrapped) and w.kwargs == {"a": 1, "b": 2}


@needs_ember_run
def test_the_references_fsdp_activation_checkpointing_and_dcp_program(tmp_path_factory):
    results = run(tmp_path_factory, "reference_program.py", 2)
    for res in results:
        assert res["losses"][-1] < res["losses"][0]
        # Every rank wrote its part: the optimizer's states of the flat shards are each rank's own.
        assert res["files"] == [".metadata", "__0_0.distcp", "__1_0.distcp"]
        assert res["keys_are_plain"]
        assert res["params_restored"] and res["optimizer_restored"] and res["optimizer_states"] > 0
