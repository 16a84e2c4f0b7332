"""neurips24.glue: the value glued for myst-nb, and shown where MyST is not rendered (a plain kernel, Colab)."""
from __future__ import annotations

import builtins
import sys

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient

from neurips24 import glue

GLUE_MIME = "application/papermill.record/text/plain"   # what myst-nb's glue writes and its {glue} role reads


def test_glue_formats_and_prints_outside_unattended_runs(monkeypatch, capsys):
    monkeypatch.delenv("NEURIPS24_WIDGETS", raising=False)
    assert glue("ratio", np.float64(0.036214), fmt="{:.2g}") is None
    assert capsys.readouterr().out == "ratio = 0.036\n"


def test_glue_is_silent_in_unattended_runs(monkeypatch, capsys):
    monkeypatch.setenv("NEURIPS24_WIDGETS", "0")
    glue("count", 7)
    assert capsys.readouterr().out == ""


def test_glue_works_without_myst_nb(monkeypatch, capsys):
    monkeypatch.delenv("NEURIPS24_WIDGETS", raising=False)
    real_import = builtins.__import__

    def no_myst(name, *args, **kwargs):
        if name.startswith("myst_nb"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "myst_nb", raising=False)
    monkeypatch.setattr(builtins, "__import__", no_myst)
    glue("share", 0.25, fmt="{:.0%}")
    assert capsys.readouterr().out == "share = 25%\n"


@pytest.mark.parametrize("name, value, fmt", [("1abc", 1, None), ("a b", 1, None), ("", 1, None), (3, 1, None),
                                              ("ok", "text", "{:.2f}"), ("ok", 1.0, "{:d}"), ("ok", 1, "{0} {1}")])
def test_glue_rejects_bad_names_and_formats(name, value, fmt):
    with pytest.raises(ValueError):
        glue(name, value, fmt=fmt)


@pytest.mark.enable_socket   # the kernel talks to its client over local ZeroMQ sockets
def test_glued_value_in_a_plain_kernel_is_displayed_and_recorded_for_myst_nb(monkeypatch):
    monkeypatch.delenv("NEURIPS24_WIDGETS", raising=False)
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "from neurips24 import glue\nglue('gain', 1.23456, fmt='{:.3g}')")])
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    outputs = nb.cells[0].outputs
    assert any(o.output_type == "stream" and o.text == "gain = 1.23\n" for o in outputs)   # what a reader sees
    (record,) = [o for o in outputs if o.output_type == "display_data" and GLUE_MIME in o.data]
    assert record.data[GLUE_MIME] == "1.23" and record.metadata["scrapbook"]["name"] == "gain"
