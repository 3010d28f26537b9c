"""Loading a distributed checkpoint: load (torch.distributed.checkpoint.load's spelling) and
load_state_dict (PyTorch 1.13's)."""
from ... import _C
from .api import _check_common, _path, _run
from .filesystem import FileSystemReader


def load(state_dict, *, checkpoint_id=None, storage_reader=None, planner=None, process_group=None,
         coordinator_rank=0, no_dist=False):
    """Loads the checkpoint in the directory ``checkpoint_id`` into ``state_dict`` (every rank
    of the group calls it), which says what to read and where:

    - a tensor is filled IN PLACE from every saved block that overlaps it (a checkpoint saved on
      4 ranks loads on 2, on 1, or into a plain unsharded state dict);
    - a ShardedTensor's local block is filled in place with its part of the global tensor;
    - any other value (a number, a string, a list, None) is replaced in its dict by the saved one;
    - an empty dict (a fresh optimizer's "state") is filled with the saved keys below it.

    Then hand the parts to their owners: ``model.load_state_dict(state["model"])``.

    A key the checkpoint lacks, a tensor whose shape or dtype differs from the saved one (unlike
    1.13, which would copy with a cast or fail later), or a directory without `.metadata` (an
    incomplete save) raise CheckpointException naming the key and both shapes, on every rank.
    Outside a process group this loads in one process; no_dist=True as for save."""
    _check_common("load", planner, coordinator_rank)
    path = _path(checkpoint_id, storage_reader, FileSystemReader, "load")
    _run(lambda: _C._dcp.load(state_dict, path, process_group, coordinator_rank, bool(no_dist)),
         process_group, no_dist)


def load_state_dict(state_dict, storage_reader, process_group=None, coordinator_rank=0,
                    no_dist=False, planner=None):
    """PyTorch 1.13's spelling of load: ``load_state_dict(state, FileSystemReader(path))``."""
    load(state_dict, storage_reader=storage_reader, planner=planner, process_group=process_group,
         coordinator_rank=coordinator_rank, no_dist=no_dist)
