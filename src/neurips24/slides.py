"""Slides to project: one reveal.js deck per chapter, made from the chapter's page in the built book.

``python -m neurips24.slides`` (the Makefile runs it after the book is built) reads each chapter's built page,
``_build/html/notebooks/<stem>.html`` (MyST resolved, numbers glued, figures and claim cards rendered), and writes
``_build/html/slides/<stem>.html``: a deck of

1. the title and the claim the chapter reproduces (its title card);
2. the key equations: each numbered display equation of the Theory section, a few to a slide;
3. each figure with its caption, one to a slide;
4. the claim cards of the reproduction check, two to a slide;
5. the discussion questions.

Beautiful Soup reads the page; reveal.js shows the deck (arrow keys, ``F`` for full screen, ``S`` for speaker
notes) and MathJax typesets it, both served by the book itself from ``_static`` (vendored from npm by
``make assets``), so a deck works offline. Each chapter's page links to its deck from its header.
"""
from __future__ import annotations

import argparse
import html
import re
from pathlib import Path

WIDTH, HEIGHT = 1280, 720          # the slide size reveal.js scales to the screen
EQUATIONS_PER_SLIDE = 3
CARDS_PER_SLIDE = 2
STYLE = """
.reveal { font-size: 26px; }
.reveal h1 { font-size: 1.6em; } .reveal h2 { font-size: 1.15em; margin-bottom: 0.4em; }
.reveal section { text-align: left; }
.reveal .claim-box { font-size: 0.8em; border-left: 5px solid #1a7f37; padding: 0.3em 0.8em; background: #f6f8fa; }
.reveal .authors { font-size: 0.7em; color: #57606a; }
.reveal figure, .reveal .fig { text-align: center; margin: 0; }
.reveal img { max-height: 520px; max-width: 100%; margin: 0 auto; display: block; }
.reveal .caption { font-size: 0.55em; color: #444; text-align: left; margin-top: 0.3em; }
.reveal .math { font-size: 0.8em; margin: 0.3em 0; overflow: hidden; }
.reveal .eqno { float: right; font-size: 0.8em; color: #57606a; }
.reveal .claim-card { font-size: 0.5em; margin: 0.4em 0; text-align: left; }
.reveal .claim-card table { margin: 0.2em 0; } .reveal .claim-card th, .reveal .claim-card td { padding: 0 0.4em;
  border: none; font-size: 1em; }
.reveal ol, .reveal ul { font-size: 0.75em; }
.reveal .deck-footer { position: fixed; bottom: 0.5em; left: 1em; font-size: 14px; color: #888; }
"""


def _text(node) -> str:
    return " ".join(node.get_text(" ").split()) if node is not None else ""


def _section_by_heading(article, words: tuple[str, ...]):
    """The first ``section`` whose heading starts with one of ``words`` (case-insensitive)."""
    for sec in article.find_all("section"):
        head = sec.find(re.compile("^h[1-6]$"))
        if head and _text(head).lower().lstrip("0123456789. ").startswith(words):
            return sec
    return None


def _fix_src(node, depth_prefix: str = "../notebooks/") -> None:
    """Image sources relative to the chapter's page, made relative to the deck (both one folder deep)."""
    for img in node.find_all("img"):
        src = img.get("src", "")
        if src and not src.startswith(("data:", "http:", "https:", "/", "../")):
            img["src"] = depth_prefix + src


def _fix_links(node, stem: str) -> None:
    """Links of the chapter's page made to work from a deck or a handout (one folder deep, beside notebooks/):
    an in-page anchor points at the chapter's page, a sibling page at ``../notebooks/``."""
    for a in node.find_all("a", href=True):
        href = a["href"]
        if href.startswith("#"):
            a["href"] = f"../notebooks/{stem}.html{href}"
        elif not href.startswith(("http:", "https:", "mailto:", "/", "../", "data:")):
            a["href"] = "../notebooks/" + href


