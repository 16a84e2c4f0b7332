"""The shared modules: run scale, array backend, seeding, ``show``, claims, style."""
from __future__ import annotations

import random
import time

import numpy as np
import pytest

from neurips24 import backend, scale, seed_everything, show
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

    import pytest

    from neurips24.timing import best_time

    calls = []
    t = best_time(lambda: calls.append(1), sync=lambda: time.sleep(0.01), repeat=2)
    assert len(calls) == 3          # warm-up + 2 timed calls
    assert t >= 0.009               # the sync's sleep is inside the timed region
    with pytest.raises(ValueError, match="repeat"):
        best_time(lambda: None, repeat=0)


def test_min_text_pt_is_the_size_that_reads_at_9_px_after_scaling_to_the_column():
    from neurips24.style import min_text_pt

    assert min_text_pt(600, 100) == pytest.approx(9 * 72 / 100)           # not scaled: 6.48 pt at 100 dpi
    assert min_text_pt(1568, 100) == pytest.approx(9 * 72 / 50)           # shown at half size: twice the points
    for bad in (0, -1, float("nan"), float("inf"), "600"):
        with pytest.raises(ValueError, match="width_px"):
            min_text_pt(bad, 100)
    with pytest.raises(ValueError, match="dpi"):
        min_text_pt(600, 0)


def test_readable_raises_small_text_of_a_wide_figure_and_leaves_a_narrow_one():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from neurips24.style import min_text_pt, readable

    wide, axes = plt.subplots(1, 4, figsize=(16, 3), dpi=100)
    for ax in axes:
        ax.plot([0, 1], [0, 1], label="a line")
        ax.set_title("title", fontsize=7)
        ax.tick_params(labelsize=6)
        ax.legend(fontsize=7)
    readable(wide)
    wide.canvas.draw()
    width = wide.get_tightbbox(wide.canvas.get_renderer()).width * wide.dpi
    need = min_text_pt(width, wide.dpi)
    assert need > 9                                                       # a 16-inch figure is scaled down a lot
    sizes = [t.get_fontsize() for ax in axes for t in (ax.title, *ax.get_xticklabels(), *ax.get_yticklabels(),
                                                       *ax.get_legend().get_texts())]
    assert min(sizes) >= need * 0.97                                      # within the last pass's change
    narrow, ax = plt.subplots(figsize=(5, 3), dpi=100)
    ax.set_title("title", fontsize=8)
    readable(narrow)
    assert ax.title.get_fontsize() == 8                                   # 8 pt at 100 dpi is 11 px: kept
    plt.close("all")
    with pytest.raises(TypeError, match="Figure"):
        readable(axes[0])


def test_use_style_makes_ipython_draw_figures_readable(monkeypatch):
    import IPython
    from matplotlib.figure import Figure

    from neurips24 import style

    registered = {}

    class Formatter:
        def for_type(self, cls, func):
            registered[cls] = func

    class Shell:
        display_formatter = type("DF", (), {"formatters": {"image/png": Formatter()}})()

    monkeypatch.setattr(IPython, "get_ipython", lambda: Shell())
    style.use_style()
    assert registered[Figure] is style._png


def test_seeds_go_through_the_offset(monkeypatch):
    import neurips24
    from neurips24 import seeding

    monkeypatch.delenv("NEURIPS24_SEED_OFFSET", raising=False)
    assert (seeding.offset(), neurips24.seed(3), neurips24.seeds(3)) == (0, 3, (0, 1, 2))
    monkeypatch.setenv("NEURIPS24_SEED_OFFSET", "1000")
    assert (neurips24.seed(3), neurips24.seeds(2, start=5)) == (1003, (1005, 1006))
    a = neurips24.seed_everything(0).random()
    assert a == np.random.default_rng(1000).random()


@pytest.mark.parametrize("raw", ["-1", "abc", "1.5"])
def test_a_bad_seed_offset_is_refused(monkeypatch, raw):
    from neurips24 import seeding

    monkeypatch.setenv("NEURIPS24_SEED_OFFSET", raw)
    with pytest.raises(ValueError, match="NEURIPS24_SEED_OFFSET"):
        seeding.offset()


@pytest.mark.parametrize("call", [lambda s: s.seeds(0), lambda s: s.seeds(-2), lambda s: s.seed(-1)])
def test_bad_seed_counts_are_refused(call):
    from neurips24 import seeding

    with pytest.raises(ValueError):
        call(seeding)
