"""The built HTML read as files (no browser): every internal link and anchor resolves, and the status page
lists every chapter with the numbers that the chapter's own reproduction checks printed."""
from __future__ import annotations

import ast
import functools
import os
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from neurips24.status import format_value

SITE = Path(os.environ["NEURIPS24_SITE"]).resolve()
PAGES = sorted(p for p in SITE.rglob("*.html") if not p.relative_to(SITE).parts[0].startswith(("_", ".")))
CHAPTERS = [p for p in PAGES if p.parent.name == "notebooks"]
EXTERNAL = ("http:", "https:", "mailto:", "data:", "javascript:", "tel:", "//")
PRINTED_CHECK = re.compile(r"\[(PASS|FAIL)\] (\S+): .*\n\s*measured: (.*?)   paper: ")


class _Page(HTMLParser):
    """The ids (anchors), the links (href/src) and the text of one HTML page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.links, self.text = set(), [], []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.ids.update(v for k, v in attrs.items() if k in ("id", "name") and v)
        self.links += [v for k, v in attrs.items() if k in ("href", "src") and v and tag != "base"]
        self._skip += tag in ("script", "style")

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


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_status_page_shows_the_numbers_the_chapter_printed(chapter):
    printed = PRINTED_CHECK.findall(_text(chapter))
    assert printed, f"{chapter.name} printed no reproduction check"
    status = " ".join(_text(SITE / "book" / "status.html").split())
    for mark, claim_id, measured in printed:
        value = " ".join(format_value(ast.literal_eval(measured)).split())
        row = re.search(re.escape(claim_id) + r" .*?" + re.escape(value) + r" (pass|fail) ", status)
        assert row, f"{claim_id}: the status page does not show {value!r}"
        assert row.group(1) == mark.lower(), f"{claim_id}: {mark} in the chapter, {row.group(1)} on the status page"
