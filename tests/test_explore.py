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
