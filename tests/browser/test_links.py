"""The built HTML read as files (no browser): every internal link and anchor resolves, and the status page
lists every chapter with the numbers that the chapter's own reproduction checks showed, and glued numbers are
pasted into the prose (no raw ``{glue}`` role left)."""
from __future__ import annotations

import functools
import os
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

SITE = Path(os.environ["NEURIPS24_SITE"]).resolve()
PAGES = sorted(p for p in SITE.rglob("*.html") if not p.relative_to(SITE).parts[0].startswith(("_", ".")))
CHAPTERS = [p for p in PAGES if p.parent.name == "notebooks"]
EXTERNAL = ("http:", "https:", "mailto:", "data:", "javascript:", "tel:", "//")
# the status page's result column for each outcome a claim card can show (neurips24.claims, neurips24.status)
RESULT = {"pass": "PASS", "not reproduced": "NOT REPRODUCED", "not run here": "NOT RUN HERE"}


class _Page(HTMLParser):
    """The ids (anchors), the links (href/src) and the text of one HTML page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.links, self.text, self.cards, self.pasted = set(), [], [], [], 0
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.ids.update(v for k, v in attrs.items() if k in ("id", "name") and v)
        self.links += [v for k, v in attrs.items() if k in ("href", "src") and v and tag != "base"]
        self._skip += tag in ("script", "style")
        classes = (attrs.get("class") or "").split()
        if "claim-card" in classes:
            self.cards.append((attrs.get("data-claim-id"), attrs.get("data-outcome"), attrs.get("data-ours")))
        # a value pasted by the {glue} role: myst-nb renders it as <span class="output text_plain">
        self.pasted += tag == "span" and ("pasted-text" in classes or "text_plain" in classes)

    def handle_endtag(self, tag):
        self._skip -= tag in ("script", "style") and self._skip > 0

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)


@functools.cache
def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.relative_to(SITE).as_posix())
def test_internal_links_and_anchors_resolve(path):
    broken = []
    for link in _parse(path).links:
        if link.startswith(EXTERNAL):
            continue
        parts = urlsplit(link)
        target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file() or SITE not in target.parents:
            broken.append(f"{link} (no file {target})")
        elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in _parse(target).ids:
            broken.append(f"{link} (no anchor #{parts.fragment} in {target.relative_to(SITE)})")
    assert not broken, broken


def _text(path: Path) -> str:
    return "".join(_parse(path).text)


def test_status_page_lists_every_chapter():
    status = SITE / "book" / "status.html"
    links = {(status.parent / unquote(urlsplit(link).path)).resolve() for link in _parse(status).links}
    assert CHAPTERS, "the site has no chapter"
    missing = [p.name for p in CHAPTERS if p not in links]
    assert not missing, f"chapters the status page does not list: {missing}"


def test_status_page_overview_finds_every_chapters_claims():
    """A chapter that ran and recorded its checks is never 'not run' in the overview (its claim-id prefix was not
    matched to its notebook once: four chapters read 'not run' beside their own ledgers)."""
    status = " ".join(_text(SITE / "book" / "status.html").split())
    assert not re.search(r"\bnot run — —", status), "a chapter reads 'not run' in the status page's overview"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_status_page_shows_the_numbers_the_chapter_showed(chapter):
    cards = _parse(chapter).cards
    assert cards, f"{chapter.name} shows no reproduction check"
    # the page's typography curls apostrophes ("table's" is shown "table’s"): compare with straight ones
    status = " ".join(_text(SITE / "book" / "status.html").split()).replace("\u2019", "'")
    for claim_id, outcome, ours in cards:
        value = " ".join(ours.split()).replace("\u2019", "'")
        # a row reads "PASS <id>", or "fast: NOT RUN HERE; full: PASS <id>" where a full-scale record exists
        row = re.search(re.escape(RESULT.get(outcome, "FAIL")) + r"(?:; full: [A-Z ]+?)? " + re.escape(claim_id)
                        + r" .*?" + re.escape(value), status)
        assert row, f"{claim_id}: the status page does not show {value!r}"
        assert outcome in RESULT, f"{claim_id}: the built chapter shows a failed check ({outcome})"


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.relative_to(SITE).as_posix())
def test_no_raw_glue_role_in_the_text(path):
    text = _text(path)
    assert "{glue" not in text, f"a {{glue}} role was not replaced by its value: {text[text.index('{glue'):][:80]}"


def test_some_chapter_pastes_glued_numbers_into_its_prose():
    assert any(_parse(p).pasted for p in CHAPTERS), "no chapter glues a number into its prose"


def test_the_errata_page_shows_every_entry_with_the_output_of_its_cell():
    """book/errata: each finding (a section with a verdict) has run its cell: an output follows its code."""
    page = SITE / "book" / "errata.html"
    text = " ".join(_text(page).split())
    verdicts = re.findall(r"Verdict: (a bug that changes a reported result|a hyper-parameter not in the paper|"
                          r"a definition that differs|an ambiguity)", text)
    assert len(verdicts) >= 5, f"{len(verdicts)} errata entries with a verdict"
    html_text = page.read_text(encoding="utf-8")
    assert html_text.count("cell_output") >= len(verdicts), "an errata entry's cell shows no output"
    assert "Traceback" not in text and "Error" not in text.replace("NameError", "")


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_each_chapter_has_a_saved_run_with_outputs_and_numbers(chapter):
    """saved/<stem>.ipynb (book/_ext/site_scripts.py): the Colab copy with the build's outputs and glued numbers,
    linked from the lecturer's kit as the fallback when a live run fails."""
    import json

    saved = SITE / "saved" / f"{chapter.stem}.ipynb"
    assert saved.is_file(), f"no saved run {saved.relative_to(SITE)} (a stale colab/ copy?)"
    nb = json.loads(saved.read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    assert sum(bool(c.get("outputs")) for c in code) >= len(code) // 2, "the saved run has few outputs"
    prose = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
    left = re.findall(r"`⟨([^⟩]+)⟩`", prose)
    assert not left, f"numbers left as placeholders in the saved run: {left[:5]}"
    kit = _parse(SITE / "book" / "lecturer_kit.html").links
    assert f"../saved/{chapter.stem}.ipynb" in kit, "the lecturer's kit does not link the saved run"
