"""Every page of the built book in Chromium with the network blocked: no JavaScript error, no missing file or
image, every equation typeset by the MathJax the site serves itself, no traceback in an output, no empty chapter.
A screenshot of each page goes to _build/screenshots/ (and one scrolled to the first displayed equation)."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

SITE = Path(os.environ["NEURIPS24_SITE"])
SCREENSHOTS = Path(os.environ.get("NEURIPS24_SCREENSHOTS", "_build/screenshots"))
# Every HTML page of the site (theme assets and sources left out)
PAGES = sorted(p.relative_to(SITE).as_posix() for p in SITE.rglob("*.html")
               if not p.relative_to(SITE).parts[0].startswith(("_", ".", "slides", "handouts")))
pytestmark = pytest.mark.enable_socket   # the local server; Chromium's requests elsewhere are refused
RAW_TEX = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$\$|\\begin\{")

# Runs in the page once it has loaded: what a reader sees, with code, scripts and typeset math left out.
READ_PAGE = """async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) { await MathJax.startup.promise; }
  const main = document.querySelector('main') || document.body;
  const copy = main.cloneNode(true);
  copy.querySelectorAll('pre, code, script, style, mjx-container, .highlight').forEach(e => e.remove());
  const local = [...document.images].filter(i => i.src.startsWith(location.origin));
  await Promise.all(local.map(i => i.decode().catch(() => null)));
  return {
    text: copy.innerText,
    mathNodes: main.querySelectorAll('span.math, div.math').length,
    typeset: main.querySelectorAll('span.math mjx-container, div.math mjx-container').length,
    brokenImages: local.filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src),
    outputImages: main.querySelectorAll('.cell_output img').length,
    outputs: main.querySelectorAll('.cell_output').length,
    tracebacks: [...main.querySelectorAll('.output.traceback, .cell_output')]
      .map(e => e.innerText).filter(t => t.includes('Traceback (most recent call last)')),
    colabLinks: [...document.querySelectorAll('a[href*="colab.research.google.com/github/"]')].map(a => a.href),
  };
}"""


def _shot_name(path: str) -> str:
    return path.removesuffix(".html").replace("/", "__")


@pytest.mark.parametrize("path", PAGES)
def test_page(browser_context, site_url, path):
    page = browser_context.new_page()
    errors, missing = [], []
    page.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))

    def on_console(msg):
        # a resource of a blocked host fails to load: expected offline; anything else is an error
        if msg.type == "error" and not (msg.text.startswith("Failed to load resource")
                                        and not msg.location.get("url", "").startswith(site_url)):
            errors.append(f"console: {msg.text} ({msg.location.get('url')})")

    page.on("console", on_console)
    page.on("response", lambda r: missing.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.on("requestfailed", lambda r: missing.append(f"failed {r.url}") if r.url.startswith(site_url) else None)
    page.goto(f"{site_url}/{path}", wait_until="networkidle")
    seen = page.evaluate(READ_PAGE)

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"{_shot_name(path)}.png")
    display_math = page.locator("div.math")
    if display_math.count():
        display_math.first.scroll_into_view_if_needed()
        page.screenshot(path=SCREENSHOTS / f"{_shot_name(path)}-math.png")
    page.close()

    assert not errors, errors
    assert not missing, f"files the site links to but does not have: {missing}"
    assert not seen["brokenImages"], seen["brokenImages"]
    assert seen["typeset"] == seen["mathNodes"], f"{seen['mathNodes'] - seen['typeset']} equations not typeset"
    raw = RAW_TEX.findall(seen["text"])
    assert not raw, f"raw TeX in the page's text: {raw[:5]}"
    assert not seen["tracebacks"], seen["tracebacks"][0][:2000]
    if path.startswith("notebooks/"):
        assert len(seen["text"]) > 3000, "the chapter has almost no text"
        assert seen["outputs"] >= 3 and seen["outputImages"] >= 1, (
            f"an empty chapter: {seen['outputs']} outputs, {seen['outputImages']} figures (did it run?)")
        # the badge and the header's launch button both open the Colab copy (colab/<stem>.ipynb), never the MyST source
        copy = path.replace("notebooks/", "colab/").replace(".html", ".ipynb")
        assert len(seen["colabLinks"]) >= 2 and all(link.endswith(copy) for link in seen["colabLinks"]), \
            f"Colab links that do not open {copy}: {seen['colabLinks']}"
