"""neurips24.interact: live controls in Jupyter, none in unattended runs."""
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
