"""The profiler from Python: the table's columns as PyTorch 1.13 prints them, record_function
ranges, schedules with on_trace_ready, Chrome traces."""
import json

import ember as torch
from ember.profiler import ProfilerActivity, profile, record_function, schedule

import re

# PyTorch 1.13's CPU table: its header after the Name column, exactly (widths included), and
# the columns of the table grouped by input shape (whose last column's width follows the shapes).
TORCH_COLUMNS = "    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls  "
TORCH_SHAPE_COLUMNS = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
                       "# of Calls", "Input Shapes"]


def test_table_layout_and_ranges(tmp_path):
    a = torch.randn(32, 32, requires_grad=True)
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        with record_function("my_step"):
            (a @ a).relu().sum().backward()
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=5)
    lines = table.splitlines()
    assert lines[1].strip().startswith("Name") and lines[1].endswith(TORCH_COLUMNS)
    assert "my_step" in table and "Self CPU time total" in lines[-1]
    shaped = prof.key_averages(group_by_input_shape=True).table(row_limit=3).splitlines()
    assert re.split(r"\s{2,}", shaped[1].strip()) == TORCH_SHAPE_COLUMNS
    keys = [e.key for e in prof.key_averages()]
    assert "my_step" in keys and any("Backward" in k for k in keys)
    prof.export_chrome_trace(str(tmp_path / "trace.json"))
    trace = json.loads((tmp_path / "trace.json").read_text())
    assert any(e.get("name") == "my_step" for e in trace["traceEvents"])


def test_schedule_and_on_trace_ready():
    a = torch.randn(8)
    cycles = []
    with profile(schedule=schedule(wait=1, warmup=1, active=2, repeat=2),
                 on_trace_ready=lambda p: cycles.append(p.step_num)) as p:
        for _ in range(10):
            with record_function("work"):
                (a * 2).sum()
            p.step()
    assert cycles == [4, 8]  # two cycles of wait 1 + warmup 1 + active 2


def test_record_function_as_decorator():
    @record_function("decorated")
    def f(x):
        return x + 1

    with profile() as prof:
        f(torch.ones(2))
    assert "decorated" in [e.key for e in prof.key_averages()]


def _scaled_relu(x):  # the call site with_stack must name
    return torch.relu(x * 3)


def test_with_stack_names_the_python_call_sites(tmp_path):
    x = torch.randn(4, 4, requires_grad=True)
    with profile(with_stack=True) as prof:
        _scaled_relu(x).sum().backward()
    stacks = {e.key: e.stack for e in prof.key_averages(group_by_stack_n=5)}
    line = _scaled_relu.__code__.co_firstlineno + 1
    assert stacks["relu"][0] == "%s(%d): _scaled_relu" % (__file__, line)
    assert stacks["relu"][1].endswith("): test_with_stack_names_the_python_call_sites")
    assert stacks["ReluBackward0"] == []  # the autograd engine's op: no Python frame of its own
    table = prof.key_averages(group_by_stack_n=5).table(sort_by="self_cpu_time_total", row_limit=20)
    assert "Source Location" in table and "): _scaled_relu" in table
    prof.export_stacks(str(tmp_path / "stacks.txt"))
    assert any("%s(%d): _scaled_relu;relu " % (__file__, line) in l  # outermost frame first
               for l in (tmp_path / "stacks.txt").read_text().splitlines())
    without = profile()
    with without:
        _scaled_relu(x)
    assert all(e.stack == [] for e in without.key_averages(group_by_stack_n=5))
