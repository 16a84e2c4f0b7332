"""benchmarks/cell_times.py reads the per-cell timings nbclient records and marks cells over the limit."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("cell_times", ROOT / "benchmarks" / "cell_times.py")
cell_times = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cell_times)


def _cell(source, start=None, end=None):
    meta = {"execution": {"iopub.execute_input": start, "shell.execute_reply": end}} if start else {}
    return {"cell_type": "code", "metadata": meta, "source": source, "outputs": [], "execution_count": None}


def test_slowest_cells_and_the_limit(tmp_path, capsys):
    nb = {"cells": [_cell("import x", "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:01.500Z"),
                    {"cell_type": "markdown", "metadata": {}, "source": "text"},
                    _cell("train()\nmore", "2026-01-01T00:00:02.000Z", "2026-01-01T00:01:12.250Z"),
                    _cell("never ran")],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "chapter.ipynb"
    path.write_text(json.dumps(nb))
    assert cell_times.cell_seconds(path) == [(1, 1.5, "import x"), (2, 70.25, "train()")]
    assert cell_times.main([str(path), "--top", "1"]) == 0
    out = capsys.readouterr().out
    assert "chapter" in out and "71.8" in out and "#2: 70.2 OVER LIMIT (train())" in out
