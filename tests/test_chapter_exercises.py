"""Every chapter has an executable exercise (CHAPTER.md §10, issue 31): a scaffold cell that calls a check from
the chapter's package, and a solution cell tagged `hide-cell` and `solution` that asserts the same check, so that
CI runs it. Notebooks are read only."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
STEMS = [e["file"].removeprefix("notebooks/") for part in TOC["parts"] for e in part["chapters"]
         if e["file"].startswith("notebooks/")]
CHECK = re.compile(r"\b(\w+)\.exercises\.(check_\w+)\(")


def _code_cells(stem):
    nb = json.loads((ROOT / "notebooks" / f"{stem}.ipynb").read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            yield src, cell.get("metadata", {}).get("tags", [])


@pytest.mark.parametrize("stem", STEMS)
def test_every_chapter_has_a_scaffold_and_an_asserted_hidden_solution(stem):
    cells = list(_code_cells(stem))
    scaffolds = {m.groups() for src, tags in cells if "solution" not in tags
                 and "NotImplementedError" in src for m in CHECK.finditer(src)}
    assert scaffolds, f"{stem}: no scaffold cell (raises NotImplementedError, then calls <pkg>.exercises.check_*)"
    solved = set()
    for src, tags in cells:
        if "solution" in tags:
            assert "hide-cell" in tags, f"{stem}: a solution cell must be tagged hide-cell too"
            solved |= {m.groups() for m in re.finditer(r"assert\s+(\w+)\.exercises\.(check_\w+)\(", src)}
    missing = scaffolds - solved
    assert not missing, f"{stem}: no hidden solution cell asserts {sorted(missing)}"
