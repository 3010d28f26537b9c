"""torch.profiler over ember's C++ profiler: `with profile(...) as prof:`, record_function,
schedule()/step(), key_averages().table() in PyTorch's layout, export_chrome_trace. with_stack records each op's Python call sites ("file(line): function",
innermost first, 5 kept) as PyTorch does; ops the autograd engine runs in backward have none."""
import enum
import functools

from .. import _C

__all__ = ["profile", "record_function", "schedule", "ProfilerActivity", "ProfilerAction"]


class ProfilerActivity(enum.Enum):
    CPU = "CPU"
    CUDA = "CUDA"

    def __str__(self):
        return "ProfilerActivity." + self.value


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0):
    """PyTorch's schedule: skip_first steps, then cycles of wait, warmup, active steps."""
    def schedule_fn(step):
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise ValueError("Invalid profiler schedule arguments")
    return schedule_fn


class profile:
    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, use_cuda=None):
        if with_flops or with_modules or experimental_config is not None:
            raise RuntimeError("profile(): with_flops, with_modules and experimental_config are not in ember")
        acts = list(activities) if activities is not None else [ProfilerActivity.CPU]
        self._session = _C._profiler.Session(acts, schedule, on_trace_ready, self, bool(record_shapes),
                                             bool(profile_memory), bool(with_stack))
        self.profile_memory = profile_memory

    def start(self):
        self._session.start()

    def stop(self):
        self._session.stop()

    def step(self):
        self._session.step()

    @property
    def step_num(self):
        return self._session.step_num()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        return self._session.key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path):
        self._session.export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        self._session.export_stacks(path, metric)

    def events(self):
        return self._session.event_names()


class record_function:
    """A named range in the profile: a context manager and a decorator."""

    def __init__(self, name, args=None):
        self.name = name
        self._range = None

    def __enter__(self):
        self._range = _C._profiler.Range(self.name)
        self._range.enter()
        return self

    def __exit__(self, *exc):
        self._range.exit()
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with record_function(self.name):
                return func(*args, **kwargs)
        return wrapper
