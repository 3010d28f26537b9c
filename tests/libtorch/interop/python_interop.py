#!/usr/bin/env python3
"""torch::save and Python's torch.save read each other (CTest libtorch_python_interop).

Python writes a state dict, an optimizer state dict and a list of tensors; the LibTorch program
torch_save_python.cpp, built against the installed layer with its pkg-config line, loads them and
writes its own files with torch::save; Python then loads those with torch.load and checks every
value against what the program printed and against PyTorch's own computation:
    python_interop.py --prefix <installed ember> --cxx c++ --work <dir>
Needs /usr/bin/python3 with torch (scripts/bootstrap.sh --golden).
"""
import argparse
import collections
import glob
import io
import os
import pathlib
import subprocess
import sys

import torch

HERE = pathlib.Path(__file__).resolve().parent
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def close(a, b, rtol=1e-5, atol=1e-6):
    return torch.allclose(torch.as_tensor(a, dtype=torch.float64),
                          torch.as_tensor(b, dtype=torch.float64), rtol=rtol, atol=atol)


def make_model():
    return torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2))


def train(model, optimizer, data, steps):
    for _ in range(steps):
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(data[0]), data[1]).backward()
        optimizer.step()


def params_sum(model):
    return sum(p.detach().double().sum().item() for p in model.parameters())


def write_python_files():
    """The files the program reads (a model and its Adam after 2 steps, the data); returns what
    Python expects of them."""
    torch.manual_seed(0)
    model = make_model()
    data = [torch.randn(8, 4), torch.randn(8, 2)]
    adam = torch.optim.Adam(model.parameters(), lr=1e-2)
    train(model, adam, data, 2)
    torch.save(model.state_dict(), "from_python_model.pt")
    torch.save(adam.state_dict(), "from_python_adam.pt")
    torch.save(data, "from_python_data.pt")
    probe = torch.arange(8, dtype=torch.float32).view(2, 4) / 10
    with torch.no_grad():
        output = model(probe)
    train(model, adam, data, 2)
    return {"output": output, "resumed_sum": params_sum(model), "data": data, "probe": probe}


def build_and_run(args):
    pc = glob.glob(os.path.join(args.prefix, "**", "ember-libtorch.pc"), recursive=True)
    if not pc:
        sys.exit(f"no ember-libtorch.pc under {args.prefix}")
    pc_dir = os.path.dirname(pc[0])
    env = dict(os.environ, PKG_CONFIG_PATH=pc_dir)
    binary = os.path.join(args.work, "torch_save_python")
    build = (f"{args.cxx} -std=c++20 {HERE / 'torch_save_python.cpp'} "
             f"$(pkg-config --cflags --libs ember-libtorch) -o {binary}")
    subprocess.run(["sh", "-c", build], env=env, check=True)
    env["LD_LIBRARY_PATH"] = os.path.dirname(pc_dir)
    run = subprocess.run([binary], env=env, cwd=args.work, capture_output=True, text=True)
    print(run.stdout, end="")
    if run.returncode != 0:
        sys.exit(f"torch_save_python exited with {run.returncode}:\n{run.stderr}")
    printed = {}
    for line in run.stdout.splitlines():
        name, _, value = line.partition(": ")
        printed[name] = value
    return printed


def numbers(text):
    return [float(v) for v in text.split()]


def check_program_reads(printed, expected):
    check(close(numbers(printed["python_model_output"]), expected["output"].flatten()),
          "torch::load(model) of Python's state dict: same outputs")
    check(close(float(printed["python_adam_resumed_sum"]), expected["resumed_sum"], rtol=1e-5),
          "torch::load(optimizer) of Python's Adam state dict: 2 more steps as in Python")
    message = printed["shape_mismatch"]
    check("0.weight" in message and "[5, 4]" in message and "[6, 4]" in message,
          f"a shape mismatch names the key and both shapes: {message}")
    message = printed["missing_key"]
    check("3.weight" in message and "missing" in message,
          f"a missing key is named: {message}")


def check_python_reads(printed, expected):
    probe, data = expected["probe"], expected["data"]
    state = torch.load("to_python_model.pt", weights_only=True)
    check(isinstance(state, collections.OrderedDict)
          and list(state) == ["0.weight", "0.bias", "2.weight", "2.bias"],
          f"torch::save(model) is an OrderedDict state dict: {list(state)}")
    model = make_model()
    model.load_state_dict(state)
    with torch.no_grad():
        check(close(model(probe).flatten(), numbers(printed["model_output"])),
              "Python's model with the saved state dict gives the program's outputs")

    tensor = torch.load("to_python_tensor.pt", weights_only=True)
    check(torch.equal(tensor, torch.arange(12, dtype=torch.float32).view(3, 4) * 0.5),
          "torch::save(tensor) is that tensor")
    tensors = torch.load("to_python_list.pt", weights_only=True)
    check(isinstance(tensors, list) and len(tensors) == 2 and torch.equal(tensors[0], torch.ones(2))
          and tensors[1].dtype == torch.int64 and tensors[1].tolist() == [0, 1, 2],
          "torch::save(vector<Tensor>) is a list of the tensors")

    trained = make_model()
    trained.load_state_dict(torch.load("to_python_trained.pt", weights_only=True))
    adam = torch.optim.Adam(trained.parameters(), lr=5e-3)
    # Not weights_only: PyTorch 1.13's weights-only reader has no floats (BINFLOAT), so it
    # refuses the optimizer state dicts of Python's own torch.save as well.
    saved = torch.load("to_python_adam.pt")
    check(sorted(saved) == ["param_groups", "state"] and len(saved["state"]) == 4,
          "torch::save(optimizer) is an optimizer state dict")
    adam.load_state_dict(saved)
    train(trained, adam, data, 1)
    check(close(params_sum(trained), float(printed["adam_next_step_sum"]), rtol=1e-5),
          "Python's Adam with the saved state takes the program's next step")
    sgd = torch.load("to_python_sgd.pt")
    group = sgd["param_groups"][0]
    check(group["lr"] == 0.1 and group["momentum"] == 0.9
          and all("momentum_buffer" in s for s in sgd["state"].values()),
          "torch::save(SGD) has its options and momentum buffers")

    with open("to_python_pickle.pt", "rb") as f:
        pickled = torch.load(io.BytesIO(f.read()), weights_only=True)
    check(torch.equal(pickled, torch.full((2, 2), 1.5)), "pickle_save's bytes load in Python")
    archive = torch.load("to_python_archive.pt", weights_only=True)
    check(archive["epoch"] == 3 and torch.equal(archive["weights"], torch.ones(2, 3))
          and torch.equal(archive["head"]["bias"], torch.zeros(3)),
          "an OutputArchive is a dict (nested archives: nested dicts)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--cxx", default="c++")
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    args.prefix, args.work = os.path.abspath(args.prefix), os.path.abspath(args.work)
    os.makedirs(args.work, exist_ok=True)
    os.chdir(args.work)
    expected = write_python_files()
    printed = build_and_run(args)
    check_program_reads(printed, expected)
    check_python_reads(printed, expected)
    if failures:
        sys.exit(f"{len(failures)} check(s) failed")


if __name__ == "__main__":
    main()
