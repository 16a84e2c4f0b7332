"""make full (neurips24.fullscale): a chapter at full scale as a sweep job, its records and their date, machine and
commit written to full/, and shown by the status page."""
from __future__ import annotations

import json

import pytest

from neurips24 import fullscale, status


def _fake_notebook(root, stem, code):
    (root / "notebooks").mkdir(parents=True, exist_ok=True)
    cells = [{"cell_type": "markdown", "metadata": {}, "source": f"# {stem} title"},
             {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": code}]
    (root / "notebooks" / f"{stem}.ipynb").write_text(json.dumps(
        {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                     "language": "python"}}, "nbformat": 4, "nbformat_minor": 5}))


@pytest.mark.enable_socket   # the kernel talks to its client over local ZeroMQ sockets
def test_a_chapter_runs_at_full_scale_and_its_records_are_written_with_their_provenance(tmp_path):
    _fake_notebook(tmp_path, "demo", "import os\nfrom neurips24 import claims, scale\n"
                   "claims.check('demo.one', claim='c', measured=int(os.environ['NEURIPS24_SEED_OFFSET']), "
                   "paper=1, holds=scale() == 'full')")
    result = fullscale.run_chapter({"chapter": "demo", "root": str(tmp_path)}, 7)
    assert result["error"] is None and [r["claim_id"] for r in result["records"]] == ["demo.one"]
    assert result["records"][0]["scale"] == "full" and result["records"][0]["measured"] == 7
    path = fullscale.write_records("demo", result, tmp_path / "full", "make full CHAPTERS=demo", root=tmp_path)
    assert json.loads(path.read_text().splitlines()[0])["outcome"] == "pass"
    meta = fullscale.load_meta(tmp_path / "full")["demo"]
    assert meta["command"] == "make full CHAPTERS=demo" and meta["gpu"] == "none" and "cores" in meta["machine"]
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: book/intro\nparts:\n  - caption: P\n    chapters:\n"
                                       "      - file: notebooks/demo\n")
    page = status.render(status.load_records(tmp_path / "full"), status.toc_chapters(tmp_path),
                         full_meta=fullscale.load_meta(tmp_path / "full"))
    assert "Full-scale record:" in page and "make full CHAPTERS=demo" in page and "Ours (`full`)" in page


def test_a_missing_chapter_is_refused(tmp_path):
    with pytest.raises(ValueError, match="no chapter notebook"):
        fullscale.run_chapter({"chapter": "nope", "root": str(tmp_path)}, 0)


def test_make_full_runs_the_module_as_main(tmp_path):
    """``make full`` runs ``python -m neurips24.fullscale``: the job must be named by its importable module, not
    __main__ (a missing chapter is then reported as a failed job, exit status 1, and no record is written)."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "neurips24.fullscale", "no_such_chapter", "--scheduler", "serial",
                          "--cache", str(tmp_path / "cache"), "--out", str(tmp_path / "full")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 1, out.stderr
    assert "no chapter notebook" in out.stdout + out.stderr and "module-level function" not in out.stderr
    assert not (tmp_path / "full").exists()


def test_a_full_run_that_stopped_says_where():
    assert status._stopped({"error": None}) == ""
    text = status._stopped({"error": "Traceback ...\nAssertionError: claim 'x' now holds | here"})
    assert text.startswith(" The run stopped after these records: AssertionError: claim 'x' now holds")
    assert "\\|" in text and "\n" not in text   # a table cell's pipe is escaped, one line only
