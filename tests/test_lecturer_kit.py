"""The lecturer's kit (book/lecturer_kit.md) has a section for every chapter of the toc, and the discussion
questions it answers are word for word those of the seminar guide (book/seminar.md). Files are read only."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
KIT = (ROOT / "book" / "lecturer_kit.md").read_text(encoding="utf-8")
SEMINAR = (ROOT / "book" / "seminar.md").read_text(encoding="utf-8")
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
STEMS = [e["file"].removeprefix("notebooks/") for part in TOC["parts"] for e in part["chapters"]
         if e["file"].startswith("notebooks/")]


def _sections() -> dict[str, str]:
    """{chapter stem: its '## ' section of the kit} for each section whose Chapter line links a notebook."""
    out = {}
    for block in re.split(r"^(?=## )", KIT, flags=re.M)[1:]:
        m = re.search(r"\*\*Chapter:\*\* \{doc\}`\.\./notebooks/([\w\-]+)`", block)
        if m:
            out[m.group(1)] = block
    return out


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("stem", STEMS)
def test_every_chapter_has_a_kit_section_with_objectives_answers_and_pitfalls(stem):
    section = _sections().get(stem)
    assert section, f"book/lecturer_kit.md has no section for notebooks/{stem}"
    for part in ("Objectives", "Prerequisites", "Discussion", "Point at", "Pitfalls"):
        assert part in section, f"the kit's section for {stem} has no {part!r} part"
    assert ":::{dropdown} Answer" in section


@pytest.mark.parametrize("stem", STEMS)
def test_the_kit_quotes_the_seminar_guides_questions_word_for_word(stem):
    section = _sections().get(stem, "")
    quotes = re.findall(r"^> \*\*\d+\.\*\* (.+?)(?=\n(?!> )|\Z)", section, flags=re.M | re.S)
    assert quotes, f"no quoted question in the kit's section for {stem}"
    seminar = _flat(SEMINAR)
    for q in quotes:
        text = _flat(re.sub(r"^> ?", "", q, flags=re.M))
        assert text in seminar, f"{stem}: the kit quotes a question the seminar guide does not have: {text[:80]}"
