"""torch.distributed over ember's process groups (Gloo on CPU; the C++ side's stores and
rendezvous): init_process_group from torchrun's or ember-run's environment, the collectives with
async_op, new_group. Every wait has the group's timeout and every error names the rank, the op
and the peer (the C++ side's messages)."""
import datetime
import os

from .. import _C

_D = _C._distributed


class ReduceOp:
    """The reductions of all_reduce/reduce/reduce_scatter (PyTorch's names; ints for the C++ side)."""

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4


class GroupMember:
    WORLD = None  # the default group, as PyTorch spells it


def is_available():
    return True


def is_gloo_available():
    return True


def is_nccl_available():
    return _C._cuda_is_available()


def is_initialized():
    return _D.is_initialized()


def _seconds(timeout):
    if timeout is None:
        return 1800.0
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    raise TypeError("timeout must be a datetime.timedelta, got %s" % type(timeout).__name__)


def init_process_group(backend=None, init_method=None, timeout=datetime.timedelta(minutes=30),
                       world_size=-1, rank=-1, store=None, group_name="", pg_options=None):
    """Joins the default group: backend "gloo" on CPU ("nccl" needs a CUDA build), init_method
    env:// (MASTER_ADDR/MASTER_PORT/RANK/WORLD_SIZE, as torchrun and ember-run set them, or
    Slurm's srun and MPI's variables: Note [Launch environments] in
    src/distributed/launch_environment.cpp), tcp://host:port or file://path. Under srun or
    mpirun it then exports RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT where unset,
    as torchrun would have."""
    if store is not None or pg_options is not None:
        raise RuntimeError("init_process_group(): store= and pg_options= are not in ember; use init_method")
    if _D.is_initialized():
        raise RuntimeError("trying to initialize the default process group twice!")
    backend = "gloo" if backend is None else str(backend).lower()
    place = _D.launch_place() if init_method in (None, "env://") else None
    _D.init_process_group(backend, init_method or "env://", _seconds(timeout), int(world_size), int(rank))
    if place is not None and place["source"] not in ("", "RANK/WORLD_SIZE"):
        # Started by srun or mpirun, not torchrun: export what torchrun would have set, so that a
        # program reading os.environ["LOCAL_RANK"] after init (as the reference's does) finds it.
        for key, value in (("RANK", place["rank"]), ("WORLD_SIZE", place["world_size"]),
                           ("LOCAL_RANK", place["local_rank"]), ("MASTER_ADDR", place["master_addr"]),
                           ("MASTER_PORT", place["master_port"])):
            if value not in (-1, ""):
                os.environ.setdefault(key, str(value))


def destroy_process_group(group=None):
    if group is not None:
        raise RuntimeError("destroy_process_group(group) of a subgroup is not in ember; destroy the default group")
    _D.destroy_process_group()


def get_rank(group=None):
    return _D.get_rank(group)


def get_world_size(group=None):
    return _D.get_world_size(group)


def get_backend(group=None):
    return (group.backend() if group is not None else "gloo")


def new_group(ranks=None, timeout=None, backend=None, pg_options=None):
    return _D.new_group(list(ranks or []), _seconds(timeout) if timeout is not None else 0.0)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    return _D.all_reduce(tensor, op, group, async_op)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False):
    return _D.reduce(tensor, dst, op, group, async_op)


def broadcast(tensor, src, group=None, async_op=False):
    return _D.broadcast(tensor, src, group, async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    return _D.all_gather(tensor_list, tensor, group, async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    return _D.all_gather_into_tensor(output_tensor, input_tensor, group, async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    return _D.reduce_scatter(output, input_list, op, group, async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    return _D.reduce_scatter_tensor(output, input, op, group, async_op)


def barrier(group=None, async_op=False, device_ids=None):
    return _D.barrier(group, async_op)


def send(tensor, dst, group=None, tag=0):
    _D.send(tensor, dst, group, tag)


def recv(tensor, src=None, group=None, tag=0):
    if src is None:
        raise RuntimeError("recv() from any source is not in ember: give src")
    return _D.recv(tensor, src, group, tag)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    raise AttributeError("module 'torch.distributed' has no attribute '%s': torch.distributed.%s "
                         "is not in ember" % (name, name))
