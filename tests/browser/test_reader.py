"""The built book as a reader uses it, at phone width (390 px) and desktop width (1400 px): the sidebar and
contents toggles open and close what they toggle, a solution's title (and the exercise link in it) opens it
without a JavaScript error, display equations and tables fit their column or scroll visibly, and a page's text
shows no raw Markdown table, raw TeX, MyST label, build-machine path, project-process wording, empty output box
or external image. Screenshots of the landing page, the status page and a chapter's reproduction check at both
widths go to _build/screenshots/reader_*.png."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

SITE = Path(os.environ["NEURIPS24_SITE"])
SCREENSHOTS = Path(os.environ.get("NEURIPS24_SCREENSHOTS", "_build/screenshots"))
PAGES = sorted(p.relative_to(SITE).as_posix() for p in SITE.rglob("*.html")
               if not p.relative_to(SITE).parts[0].startswith(("_", ".", "slides", "handouts"))
               and p.name not in ("search.html", "genindex.html"))
CHAPTERS = [p for p in PAGES if p.startswith("notebooks/")]
WIDTHS = {"phone": (390, 844), "desktop": (1400, 900)}
pytestmark = pytest.mark.enable_socket   # the local server; Chromium's requests elsewhere are refused

PIPE_TABLE = re.compile(r"\|\s*:?-{3,}:?\s*\|")
RAW_TEX = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$\$|\\begin\{|\\(frac|mathrm|mathbb|sigma|sum|int)\b|\^\{|_\{")
MYST_LEAK = re.compile(r"\{(eq|ref|numref|doc|cite:[tp]|glue|math)\}|\beqs?\. ?\(?[a-z][a-z0-9]*(-[a-z0-9]+)+\)?")
ABSOLUTE_PATH = re.compile(r"(?<![\w.:/])/(root|home|tmp|Users|private|var|opt|work|usr|mnt|srv)/\S*")
# the same list as tests/test_book_voice.py, which checks the sources without a browser
PROCESS_WORD = re.compile(r"\bissues?\b|\bthe brief\b|\bresearch brief|\bbrief's\b|\bprototype|\bnot (?:be )?read\b"
                          r"|\bcould not read\b|\bsearch tools\b|\blow-trust\b", re.I)

# What a reader reads in the article: the main text with code, scripts and typeset math left out (the theme's
# header, sidebars and footer are not part of it); and each output's text.
READ_ARTICLE = """async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) { await MathJax.startup.promise; }
  const article = document.querySelector('article.bd-article') || document.querySelector('main');
  const copy = article.cloneNode(true);
  copy.querySelectorAll('pre, code, script, style, mjx-container, .highlight, .cell_input').forEach(e => e.remove());
  const outputs = [...article.querySelectorAll('.cell_output .output')];
  return {
    text: copy.innerText,
    outputText: outputs.map(o => { const c = o.cloneNode(true);
      c.querySelectorAll('mjx-container, script, style').forEach(e => e.remove());
      // source code shown by neurips24.show (an HTML output of highlighted code) is code, not prose; printed text
      // (a stream output, also highlighted) is kept
      if (o.classList.contains('text_html')) c.querySelectorAll('.highlight').forEach(e => e.remove());
      return c.innerText; }),
    emptyOutputs: outputs.filter(o => !o.innerText.trim() && !o.querySelector('img, svg, iframe, canvas, video, '
      + 'script[type*="widget"], .widget-subarea, table')).map(o => o.className),
    images: [...document.images].map(i => ({src: i.src, alt: i.alt, ok: i.complete && i.naturalWidth > 0})),
  };
}"""

# Display equations wider than their column must scroll sideways in a box that shows it scrolls (the scroll
# shadows of book/_static/neurips24.css: a phone shows no scrollbar), and tables wider than the column must
# scroll in a box; returns those that do not.
CLIPPED = """async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) { await MathJax.startup.promise; }
  const article = document.querySelector('article.bd-article') || document.querySelector('main');
  const scroller = (e) => { for (let n = e; n && n !== article; n = n.parentElement) {
      if (['auto', 'scroll'].includes(getComputedStyle(n).overflowX) && n.scrollWidth > n.clientWidth + 1) return n; }
    return null; };
  const width = article.clientWidth;
  const bad = [];
  article.querySelectorAll('div.math').forEach(div => {
    const eq = div.querySelector('mjx-container') || div;
    const box = eq.querySelector('mjx-math') || eq;
    const wide = box.getBoundingClientRect().width > div.clientWidth + 1 || eq.scrollWidth > eq.clientWidth + 1;
    if (!wide) return;
    const s = scroller(eq);
    if (!s) bad.push('equation clipped: ' + div.textContent.slice(0, 60));
    else if (!getComputedStyle(s).backgroundImage.includes('gradient'))
      bad.push('equation scrolls with no visible sign: ' + div.textContent.slice(0, 60));
  });
  article.querySelectorAll('table').forEach(t => {
    if (t.getBoundingClientRect().width > width + 1 && !scroller(t)) bad.push('table: ' + t.innerText.slice(0, 60));
  });
  return bad;
}"""

# The elements that stick out of the viewport with no scrolling box around them (what widens the page).
WIDENERS = """() => { const W = document.documentElement.clientWidth; const out = [];
  for (const e of document.querySelectorAll('body *')) {
    if (e.getBoundingClientRect().right <= W + 1) continue;
    let boxed = false;
    for (let n = e.parentElement; n && n !== document.body; n = n.parentElement) {
      if (getComputedStyle(n).overflowX !== 'visible') { boxed = true; break; } }
    if (!boxed) out.push(e.tagName.toLowerCase() + '.' + e.className + ': ' + (e.innerText || '').slice(0, 60)); }
  return out; }"""

# Links inside the primary sidebar (chapters) or the page's contents that a reader can see now.
VISIBLE_LINKS = """(selector) => [...document.querySelectorAll(selector)].filter(a => {
  if (a.checkVisibility && !a.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) return false;
  const r = a.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0 && r.left < innerWidth && r.top < innerHeight;
}).length"""
NAV = {"primary": ".bd-docs-nav a.reference", "secondary": "#pst-page-toc-nav a, .bd-toc-nav a"}


def _open(browser_context, site_url, path, size):
    page = browser_context.new_page()
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.errors = []
    page.on("pageerror", lambda exc: page.errors.append(f"uncaught: {exc}"))

    def on_console(msg):
        if msg.type == "error" and not (msg.text.startswith("Failed to load resource")
                                        and not msg.location.get("url", "").startswith(site_url)):
            page.errors.append(f"console: {msg.text}")

    page.on("console", on_console)
    page.goto(f"{site_url}/{path}", wait_until="networkidle")
    return page


def _visible_toggle(page, which):
    buttons = page.locator(f"button.{which}-toggle")
    for i in range(buttons.count()):
        if buttons.nth(i).is_visible():
            return buttons.nth(i)
    return None


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("which", ["primary", "secondary"])
def test_sidebar_toggles_show_and_hide_their_sidebar(browser_context, site_url, which, width):
    path = CHAPTERS[0] if CHAPTERS else "index.html"
    page = _open(browser_context, site_url, path, WIDTHS[width])
    try:
        toggle = _visible_toggle(page, which)
        if which == "secondary" and toggle is None:
            pytest.skip("no page-contents toggle at this width")   # the contents sit in the margin
        assert toggle is not None, f"no visible {which} sidebar toggle at {width} width"
        before = page.evaluate(VISIBLE_LINKS, NAV[which])
        toggle.click()
        page.wait_for_timeout(600)   # the sidebar's transition
        after = page.evaluate(VISIBLE_LINKS, NAV[which])
        assert after != before, (f"clicking the {which} toggle at {width} width changed nothing "
                                 f"({before} links visible before and after)")
        # and back: a click on the toggle again (desktop) or Escape (the drawer on a phone) restores the page
        reopened = _visible_toggle(page, which)
        if after > before and page.locator("dialog[open]").count():
            page.keyboard.press("Escape")
        elif reopened is not None:
            reopened.click()
        page.wait_for_timeout(600)
        assert page.evaluate(VISIBLE_LINKS, NAV[which]) == before, f"the {which} sidebar did not toggle back"
        assert not page.errors, page.errors
    finally:
        page.close()


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", CHAPTERS)
def test_solution_titles_open_their_solution_without_error(browser_context, site_url, path, width):
    page = _open(browser_context, site_url, path, WIDTHS[width])
    try:
        titles = page.locator(".solution.dropdown > .admonition-title")
        if not titles.count():
            pytest.skip("no solution on this page")
        first = page.locator(".solution.dropdown").first
        assert "toggle-hidden" in first.get_attribute("class")
        titles.first.click(position={"x": 5, "y": 5})   # the title's text, not its link
        assert "toggle-hidden" not in first.get_attribute("class"), "clicking the title did not open the solution"
        if titles.count() > 1:   # a click on another solution's exercise link leaves the open one open
            link = titles.nth(1).locator("a").first
            if link.count():
                link.click()
                page.wait_for_timeout(200)
                assert "toggle-hidden" not in first.get_attribute("class"), "a link closed another solution"
        link = titles.first.locator("a").first
        if link.count():
            link.click()   # the exercise this solution answers
            page.wait_for_timeout(200)
        assert not page.errors, page.errors
    finally:
        page.close()


# Every toggle a reader (or a screen reader) meets: its accessible name from aria-label (book/_static/neurips24.js
# names the header's sidebar toggles and each togglebutton after its admonition's title).
TOGGLE_NAMES = """() => [...document.querySelectorAll(
    '.primary-toggle, .secondary-toggle, .theme-switch-button, button.toggle-button, .cell.tag_solution summary')]
  .map(b => ({cls: b.className, label: (b.getAttribute('aria-label') || '').trim(), text: b.innerText.trim()}))"""


@pytest.mark.parametrize("path", [p for p in CHAPTERS if "melloc" in p or "learning_to_defer" in p] or CHAPTERS[:1])
def test_toggles_have_accessible_names(browser_context, site_url, path):
    page = _open(browser_context, site_url, path, WIDTHS["phone"])
    try:
        page.wait_for_timeout(300)
        toggles = page.evaluate(TOGGLE_NAMES)
    finally:
        page.close()
    unnamed = [t["cls"] for t in toggles if not t["label"]]
    assert not unnamed, f"toggles without an accessible name (aria-label): {unnamed}"
    generic = [t["cls"] for t in toggles if t["label"] == "Toggle hidden content"]
    assert not generic, f"toggles named only 'Toggle hidden content': {generic}"
    solutions = [t for t in toggles if "toggle-button" in t["cls"] and "Solution to" in t["label"]]
    assert solutions, "no solution toggle names its solution"
    assert all(t["label"].startswith("Show or hide: Solution to Exercise") for t in solutions), solutions[:2]
    code = [t for t in toggles if t["label"] == "Show or hide the solution code"]
    assert code and all(t["text"].startswith("Show solution code") for t in code), \
        f"the hidden solution code's summary: {[t for t in toggles if 'solution' in t['label'].lower()]}"


@pytest.mark.parametrize("path", PAGES)
def test_page_text_has_no_leaks(browser_context, site_url, path):
    page = _open(browser_context, site_url, path, WIDTHS["desktop"])
    try:
        seen = page.evaluate(READ_ARTICLE)
    finally:
        page.close()
    text = seen["text"]
    assert not PIPE_TABLE.search(text), f"a Markdown table printed as raw pipes: {PIPE_TABLE.search(text).group()}"
    piped = [m.group() for t in seen["outputText"] for m in PIPE_TABLE.finditer(t)]
    assert not piped, f"a Markdown table printed as raw pipes in an output: {piped[:3]}"
    raw = [m.group() for t in seen["outputText"] for m in RAW_TEX.finditer(t)]
    assert not raw, f"raw TeX in an output: {raw[:5]}"
    assert not MYST_LEAK.search(text), f"MyST markup shown as text: {MYST_LEAK.search(text).group()}"
    paths = [m.group() for m in ABSOLUTE_PATH.finditer(text + "\n".join(seen["outputText"]))]
    assert not paths, f"a build machine's path in the page: {paths[:3]}"
    words = [text[max(0, m.start() - 40):m.end() + 40] for m in PROCESS_WORD.finditer(text)]
    assert not words, f"project-process wording in the page: {words[:3]}"
    assert not seen["emptyOutputs"], f"{len(seen['emptyOutputs'])} empty output boxes"
    external = [i["src"] for i in seen["images"] if not i["src"].startswith((site_url, "data:"))]
    assert not external, f"images from another site (broken offline): {external}"
    badges = [i for i in seen["images"] if i["alt"] == "Open In Colab"]
    assert all(i["ok"] for i in badges), "the Colab badge did not load"
    if path in CHAPTERS:
        assert badges, "the chapter's title card has no Colab badge"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", PAGES)
def test_equations_and_tables_fit_or_scroll(browser_context, site_url, path, width):
    page = _open(browser_context, site_url, path, WIDTHS[width])
    try:
        clipped = page.evaluate(CLIPPED)
    finally:
        page.close()
    assert not clipped, f"{len(clipped)} clipped at {width} width: {clipped[:3]}"


@pytest.mark.parametrize("path", PAGES)
def test_no_page_is_wider_than_a_phone(browser_context, site_url, path):
    """At 390 px nothing widens the page itself (an inline path, a test id, a header button): what is wider than
    the column scrolls inside its own box."""
    page = _open(browser_context, site_url, path, WIDTHS["phone"])
    try:
        width = page.evaluate("document.documentElement.scrollWidth")
        wide = page.evaluate(WIDENERS) if width > WIDTHS["phone"][0] + 1 else []
    finally:
        page.close()
    assert width <= WIDTHS["phone"][0] + 1, f"the page is {width} px wide at {WIDTHS['phone'][0]} px: {wide[:3]}"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name, path, anchor", [("landing", "index.html", None),
                                                ("status", "book/status.html", None),
                                                ("chapter", CHAPTERS[0] if CHAPTERS else "index.html",
                                                 "reproduction-check")])
def test_screenshots(browser_context, site_url, name, path, anchor, width):
    page = _open(browser_context, site_url, path, WIDTHS[width])
    try:
        if anchor and page.locator(f"[id='{anchor}']").count():
            page.locator(f"[id='{anchor}']").first.scroll_into_view_if_needed()
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        out = SCREENSHOTS / f"reader_{name}_{WIDTHS[width][0]}.png"
        page.screenshot(path=out)
        assert out.stat().st_size > 0
        assert not page.errors, page.errors
    finally:
        page.close()


@pytest.mark.parametrize("path", CHAPTERS)
def test_explore_has_a_kernel_free_slider_that_swaps_the_figure(browser_context, site_url, path):
    """Each chapter's Explore section has a slider (neurips24.interact's sweep) that works in the static page:
    moving it shows another frame, whose image differs, and the value shown follows."""
    page = _open(browser_context, site_url, path, WIDTHS["desktop"])
    try:
        sweep = page.locator(".neurips24-sweep").first
        assert sweep.count(), "no kernel-free slider in the Explore section (neurips24.interact(..., sweep=...))"
        slider = sweep.locator("input[type=range]")
        frames = sweep.locator(".neurips24-sweep-frame")
        n = frames.count()
        shown = [i for i in range(n) if frames.nth(i).is_visible()]
        assert n >= 2 and len(shown) == 1, f"{n} frames, {len(shown)} shown"
        before = frames.nth(shown[0]).locator("img").first.get_attribute("src")
        target = 0 if shown[0] != 0 else n - 1
        slider.evaluate("(s, v) => { s.value = v; s.dispatchEvent(new Event('input')); }", str(target))
        assert [i for i in range(n) if frames.nth(i).is_visible()] == [target]
        after = frames.nth(target).locator("img").first
        assert after.get_attribute("src") != before and after.evaluate("i => i.naturalWidth") > 0
        assert sweep.locator("output").inner_text() == frames.nth(target).get_attribute("data-value")
        assert not page.errors, page.errors
    finally:
        page.close()


@pytest.mark.parametrize("path", CHAPTERS[:3])
def test_a_figure_opens_at_full_size_on_a_phone(browser_context, site_url, path):
    """At phone width a figure is scaled to the column; a click shows it at its own width in an overlay that
    scrolls, and a second click closes it."""
    page = _open(browser_context, site_url, path, WIDTHS["phone"])
    try:
        img = page.locator(".cell_output img.neurips24-zoomable").first
        assert img.count(), "no figure can be opened at full size"
        natural = img.evaluate("i => i.naturalWidth")
        img.scroll_into_view_if_needed()
        img.click()
        zoom = page.locator(".neurips24-zoom img")
        assert zoom.count() == 1 and zoom.evaluate("i => i.getBoundingClientRect().width") >= natural - 1
        assert page.evaluate("document.activeElement.className") == "neurips24-zoom-close"   # focus moved in
        alt = img.get_attribute("alt")
        assert alt and not re.search(r"\.(png|jpe?g|svg|gif)$|^_build|^\.\./", alt)   # no file path as alt
        page.keyboard.press("Enter")                                                      # the close button
        assert page.locator(".neurips24-zoom").count() == 0
        assert page.evaluate("document.activeElement.classList.contains('neurips24-zoomable')")
        img.click()
        page.locator(".neurips24-zoom").click(position={"x": 5, "y": 300})
        assert page.locator(".neurips24-zoom").count() == 0
        assert not page.errors, page.errors
    finally:
        page.close()


# The contrast ratio (WCAG 2) of each claim card's verdict, claim id and text on the page's background.
CARD_CONTRAST = """() => {
  const lum = (c) => { const v = c.match(/[\\d.]+/g).slice(0, 3).map(Number).map(x => x / 255)
      .map(x => x <= 0.03928 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4));
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
  const bg = (e) => { for (let n = e; n; n = n.parentElement) { const c = getComputedStyle(n).backgroundColor;
      if (c && !c.startsWith('rgba(0, 0, 0, 0)') && c !== 'transparent') return c; } return 'rgb(255, 255, 255)'; };
  const ratio = (e) => { const a = lum(getComputedStyle(e).color), b = lum(bg(e));
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); };
  return [...document.querySelectorAll('.claim-card')].flatMap(card =>
    ['.claim-verdict', 'code.claim-id', 'td'].map(sel => card.querySelector(sel)).filter(Boolean)
      .map(e => ({what: e.className || e.tagName, id: card.dataset.claimId, ratio: ratio(e)})));
}"""


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_claim_cards_are_legible_in_both_colour_modes(browser_context, site_url, mode):
    """Every claim card's verdict, claim id and values have a contrast of at least 4.5:1 (WCAG AA)."""
    page = _open(browser_context, site_url, CHAPTERS[0], WIDTHS["desktop"])
    try:
        page.evaluate("(m) => { document.documentElement.dataset.theme = m; "
                      "document.documentElement.dataset.mode = m; }", mode)
        page.wait_for_timeout(100)
        ratios = page.evaluate(CARD_CONTRAST)
        assert ratios, "no claim card"
        low = [r for r in ratios if r["ratio"] < 4.5]
        assert not low, f"{len(low)} of {len(ratios)} card texts below 4.5:1 in {mode} mode: {low[:4]}"
    finally:
        page.close()
