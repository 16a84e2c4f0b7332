"""Each session's handout (neurips24.handouts) printed by Chromium to an A4 PDF, one page, beside its HTML page
(``handouts/<stem>.pdf``, which the seminar guide links: this file runs before test_links.py, which checks that
every link resolves). The handout also reads well on a phone: nothing wider than the screen at 390 px."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

SITE = Path(os.environ["NEURIPS24_SITE"])
HANDOUTS = sorted(p.stem for p in (SITE / "handouts").glob("*.html"))
pytestmark = pytest.mark.enable_socket   # the local server; Chromium's requests elsewhere are refused


def test_every_chapter_has_a_handout():
    assert HANDOUTS == sorted(p.stem for p in (SITE / "notebooks").glob("*.html")) and HANDOUTS


@pytest.mark.parametrize("stem", HANDOUTS)
def test_the_handout_prints_on_one_a4_page(browser_context, site_url, stem):
    page = browser_context.new_page()
    try:
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(f"{site_url}/handouts/{stem}.html", wait_until="networkidle")
        page.wait_for_function("document.documentElement.dataset.fitted === 'yes'", timeout=20000)
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= 391, f"{stem}: the handout is {wide} px wide on a phone"
        out = SITE / "handouts" / f"{stem}.pdf"
        page.emulate_media(media="print")
        page.pdf(path=str(out), format="A4", print_background=True)
        pages = len(re.findall(rb"/Type\s*/Page[^s]", out.read_bytes()))
        assert pages == 1, f"{stem}: the handout prints on {pages} A4 pages"
    finally:
        page.close()