def deck_sections(page_html: str, stem: str = "") -> tuple[str, list[str]]:
    """The deck's title and its ``<section>`` elements (HTML strings) from a chapter's built page.

    Raises
    ------
    ValueError if the page has no article or no title.
    """
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page_html, "html.parser")
    article = soup.find("article") or soup.find("main")
    if article is None or article.find("h1") is None:
        raise ValueError("page_html: not a chapter page (no article with a title)")
    for link in article.select("a.headerlink"):   # the page's '#' anchors mean nothing on a slide
        link.decompose()
    if stem:
        _fix_links(article, stem)
    h1 = article.find("h1")
    title = _text(h1).rstrip("#¶ ").strip()
    sections = []
    intro = h1.find_next("p")
    claim = article.find(class_="admonition")
    body = f"<h1>{html.escape(title)}</h1>"
    if intro is not None:
        body += f"<p class='authors'>{_text(intro)[:300]}</p>"
    if claim is not None:
        paras = [p for p in claim.find_all("p") if "admonition-title" not in (p.get("class") or [])]
        body += "<div class='claim-box'>" + "".join(f"<p>{p.decode_contents()}</p>" for p in paras[:2]) + "</div>"
    sections.append(body)

    theory = _section_by_heading(article, ("theory",)) or article
    equations = [d for d in theory.find_all("div", class_="math")]
    for i in range(0, len(equations), EQUATIONS_PER_SLIDE):
        group = equations[i:i + EQUATIONS_PER_SLIDE]
        sections.append("<h2>Key equations</h2>" + "".join(str(d) for d in group))

    for fig in article.find_all("figure"):
        img = fig.find("img")
        if img is None:
            continue
        _fix_src(fig)
        cap = fig.find("figcaption")
        sections.append(f"<div class='fig'>{str(fig.find('img'))}</div>"
                        + (f"<div class='caption'>{cap.decode_contents()}</div>" if cap else ""))
    if not any("<img" in s for s in sections):   # chapters whose figures are plain outputs, not captioned figures
        for out in article.select(".cell_output img")[:6]:
            _fix_src(out.parent)
            sections.append(f"<div class='fig'>{str(out)}</div>")

    cards = article.find_all(class_="claim-card")
    for i in range(0, len(cards), CARDS_PER_SLIDE):
        sections.append("<h2>Reproduction check</h2>" + "".join(str(c) for c in cards[i:i + CARDS_PER_SLIDE]))

    discussion = _section_by_heading(article, ("discussion", "exercises and discussion"))
    if discussion is not None:
        lists = [lst for lst in discussion.find_all(["ol", "ul"]) if not lst.find_parent(class_="admonition")]
        if lists:
            sections.append("<h2>Discussion</h2>" + str(lists[-1]))
    return title, sections


def render_deck(title: str, sections: list[str], static: str = "../_static") -> str:
    """The deck as one HTML page: reveal.js and MathJax from the book's ``_static``."""
    slides = "\n".join(f"<section>{s}</section>" for s in sections)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)} — slides</title>
<link rel="stylesheet" href="{static}/reveal/reveal.css">
<link rel="stylesheet" href="{static}/reveal/theme/white.css">
<style>{STYLE}</style>
<script>window.MathJax = {{tex: {{inlineMath: [['\\\\(', '\\\\)']], displayMath: [['\\\\[', '\\\\]']],
  tags: 'ams'}}, options: {{processHtmlClass: 'math|reveal'}}}};</script>
<script defer src="{static}/mathjax/tex-mml-chtml.js"></script>
</head><body>
<div class="reveal"><div class="slides">
{slides}
</div></div>
<div class="deck-footer">NeurIPS 2024, Executed · arrow keys to move, F for full screen</div>
<script src="{static}/reveal/reveal.js"></script>
<script>Reveal.initialize({{width: {WIDTH}, height: {HEIGHT}, margin: 0.04, hash: true, slideNumber: 'c/t',
  center: false}});</script>
</body></html>
"""


def write_decks(site: Path, stems: list[str] | None = None) -> list[Path]:
    """Write ``site/slides/<stem>.html`` for every built chapter page (or those of ``stems``)."""
    pages = sorted((site / "notebooks").glob("*.html"))
    if stems is not None:
        pages = [p for p in pages if p.stem in set(stems)]
    out = site / "slides"
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for page in pages:
        title, sections = deck_sections(page.read_text(encoding="utf-8"), page.stem)
        path = out / f"{page.stem}.html"
        path.write_text(render_deck(title, sections), encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m neurips24.slides", description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=Path("_build/html"), help="the built book (default _build/html)")
    args = parser.parse_args(argv)
    if not (args.site / "notebooks").is_dir():
        print(f"no built chapters under {args.site}: build the book first")
        return 1
    written = write_decks(args.site)
    print(f"slides: {len(written)} decks in {args.site / 'slides'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
