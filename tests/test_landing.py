"""The landing page (book/intro.md) shows the book: one sphinx-design card per chapter that _toc.yml lists,
grouped by the toc's parts, each linking to its chapter, to the paper (the URL of book/references.bib) and to
the chapter's notebook in Colab at this release. Files are read, nothing is built."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

import neurips24

ROOT = Path(__file__).resolve().parents[1]
INTRO = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
REPO = CONFIG["repository"]["url"].removeprefix("https://github.com/")
BIB_URLS = dict(re.findall(r"@\w+\{(\w+),.*?url\s*=\s*\{([^}]+)\}",
                           (ROOT / "book" / "references.bib").read_text(encoding="utf-8"), re.S))
# (part caption, chapter stem) for every notebook the toc lists
CHAPTERS = [(part["caption"], entry["file"].removeprefix("notebooks/"))
            for part in TOC["parts"] for entry in part["chapters"] if entry["file"].startswith("notebooks/")]


def _cards() -> dict[str, tuple[str, str]]:
    """{chapter stem: (the part heading above its card, the card's text)} for each card linking to a chapter."""
    cards, part = {}, None
    for block in re.split(r"^(?=###\s|:::\{grid-item-card\})", INTRO, flags=re.M):
        if block.startswith("###"):
            part = block.splitlines()[0].removeprefix("###").strip()
        elif block.startswith(":::{grid-item-card}"):
            card = block.split("\n:::\n")[0]
            for stem in re.findall(r"\{doc\}`[^`<]*<\.\./notebooks/([\w\-]+)>`", card):
                cards[stem] = (part, card)
    return cards


def test_the_toc_lists_chapters():
    assert CHAPTERS


def test_the_landing_page_replaced_the_plain_toc_by_cards():
    assert "{tableofcontents}" not in INTRO and "::::{grid}" in INTRO


@pytest.mark.parametrize("part, stem", CHAPTERS, ids=[s for _, s in CHAPTERS])
def test_every_chapter_has_a_card_under_its_part(part, stem):
    cards = _cards()
    assert stem in cards, f"book/intro.md has no card linking to notebooks/{stem} ({{doc}}`... <../notebooks/{stem}>`)"
    assert cards[stem][0] == part, f"the card of {stem} is under '{cards[stem][0]}', the toc puts it under '{part}'"


@pytest.mark.parametrize("part, stem", CHAPTERS, ids=[s for _, s in CHAPTERS])
def test_each_card_links_the_paper_and_colab(part, stem):
    card = _cards()[stem][1]
    if stem in BIB_URLS:
        assert f"[Paper]({BIB_URLS[stem]})" in card, f"{stem}: the Paper link should be the URL of references.bib"
    colab = (f"(https://colab.research.google.com/github/{REPO}/blob/v{neurips24.__version__}/colab/"
             f"{stem}.ipynb)")
    assert f"[![Open in Colab](_static/colab-badge.svg)]{colab}" in card, f"{stem}: no local Colab badge to {colab}"


@pytest.mark.parametrize("part, stem", CHAPTERS, ids=[s for _, s in CHAPTERS])
def test_every_card_includes_its_claims_line_and_thumbnail(part, stem):
    """neurips24.landing writes book/_generated/<stem>.md at each build (python -m neurips24.status)."""
    _, card = _cards()[stem]
    assert f"```{{include}} _generated/{stem}.md\n```" in card


def test_run_times_page_from_the_records(tmp_path):
    from neurips24 import landing

    chapters = [{"doc": "notebooks/a", "title": "A `x`", "prefixes": {"aa"}},
                {"doc": "notebooks/b", "title": "B", "prefixes": {"bb"}}]
    records = [{"chapter": "aa", "scale": "fast", "elapsed_s": 41.2}, {"chapter": "aa", "scale": "fast",
                                                                       "elapsed_s": 77.6},
               {"chapter": "aa", "scale": "full", "elapsed_s": 900.0}]
    text = landing.write_times(records, chapters, tmp_path).read_text()
    assert "| {doc}`A x </notebooks/a>` | 78 s |" in text and "| {doc}`B </notebooks/b>` | not run |" in text
    assert "ran in 78–78 s each" in text and "Colab adds the install" in text
    empty = landing.write_times([], chapters, tmp_path).read_text()
    assert "have not run in this build" in empty
