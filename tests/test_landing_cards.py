"""neurips24.landing: the badge line and thumbnail each landing card includes (book/_generated/<stem>.md)."""
from __future__ import annotations

import base64
import io
import json

import pytest
from PIL import Image

from neurips24 import landing


def _png(width: int, height: int, colour=(200, 30, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), colour).save(out, format="PNG")
    return out.getvalue()


def _notebook(path, cells):
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def _code(png: bytes | None = None, tags=()):
    outputs = [{"output_type": "display_data", "data": {"image/png": base64.b64encode(png).decode()},
                "metadata": {}}] if png else []
    return {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": "", "outputs": outputs,
            "execution_count": None}


def _rec(outcome, scale="fast", elapsed_s=None):
    rec = {"claim_id": "aa.x", "chapter": "aa", "outcome": outcome, "scale": scale}
    return rec if elapsed_s is None else {**rec, "elapsed_s": elapsed_s}


def test_claims_line_counts_each_outcome_at_fast_scale_and_the_run_time():
    recs = [_rec("pass", elapsed_s=10.0), _rec("pass", elapsed_s=41.6), _rec("not reproduced"), _rec("fail"),
            _rec("pass", scale="full")]
    assert landing.claims_line(recs) == ("{bdg-success}`2 of 4 claims hold` {bdg-warning}`1 not reproduced` "
                                         "{bdg-danger}`1 failed` 42 s at `fast` scale")
    assert landing.claims_line([_rec("pass")]) == "{bdg-success}`1 of 1 claims hold`"
    assert landing.claims_line([_rec("pass", scale="full")]) == "{bdg-secondary}`not run in this build`"


def test_figure_png_prefers_the_tagged_cell_then_the_first_image(tmp_path):
    first, tagged = _png(10, 5), _png(7, 7, (0, 0, 255))
    nb = _notebook(tmp_path / "a.ipynb", [_code(), _code(first), _code(tagged, tags=["thumbnail"])])
    assert landing.figure_png(nb) == tagged
    nb = _notebook(tmp_path / "b.ipynb", [_code(), _code(first), _code(_png(3, 3))])
    assert landing.figure_png(nb) == first
    assert landing.figure_png(_notebook(tmp_path / "c.ipynb", [_code()])) is None


def test_thumbnail_scales_down_to_the_width_keeping_the_aspect_and_leaves_small_images():
    small = Image.open(io.BytesIO(landing.thumbnail(_png(1200, 600), width=480)))
    assert small.size == (480, 240)
    assert Image.open(io.BytesIO(landing.thumbnail(_png(100, 40)))).size == (100, 40)


@pytest.mark.parametrize("width", [0, 15, 480.0, "480"])
def test_thumbnail_rejects_a_bad_width(width):
    with pytest.raises(ValueError, match="width"):
        landing.thumbnail(_png(20, 20), width=width)


def test_bad_inputs_raise_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="png"):
        landing.thumbnail(b"not an image")
    bad = tmp_path / "bad.ipynb"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="notebook"):
        landing.figure_png(bad)
    with pytest.raises(FileNotFoundError):
        landing.figure_png(tmp_path / "missing.ipynb")


def test_write_cards_writes_a_line_and_a_thumbnail_per_chapter(tmp_path):
    (tmp_path / "notebooks").mkdir()
    _notebook(tmp_path / "notebooks" / "alpha.ipynb", [_code(_png(900, 300))])
    _notebook(tmp_path / "notebooks" / "beta.ipynb", [_code()])              # not executed: no thumbnail
    chapters = [{"doc": "notebooks/alpha", "title": "Alpha", "prefixes": {"aa"}},
                {"doc": "notebooks/beta", "title": "Beta", "prefixes": {"bb"}}]
    paths = landing.write_cards([_rec("pass", elapsed_s=3.0)], chapters, tmp_path)
    alpha, beta = (p.read_text() for p in paths)
    assert alpha.startswith("{bdg-success}`1 of 1 claims hold` 3 s at `fast` scale")
    assert "```{image} /book/_generated/thumbs/alpha.png" in alpha
    assert Image.open(tmp_path / "book" / "_generated" / "thumbs" / "alpha.png").size == (480, 160)
    assert beta.startswith("{bdg-secondary}`not run in this build`") and "image" not in beta
