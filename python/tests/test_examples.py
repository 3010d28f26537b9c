"""The Python examples (examples/python) run through ember's launchers on a slice of
Fashion-MNIST (Debian's dataset-fashion-mnist, which scripts/bootstrap.sh installs): the main job
trains and saves, and the reference's DDP program trains on 2 ranks, checkpoints on rank 0 and
resumes every rank from it."""
import os
import pathlib
import re
import subprocess

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"
BUILD = os.environ.get("EMBER_BUILD_DIR")
ENV = dict(os.environ, OMP_NUM_THREADS="1")


@pytest.mark.skipif(not BUILD, reason="EMBER_BUILD_DIR (set by CTest's python_tests) names the build")
def test_main_job_script_trains_and_saves(tmp_path):
    r = subprocess.run([os.path.join(BUILD, "python", "ember-python"), str(EXAMPLES / "train_fashion_mnist.py"),
                        "--epochs", "2", "--limit", "2048", "--val-limit", "512", "--threads", "1",
                        "--out", str(tmp_path / "model.pt")],
                       capture_output=True, text=True, timeout=300, env=ENV)
    assert r.returncode == 0, r.stdout + r.stderr
    epochs = re.findall(r"Epoch (\d): train_loss=([\d.]+), val_loss=[\d.]+, val_acc=([\d.]+)", r.stdout)
    assert [e[0] for e in epochs] == ["0", "1"], r.stdout
    assert float(epochs[1][1]) < float(epochs[0][1])  # it learns
    assert float(epochs[1][2]) > 0.6, r.stdout  # far above chance (0.1) after 4,096 images
    assert (tmp_path / "model.pt").stat().st_size > 400_000


@pytest.mark.skipif(not BUILD, reason="EMBER_BUILD_DIR (set by CTest's python_tests) names the build")
def test_ddp_script_trains_checkpoints_and_resumes(tmp_path):
    def run(epochs):
        return subprocess.run([os.path.join(BUILD, "tools", "ember-run"), "--standalone", "--nproc-per-node", "2",
                               str(EXAMPLES / "train_ddp.py"), "--epochs", str(epochs), "--limit", "2048"],
                              capture_output=True, text=True, timeout=300, cwd=str(tmp_path), env=ENV)

    first = run(1)
    assert first.returncode == 0, first.stdout + first.stderr
    assert re.search(r"^Epoch 0 Step 0 Loss [\d.]+$", first.stdout, re.M), first.stdout
    assert (tmp_path / "latest_checkpoint.pt").exists()
    second = run(2)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "Resumed from epoch 1" in second.stdout and "Epoch 0 " not in second.stdout
    assert re.search(r"^Epoch 1 Step 0 Loss [\d.]+$", second.stdout, re.M), second.stdout
