"""The book speaks in its own voice: no sentence a reader sees names this project's working process ("the brief",
"the prototype", "equations not read", "the book's search tools", an issue number) instead of saying what a claim
is compared with. Checked in the sources, so that CI catches it without building the site or starting Chromium:
every notebook cell, the claim records' text in each chapter's ``reproduction.py``, and the book's pages.
The built site is checked for the same words in tests/browser/test_reader.py."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the same list as PROCESS_WORDS in tests/browser/test_reader.py
PROCESS_WORDS = re.compile(r"\bissues?\b|\bthe brief\b|\bresearch brief|\bbrief's\b|\bprototype|\bnot (?:be )?read\b"
                           r"|\bcould not read\b|\bsearch tools\b|\blow-trust\b", re.I)
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
REPRODUCTIONS = sorted((ROOT / "src" / "neurips24").rglob("reproduction.py"))
# the written pages; status.md and claims_tested.md are generated from the claim records (checked at their source)
PAGES = sorted(p for p in (ROOT / "book").glob("*.md") if p.name not in ("status.md", "claims_tested.md"))


def _hits(text: str) -> list[str]:
    return [text[max(0, m.start() - 50):m.end() + 30].replace("\n", " ") for m in PROCESS_WORDS.finditer(text)]


def test_the_sources_are_found():
    assert len(NOTEBOOKS) >= 15 and len(REPRODUCTIONS) >= 10 and PAGES


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_cells_have_no_process_wording(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    text = "\n".join("".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in cells)
    assert not _hits(text), f"{path.name}: process wording: {_hits(text)[:3]}"


@pytest.mark.parametrize("path", REPRODUCTIONS, ids=lambda p: p.parent.name)
def test_claim_texts_have_no_process_wording(path):
    hits = _hits(path.read_text(encoding="utf-8"))
    assert not hits, f"{path.relative_to(ROOT)}: process wording: {hits[:3]}"


@pytest.mark.parametrize("path", [*PAGES, ROOT / "book" / "references.bib"], ids=lambda p: p.name)
def test_book_pages_have_no_process_wording(path):
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".bib":   # comments (% lines) are not printed
        text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("%"))
    hits = _hits(text)
    assert not hits, f"{path.name}: process wording: {hits[:3]}"


@pytest.mark.parametrize("text", ["equations not read", "its tables not read", "prototype: 0.739 -> 0.815",
                                  "as the brief says", "the book's search tools", "which we could not read",
                                  "the paper's body could not be read", "see issue 42", "(low-trust caption)"])
def test_the_pattern_catches_the_known_phrasings(text):
    assert PROCESS_WORDS.search(text)


@pytest.mark.parametrize("text", ["the paper's abstract; Table 2 not compared", "not known here", "a briefing",
                                  "do not look for ImageNet semantics", "the readout"])
def test_the_pattern_leaves_plain_wording_alone(text):
    assert not PROCESS_WORDS.search(text)
