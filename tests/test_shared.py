"""The shared modules: run scale, array backend, seeding, ``show``, claims, style."""
from __future__ import annotations

import json
import random
import time

import numpy as np
import pytest

from neurips24 import backend, claims, scale, seed_everything, show
from neurips24.scale import SCALES, check_scale

# --- scale -----------------------------------------------------------------------------------------------


def test_scale_defaults_to_fast():
    assert scale() == "fast"


@pytest.mark.parametrize(("env", "expected"), [("fast", "fast"), ("full", "full"), (" FULL ", "full"),
                                               ("", "fast")])
def test_scale_reads_the_environment(monkeypatch, env, expected):
    monkeypatch.setenv("NEURIPS24_SCALE", env)
    assert scale() == expected


def test_scale_rejects_unknown_value_and_lists_valid_ones(monkeypatch):
    monkeypatch.setenv("NEURIPS24_SCALE", "medium")
    with pytest.raises(ValueError, match="medium") as info:
        scale()
    assert "fast" in str(info.value) and "full" in str(info.value)


def test_check_scale():
    assert SCALES == ("fast", "full")
    assert check_scale("fast") == "fast"
    assert check_scale("full") == "full"
    with pytest.raises(ValueError, match="fast") as info:
        check_scale("FAST ")
    assert "full" in str(info.value)


# --- backend ---------------------------------------------------------------------------------------------


def test_device_cpu_and_array_module():
    assert backend.device("cpu") == "cpu"
    assert backend.array_module("cpu") is np


def test_device_reads_environment(monkeypatch):
    monkeypatch.setenv("NEURIPS24_DEVICE", "cpu")
    assert backend.device() == "cpu"
    monkeypatch.setenv("NEURIPS24_DEVICE", "bogus")
    with pytest.raises(ValueError, match="bogus"):
        backend.device()


def test_device_auto_falls_back_to_cpu_without_gpu():
    expected = "gpu" if backend.gpu_available() else "cpu"
    assert backend.device("auto") == expected
    assert backend.device() == expected


def test_device_rejects_unknown_value():
    with pytest.raises(ValueError, match="bogus"):
        backend.device("bogus")


def test_device_gpu_without_gpu_raises():
    if backend.gpu_available():
        pytest.skip("a GPU is present")
    with pytest.raises(RuntimeError, match="cupy"):
        backend.device("gpu")


def test_to_numpy_copies_plain_arrays():
    a = [1.0, 2.0]
    out = backend.to_numpy(a)
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, [1.0, 2.0])


# --- seeding ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [1.5, "a", True, None])
def test_seed_everything_type_errors(bad):
    with pytest.raises(TypeError):
        seed_everything(bad)


def test_seed_everything_rejects_negative():
    with pytest.raises(ValueError, match="-1"):
        seed_everything(-1)


def test_seed_everything_same_seed_same_draws():
    import torch

    rng = seed_everything(123)
    a = (rng.standard_normal(5), random.random(), torch.rand(3))
    rng = seed_everything(np.int64(123))
    b = (rng.standard_normal(5), random.random(), torch.rand(3))
    np.testing.assert_array_equal(a[0], b[0])
    assert a[1] == b[1]
    assert torch.equal(a[2], b[2])
    # and the NumPy generator is the documented one, default_rng(seed)
    np.testing.assert_array_equal(a[0], np.random.default_rng(123).standard_normal(5))
    rng = seed_everything(124)
    assert not np.array_equal(rng.standard_normal(5), a[0])


# --- show ------------------------------------------------------------------------------------------------


def test_show_returns_highlighted_source():
    from IPython.display import Code

    from neurips24.scale import scale as scale_fn

    out = show(scale_fn)
    assert isinstance(out, Code)
    assert "def scale" in out.data
    assert "NEURIPS24_SCALE" in out.data          # the docstring is there by default
    assert "return value" in out.data


def test_show_without_docstring_keeps_the_body():
    import ast

    from neurips24.scale import scale as scale_fn

    src = show(scale_fn, docstring=False).data
    assert "def scale" in src
    assert '"""' not in src
    assert "The run scale chosen" not in src
    assert "os.environ.get(ENV_VAR" in src and "return value" in src
    node = ast.parse(src).body[0]
    assert ast.get_docstring(node) is None


def test_show_without_docstring_on_decorated_function_and_method():
    from neurips24.cuda import raw_kernel
    from neurips24.fno.model import SpectralLayer

    src = show(raw_kernel, docstring=False).data
    assert src.startswith("@cache\ndef raw_kernel")
    assert "cupy.RawKernel" in src and "A ``cupy.RawKernel``" not in src
    src = show(SpectralLayer.forward, docstring=False).data
    assert src.startswith("def forward")
    src = show(SpectralLayer, docstring=False).data
    assert src.startswith("class SpectralLayer") and "def forward" in src and "Z ↦ W" not in src


@pytest.mark.parametrize("bad", [3, "text", len])
def test_show_type_error(bad):
    with pytest.raises(TypeError):
        show(bad)


# --- claims ----------------------------------------------------------------------------------------------


