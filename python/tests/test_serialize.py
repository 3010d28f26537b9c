"""ember.save / ember.load: files from torch.save load with their values, dtypes, order,
_metadata and storage sharing; what ember writes, torch.load reads (a subprocess with real
PyTorch, skipped with its reason where python3-torch is absent); weights_only both ways."""
import argparse
import collections
import io
import subprocess
import sys
import textwrap

import pytest

import ember as torch

FILES = __import__("pathlib").Path(__file__).resolve().parent / "golden" / "files"


def check_state_dict(sd):
    assert isinstance(sd, collections.OrderedDict)
    assert list(sd) == ["w", "w_t", "b", "h", "bf", "steps", "mask"]
    assert sd._metadata == collections.OrderedDict([("", {"version": 1}), ("layer", {"version": 2})])
    assert sd["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and sd["w"].dtype == torch.float32
    assert sd["w_t"].stride() == (1, 3)
    assert sd["b"].dtype == torch.float64 and sd["b"].tolist() == [0.0, 0.25, 0.5]
    assert sd["h"].dtype == torch.float16 and sd["h"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert sd["bf"].dtype == torch.bfloat16 and sd["bf"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert sd["steps"].item() == 7 and sd["steps"].dim() == 0
    assert sd["mask"].tolist() == [True, False, True]
    # One storage in the file is one storage after loading: a write shows through the view.
    sd["w"][0, 1] = 100.0
    assert sd["w_t"][1, 0].item() == 100.0


@pytest.mark.parametrize("weights_only", [True, False])
def test_loads_torch_save_state_dict(weights_only):
    check_state_dict(torch.load(FILES / "state_dict.pt", weights_only=weights_only))


def test_loads_torch_save_checkpoint_tree():
    ck = torch.load(str(FILES / "checkpoint.pt"), map_location="cpu")
    assert ck["epoch"] == 3 and ck["loss"] == 0.25 and ck["name"] == "run" and ck["none"] is None
    assert ck["shape"] == (2, 3) and isinstance(ck["shape"], tuple)
    assert ck["list"] == [1, 2.5, "x", True]
    check_state_dict(ck["model"])


def test_weights_only_refuses_other_objects_and_false_unpickles_them():
    with pytest.raises(RuntimeError, match="argparse"):
        torch.load(FILES / "namespace.pt", weights_only=True)
    ck = torch.load(FILES / "namespace.pt", weights_only=False)
    assert isinstance(ck["args"], argparse.Namespace) and ck["args"].lr == 0.1
    assert ck["w"].tolist() == [0.0, 1.0, 2.0]
    assert ck["device"] == torch.device("cpu")
    assert ck["size"] == (2, 3)


def test_round_trip_path_and_file_object(tmp_path):
    a = torch.arange(12.0).reshape(3, 4)
    obj = {"a": a, "row": a[1], "nested": [(1, "two", None), {"x": 2.5}], "flag": False}
    torch.save(obj, tmp_path / "obj.pt")
    back = torch.load(tmp_path / "obj.pt")
    assert back["a"].tolist() == a.tolist() and back["row"].tolist() == a[1].tolist()
    assert back["nested"] == [(1, "two", None), {"x": 2.5}] and back["flag"] is False
    back["a"][1, 0] = -1.0  # the view still shares the saved storage
    assert back["row"][0].item() == -1.0

    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    again = torch.load(buf)
    assert again["a"].tolist() == a.tolist()


def test_unsupported_objects_are_a_type_error(tmp_path):
    with pytest.raises(TypeError, match="set"):
        torch.save({"s": {1, 2}}, tmp_path / "x.pt")


def test_missing_or_corrupt_file_is_a_clear_error(tmp_path):
    with pytest.raises(RuntimeError):
        torch.load(tmp_path / "absent.pt")
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a zip at all")
    with pytest.raises(RuntimeError):
        torch.load(bad)


def real_torch_available():
    r = subprocess.run(["/usr/bin/python3", "-c", "import torch"], capture_output=True)
    return r.returncode == 0


@pytest.mark.skipif(not real_torch_available(), reason="PyTorch (python3-torch) is not installed: "
                    "scripts/bootstrap.sh --golden installs it")
def test_torch_load_reads_what_ember_saves(tmp_path):
    w = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    sd = collections.OrderedDict([("w", w), ("w_t", w.t()), ("i", torch.tensor([1, 2], dtype=torch.int32)),
                                  ("bf", torch.arange(3, dtype=torch.bfloat16))])
    torch.save({"model": sd, "epoch": 5, "name": "e"}, tmp_path / "e.pt")
    script = textwrap.dedent("""
        import sys, torch
        ck = torch.load(sys.argv[1], weights_only=True)
        sd = ck["model"]
        assert type(sd).__name__ == "OrderedDict" and list(sd) == ["w", "w_t", "i", "bf"]
        assert sd["w"].tolist() == [[0., 1., 2.], [3., 4., 5.]]
        assert sd["i"].dtype == torch.int32 and sd["bf"].dtype == torch.bfloat16
        sd["w"][0, 1] = 9.0
        assert sd["w_t"][1, 0].item() == 9.0, "storage sharing lost"
        assert ck["epoch"] == 5 and ck["name"] == "e"
        print("ok")
    """)
    r = subprocess.run(["/usr/bin/python3", "-c", script, str(tmp_path / "e.pt")], capture_output=True,
                       text=True, timeout=120)
    assert r.stdout.strip() == "ok", r.stderr
