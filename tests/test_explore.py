"""neurips24.interact: live controls in Jupyter, none in unattended runs."""
import os

import pytest

import neurips24


def test_interact_is_off_when_widgets_disabled(monkeypatch, capsys):
    monkeypatch.setenv("NEURIPS24_WIDGETS", "0")
    calls = []
    assert neurips24.interact(calls.append, x=3) is None
    assert calls == []
    assert "Live controls are off" in capsys.readouterr().out


def test_interact_builds_controls_by_default(monkeypatch):
    monkeypatch.delenv("NEURIPS24_WIDGETS", raising=False)
    seen = []

    def redraw(x):
        seen.append(x)

    neurips24.interact(redraw, x=(1, 5))
    assert seen == [3]          # ipywidgets.interact calls the function once with the slider's middle value


def test_interact_rejects_other_values(monkeypatch):
    monkeypatch.setenv("NEURIPS24_WIDGETS", "yes")
    with pytest.raises(ValueError, match="'0' or '1'"):
        neurips24.interact(print, x=1)


def test_unattended_runs_draw_no_progress_bar():
    """With NEURIPS24_WIDGETS=0, a chapter package's ``from tqdm.auto import tqdm`` gets a bar that prints nothing,
    even when the caller asks for one (disable=False); with the variable unset tqdm is untouched."""
    import subprocess
    import sys

    code = ("import neurips24\nfrom tqdm.auto import tqdm, trange\n"
            "total = sum(tqdm(range(5), disable=False)) + sum(trange(3, disable=False))\n"
            "print(total, tqdm.__module__)\n")
    quiet = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**os.environ, "NEURIPS24_WIDGETS": "0"})
    assert quiet.stdout.split() == ["13", "neurips24.explore"] and quiet.stderr == ""
    loud = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env={k: v for k, v in os.environ.items() if k != "NEURIPS24_WIDGETS"})
    assert loud.stdout.split()[0] == "13" and "100%" in loud.stderr


def _draw(seen):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def draw(a, b=1.0):
        seen.append((a, b))
        plt.figure(figsize=(1, 1))
        plt.plot([0, 1], [0, a * b])          # left open: frames() saves and closes it
    return draw


def test_sweep_draws_one_frame_per_value_under_a_slider(monkeypatch):
    """With the controls off, ``sweep`` draws the figure at each value (the other controls at their widgets'
    values) and displays the frames under a range slider; the default value's frame is the one not hidden."""
    import IPython.display
    import ipywidgets

    monkeypatch.setenv("NEURIPS24_WIDGETS", "0")
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, **kw: shown.append((obj, kw)))
    seen = []
    out = neurips24.interact(_draw(seen), sweep=("a", [1, 2, 3]),
                             a=ipywidgets.IntSlider(value=2, min=1, max=3, description="α"),
                             b=ipywidgets.FloatSlider(value=0.5))
    assert out is None and seen == [(1, 0.5), (2, 0.5), (3, 0.5)]
    assert len(shown) == 1 and "slider over α" in shown[0][1]["metadata"]["text/plain"]
    page = shown[0][0].data
    assert page.count("class='neurips24-sweep-frame'") == 3 and page.count("<img ") == 3
    assert "<input type='range' min='0' max='2' step='1' value='1'" in page and "<output>2</output>" in page
    frames = page.split("class='neurips24-sweep-frame'")[1:]
    assert [(" hidden" in f.split(">")[0]) for f in frames] == [True, False, True]
    assert "data:image/png;base64,iVBOR" in page            # PNG bytes
    assert "data-control='α'" in page


def test_sweep_is_ignored_where_controls_are_live(monkeypatch):
    import ipywidgets

    monkeypatch.delenv("NEURIPS24_WIDGETS", raising=False)
    seen = []
    neurips24.interact(_draw(seen), sweep=("a", [1, 2, 3]), a=ipywidgets.IntSlider(value=2, min=1, max=3))
    assert seen == [(2, 1.0)]                               # the live widget's first draw only


@pytest.mark.parametrize("sweep, error, match", [
    (("c", [1, 2]), ValueError, "not one of the controls"),
    (("a", [1]), ValueError, "2 to 12 values"),
    (("a", list(range(13))), ValueError, "2 to 12 values"),
    (["a", [1, 2]], TypeError, "pair"),
    ((1, [1, 2]), TypeError, "pair"),
])
def test_sweep_rejects_bad_input(monkeypatch, sweep, error, match):
    import ipywidgets

    monkeypatch.setenv("NEURIPS24_WIDGETS", "0")
    with pytest.raises(error, match=match):
        neurips24.interact(print, sweep=sweep, a=ipywidgets.IntSlider(value=1))


def test_sweep_needs_widgets_beside_it(monkeypatch):
    import ipywidgets

    monkeypatch.setenv("NEURIPS24_WIDGETS", "0")
    with pytest.raises(ValueError, match="pass a widget"):
        neurips24.interact(print, sweep=("a", [1, 2]), a=ipywidgets.IntSlider(value=1), b=(1, 5))


def test_the_slider_says_what_was_drawn_in_advance_and_what_stays_fixed():
    from neurips24.explore import sweep_html

    page = sweep_html("depth", [4, 8], [[b"a"], [b"b"]], 0, fixed={"width": 64, "σ²": 2.0})
    assert "Drawn in advance for depth = 4, 8; fixed: width = 64; σ² = 2." in page
    assert "every control is live" in page
