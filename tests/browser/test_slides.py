"""Each chapter's slide deck (neurips24.slides) in Chromium at 1280x720, offline: it opens, reveal.js starts, every
slide renders (MathJax typeset, images loaded) and fits the slide without overflow; the arrow key moves on; the
chapter's page links to it. A screenshot of each deck's first reproduction-check slide goes to _build/screenshots."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

SITE = Path(os.environ["NEURIPS24_SITE"])
SCREENSHOTS = Path(os.environ.get("NEURIPS24_SCREENSHOTS", "_build/screenshots"))
DECKS = sorted(p.stem for p in (SITE / "slides").glob("*.html"))
CHAPTERS = sorted(p.stem for p in (SITE / "notebooks").glob("*.html"))
pytestmark = pytest.mark.enable_socket   # the local server; Chromium's requests elsewhere are refused

SLIDE_STATE = """async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) { await MathJax.startup.promise; }
  const s = Reveal.getCurrentSlide();
  const imgs = [...s.querySelectorAll('img')];
  return {height: s.scrollHeight, width: s.scrollWidth, rawTex: /\\\\\\(|\\\\\\[/.test(s.innerText),
          broken: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src.slice(-60)),
          text: s.innerText.slice(0, 40), h2: (s.querySelector('h2') || {}).innerText || ''};
}"""


def test_every_chapter_has_a_deck():
    assert DECKS == CHAPTERS and DECKS


@pytest.mark.parametrize("deck", DECKS)
def test_the_deck_opens_and_every_slide_fits(browser_context, site_url, deck):
    page = browser_context.new_page()
    page.set_viewport_size({"width": 1280, "height": 720})
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        page.goto(f"{site_url}/slides/{deck}.html", wait_until="networkidle")
        page.wait_for_function("window.Reveal && Reveal.isReady()", timeout=15000)
        total = page.evaluate("Reveal.getTotalSlides()")
        assert total >= 4, f"{deck}: only {total} slides"
        bad, shot = [], False
        for i in range(total):
            page.evaluate(f"Reveal.slide({i})")
            page.wait_for_timeout(50)
            st = page.evaluate(SLIDE_STATE)
            if st["height"] > 720 + 2 or st["width"] > 1280 + 2:
                bad.append(f"slide {i + 1} overflows ({st['width']}x{st['height']}): {st['text']!r}")
            if st["broken"] or st["rawTex"]:
                bad.append(f"slide {i + 1}: broken images {st['broken']} or raw TeX")
            if not shot and st["h2"].startswith("Reproduction check"):
                SCREENSHOTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=SCREENSHOTS / f"slides_{deck}.png")
                shot = True
        page.evaluate("Reveal.slide(0)")
        page.keyboard.press("ArrowRight")
        assert page.evaluate("Reveal.getIndices().h") == 1, "the arrow key does not move to the next slide"
        assert not bad, bad[:4]
        assert not errors, errors
    finally:
        page.close()


@pytest.mark.parametrize("deck", DECKS[:2])
def test_the_chapter_page_links_to_its_deck(browser_context, site_url, deck):
    page = browser_context.new_page()
    try:
        page.goto(f"{site_url}/notebooks/{deck}.html", wait_until="networkidle")
        links = page.evaluate("[...document.querySelectorAll('a')].map(a => a.getAttribute('href'))")
        assert f"../slides/{deck}.html" in links
    finally:
        page.close()
