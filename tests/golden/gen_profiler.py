"""Writes profiler.json from PyTorch 1.13 (run with Debian's /usr/bin/python3):
- "tables": key_averages tables that torch's own _build_table prints for rows with chosen
  times, memory, counts and shapes, with the table options; tests/profiler/table_test.cpp builds
  the same rows as ember EventAverages and compares the text exactly.
- "schedules": torch.profiler.schedule's action for steps 0..N of several configurations.
- "trace": the legacy Chrome trace this build exports for a program with known structure
  (record_function("my_block") around (x * w).sum(), then backward): each event's name, keys and
  parent (the innermost event on its thread containing it); tests/profiler/chrome_trace_test.cpp
  checks ember's trace of the same program against it."""
import json
import os
import time

import torch
from torch.autograd.profiler_util import EventList, FunctionEventAvg
from torch.profiler import ProfilerAction, profile, record_function, schedule

HERE = os.path.dirname(os.path.abspath(__file__))

# (key, count, cpu_time_total us, self_cpu_time_total us, cpu_mem, self_cpu_mem, input_shapes)
ROWS = [
    ("my_block", 1, 525, 148, 16384, -16384, []),
    ("autograd::engine::evaluate_function: ReluBackward0", 1, 225, 4, 0, -16384, [[64, 64]]),
    ("ReluBackward0", 1, 221, 179, 16384, 0, [[64, 64]]),
    ("aten::mm", 2, 190, 187, 32768, 32768, [[64, 64], [64, 64]]),
    ("aten::matmul", 1, 175, 14, 16384, 0, [[64, 64], [64, 64]]),
    ("aten::zeros", 3, 121, 94, 4, 0, [[], [3]]),
    ("a_very_long_user_annotation_name_that_the_table_must_cut_short_somewhere", 7, 2500000,
     1234567, 3 * 1024 * 1024 * 1024, 5 * 1024 * 1024, [[128, 3, 224, 224]]),
    ("aten::add", 4, 10, 10, -2048, -2048, [[16], [16]]),
]

TABLES = [
    {"name": "default", "grouped": False, "memory": False, "options": {}},
    {"name": "cpu_time_total_6", "grouped": False, "memory": True,
     "options": {"sort_by": "cpu_time_total", "row_limit": 6}},
    {"name": "self_cpu_shapes", "grouped": True, "memory": True,
     "options": {"sort_by": "self_cpu_time_total", "row_limit": 3}},
    {"name": "count", "grouped": True, "memory": False, "options": {"sort_by": "count"}},
    {"name": "cpu_time_avg", "grouped": False, "memory": False, "options": {"sort_by": "cpu_time"}},
    {"name": "memory_sorted", "grouped": False, "memory": True,
     "options": {"sort_by": "cpu_memory_usage", "row_limit": 4}},
    {"name": "self_memory_sorted", "grouped": False, "memory": True,
     "options": {"sort_by": "self_cpu_memory_usage", "header": "A header line"}},
    {"name": "narrow_name", "grouped": True, "memory": False,
     "options": {"sort_by": "cpu_time_total", "max_name_column_width": 20,
                 "max_shapes_column_width": 12}},
]


def averages(grouped):
    out = []
    for key, count, total, self_total, mem, self_mem, shapes in ROWS:
        a = FunctionEventAvg()
        a.key, a.count, a.node_id = key, count, -1  # -1: no "Node ID" column (local events)
        a.cpu_time_total, a.self_cpu_time_total = total, self_total
        a.cpu_memory_usage, a.self_cpu_memory_usage = mem, self_mem
        a.input_shapes = shapes if grouped else ""
        out.append(a)
    return out


def tables():
    out = []
    for t in TABLES:
        events = EventList(averages(t["grouped"]), profile_memory=t["memory"])
        out.append(dict(t, text=events.table(**t["options"])))
    return out


def schedules():
    configs = [dict(wait=1, warmup=1, active=2, repeat=2), dict(wait=0, warmup=0, active=1),
               dict(wait=2, warmup=0, active=3, repeat=1, skip_first=3),
               dict(wait=1, warmup=2, active=1, repeat=0)]
    out = []
    for c in configs:
        s = schedule(**c)
        out.append({"config": c, "actions": [s(i).name for i in range(24)]})
    return out


def trace(path):
    x = torch.randn(64, 64)
    w = torch.randn(64, 64, requires_grad=True)
    with profile(record_shapes=True) as p:
        with record_function("my_block"):
            time.sleep(0.002)
            y = (x * w).sum()
        y.backward()
    p.export_chrome_trace(path)
    with open(path) as f:
        events = json.load(f)
    os.remove(path)
    described = []
    for i, e in enumerate(events):
        parent = None
        for j, o in enumerate(events):  # innermost (shortest) container on the same thread
            if j != i and o["tid"] == e["tid"] and o["ts"] <= e["ts"] and \
                    e["ts"] + e["dur"] <= o["ts"] + o["dur"] and (o["dur"], j) != (e["dur"], i):
                if parent is None or o["dur"] < events[parent]["dur"]:
                    parent = j
        described.append({"name": e["name"], "keys": sorted(e.keys()), "ph": e["ph"],
                          "parent": None if parent is None else events[parent]["name"]})
    return {"form": type(events).__name__, "events": described}


if __name__ == "__main__":
    golden = {"torch": torch.__version__, "tables": tables(), "schedules": schedules(),
              "trace": trace(os.path.join(HERE, "_trace.json"))}
    with open(os.path.join(HERE, "profiler.json"), "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")
