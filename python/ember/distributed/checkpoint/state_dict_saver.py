"""Saving a distributed checkpoint: save (torch.distributed.checkpoint.save's spelling) and
save_state_dict (PyTorch 1.13's)."""
from ... import _C
from .api import _check_common, _path, _run
from .filesystem import FileSystemWriter


def save(state_dict, *, checkpoint_id=None, storage_writer=None, planner=None, process_group=None,
         coordinator_rank=0, no_dist=False):
    """Saves ``state_dict`` into the directory ``checkpoint_id`` (every rank of the group calls
    it with its own part of the state).

    The state is a dict whose nested dicts are flattened to dotted keys ("model.fc.weight",
    "optimizer.state.0.exp_avg"; str and int keys); a ShardedTensor is saved by every rank that
    holds a block of it; a plain tensor is replicated and saved once, by the coordinator, as is
    every other value (numbers, strings, lists, tuples, None). `.metadata` is written last, so a
    save that fails leaves a directory that load refuses. An error on any rank raises
    CheckpointException on every rank.

    Outside an initialized process group this saves from one process (PyTorch 1.13 asks for
    no_dist=True there; later versions, like ember, need not). no_dist=True saves from this
    process alone even inside a group (e.g. rank 0 writing a full checkpoint by itself); it is
    then the coordinator whatever coordinator_rank says, as in PyTorch."""
    _check_common("save", planner, coordinator_rank)
    path = _path(checkpoint_id, storage_writer, FileSystemWriter, "save")
    sync = storage_writer.sync_files if storage_writer is not None else True
    _run(lambda: _C._dcp.save(state_dict, path, process_group, coordinator_rank, bool(no_dist), sync),
         process_group, no_dist)


def save_state_dict(state_dict, storage_writer, process_group=None, coordinator_rank=0,
                    no_dist=False, planner=None):
    """PyTorch 1.13's spelling of save: ``save_state_dict(state, FileSystemWriter(path))``."""
    save(state_dict, storage_writer=storage_writer, planner=planner, process_group=process_group,
         coordinator_rank=coordinator_rank, no_dist=no_dist)