def _records(tmp_path, chapter):
    path = tmp_path / "claims" / f"{chapter}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_claims_dir_comes_from_environment(tmp_path):
    assert claims.claims_dir() == tmp_path / "claims"


def test_check_records_a_json_line(tmp_path, capsys):
    rec = claims.check("demo.gain", claim="gain is about 2", measured=np.float64(2.05),
                       paper=2, holds=True)
    fields = {"chapter", "claim_id", "claim", "measured", "paper", "holds", "scale", "time", "elapsed_s"}
    assert set(rec) == fields
    (line,) = _records(tmp_path, "demo")
    assert line == rec
    assert line["chapter"] == "demo" and line["claim_id"] == "demo.gain"
    assert line["measured"] == pytest.approx(2.05) and type(line["measured"]) is float
    assert line["paper"] == 2 and line["holds"] is True and line["scale"] == "fast"
    assert len(line["time"]) == 19 and line["time"][4] == "-" and line["time"][10] == "T"
    assert "[PASS] demo.gain" in capsys.readouterr().out


def test_check_records_seconds_since_import(monkeypatch):
    monkeypatch.setattr(claims, "_T0", time.perf_counter() - 42.0)   # as if neurips24 was imported 42 s ago
    rec = claims.check("demo.t", claim="c", measured=1, paper=1, holds=True)
    assert 42.0 <= rec["elapsed_s"] < 45.0


def test_check_converts_numpy_values(tmp_path):
    measured = {"a": np.arange(3), "b": [np.float32(0.5), np.int64(7)], 3: np.array([[1.0, 2.0]])}
    claims.check("demo.arrays", claim="c", measured=measured, paper=np.float64(1.5), holds=True,
                 scale="full")
    (line,) = _records(tmp_path, "demo")
    assert line["measured"] == {"a": [0, 1, 2], "b": [0.5, 7], "3": [[1.0, 2.0]]}
    assert line["paper"] == 1.5 and line["scale"] == "full"


def test_check_failing_claim_is_recorded_then_raises(tmp_path, capsys):
    with pytest.raises(AssertionError, match="demo.bad"):
        claims.check("demo.bad", claim="c", measured=0.1, paper=1.0, holds=False)
    (line,) = _records(tmp_path, "demo")
    assert line["holds"] is False and line["claim_id"] == "demo.bad"
    assert "[FAIL]" in capsys.readouterr().out


@pytest.mark.parametrize("bad_id", ["nodot", ".x", "x.", ""])
def test_check_rejects_claim_id_without_chapter(tmp_path, bad_id):
    with pytest.raises(ValueError):
        claims.check(bad_id, claim="c", measured=1, paper=1, holds=True)
    assert not (tmp_path / "claims").exists() or not list((tmp_path / "claims").iterdir())


@pytest.mark.parametrize("bad", ["yes", 1, None, np.array([True])])
def test_check_rejects_non_bool_holds(tmp_path, bad):
    with pytest.raises(TypeError):
        claims.check("demo.x", claim="c", measured=1, paper=1, holds=bad)
    assert not (tmp_path / "claims" / "demo.jsonl").exists()


def test_check_accepts_numpy_bool(tmp_path):
    rec = claims.check("demo.np", claim="c", measured=1, paper=1, holds=np.bool_(True))
    assert rec["holds"] is True
    with pytest.raises(AssertionError):
        claims.check("demo.np", claim="c", measured=1, paper=1, holds=np.float64(0.5) > 1)
    assert [r["holds"] for r in _records(tmp_path, "demo")] == [True, False]


def test_load_returns_latest_record_per_claim():
    claims.check("ch1.a", claim="c", measured=1, paper=1, holds=True)
    claims.check("ch1.b", claim="c", measured=2, paper=2, holds=True)
    with pytest.raises(AssertionError):
        claims.check("ch1.a", claim="c", measured=3, paper=1, holds=False)
    claims.check("ch2.z", claim="c", measured=4, paper=4, holds=True)
    all_records = claims.load()
    assert [(r["claim_id"], r["measured"], r["holds"]) for r in all_records] == [
        ("ch1.a", 3, False), ("ch1.b", 2, True), ("ch2.z", 4, True)]
    assert [r["claim_id"] for r in claims.load("ch2")] == ["ch2.z"]
    assert claims.load("missing") == []


def test_load_on_empty_folder():
    assert claims.load() == []


# --- style -----------------------------------------------------------------------------------------------


def test_use_style_sets_white_background():
    import matplotlib as mpl

    from neurips24 import use_style
    from neurips24.style import PALETTE

    with mpl.rc_context():
        use_style()
        assert mpl.rcParams["figure.facecolor"] == "white"
        assert mpl.rcParams["axes.prop_cycle"].by_key()["color"] == PALETTE


def test_best_time_counts_sync_and_rejects_bad_repeat():
    import time

    import pytest

    from neurips24.timing import best_time

    calls = []
    t = best_time(lambda: calls.append(1), sync=lambda: time.sleep(0.01), repeat=2)
    assert len(calls) == 3          # warm-up + 2 timed calls
    assert t >= 0.009               # the sync's sleep is inside the timed region
    with pytest.raises(ValueError, match="repeat"):
        best_time(lambda: None, repeat=0)
