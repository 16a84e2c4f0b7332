"""A student handout per seminar session: one A4 page made from the chapter's built page and the seminar guide.

``python -m neurips24.handouts`` (the Makefile runs it after the book is built) writes
``_build/html/handouts/<stem>.html`` for each chapter: the session's question (from the seminar guide's table),
the claim, the key equations (the first display equations of the Theory section), one figure (the chapter's
thumbnail figure, else its first), the preparation tasks (the guide's "What students prepare") and the chapter's
first exercise. The page prints on one A4 sheet (``@page`` A4; a page taller than the sheet is zoomed to fit it
when printed, so nothing is cut); the browser test prints each to
``handouts/<stem>.pdf`` with Chromium, and the seminar guide links both per session. The lecturer's notes stay
in the lecturer's kit. Beautiful Soup reads the pages; MathJax (the book's own copy) typesets the equations.
"""
from __future__ import annotations

import argparse
import html
from pathlib import Path

from .slides import _fix_links, _fix_src, _section_by_heading, _text

N_EQUATIONS = 3
STYLE = """
@page { size: A4; margin: 12mm; }
body { font: 10pt/1.35 system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 186mm; margin: 0 auto;
  color: #1f2328; }
h1 { font-size: 14pt; margin: 0 0 2mm; } h2 { font-size: 10.5pt; margin: 3mm 0 1mm; }
.question { font-style: italic; } .claim { border-left: 3px solid #1a7f37; padding: 0 3mm; margin: 2mm 0; }
.math { font-size: 9pt; margin: 1mm 0; overflow-x: auto; max-width: 100%; } .eqno { float: right; color: #57606a; }
mjx-container { max-width: 100%; overflow-x: auto; overflow-y: hidden; }
body { overflow-wrap: anywhere; } table { display: block; max-width: 100%; overflow-x: auto; }
img { max-width: 100%; max-height: 62mm; display: block; margin: 1mm auto; }
.caption { font-size: 8pt; color: #444; } ul, ol { margin: 1mm 0; padding-left: 6mm; }
.exercise { font-size: 9pt; border: 1px solid #d0d7de; padding: 1mm 3mm; }
.links { font-size: 8pt; color: #57606a; } a { color: #0969da; }
@media screen { body { margin: 1em auto; } }
@media print { body { zoom: var(--fit, 1); max-width: none; } }
"""
# Once MathJax has typeset the page, its height at A4's text width (186 mm) is measured; if it is taller than A4's
# text height (273 mm), printing zooms it to fit one page. data-fitted on <html> says the measurement is done.
FIT = """<script>
window.addEventListener('load', async function () {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) { await MathJax.startup.promise; }
  var b = document.body, width = b.style.width, maxWidth = b.style.maxWidth;
  b.style.width = '186mm'; b.style.maxWidth = 'none';
  var height = b.scrollHeight, limit = 273 * 96 / 25.4;
  b.style.width = width; b.style.maxWidth = maxWidth;
  if (height > limit) { document.documentElement.style.setProperty('--fit', (0.97 * limit / height).toFixed(3)); }
  document.documentElement.dataset.fitted = 'yes';
});
</script>"""


def session_questions(seminar_html: str) -> dict[str, str]:
    """``{chapter stem: the session's question}`` from the built seminar guide's sessions table."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(seminar_html, "html.parser")
    out = {}
    for row in soup.find_all("tr"):
        cells = row.find_all("td")
        link = row.find("a", href=True)
        if len(cells) >= 4 and link and "notebooks/" in link["href"]:
            stem = link["href"].split("notebooks/", 1)[1].split(".html", 1)[0]
            out[stem] = _text(cells[-1])
    return out


def preparation(seminar_html: str) -> str:
    """The guide's "What students prepare" list, as HTML (empty if the guide has none)."""
    from bs4 import BeautifulSoup

    section = _section_by_heading(BeautifulSoup(seminar_html, "html.parser"), ("what students prepare",))
    lst = section.find("ul") if section is not None else None
    if lst is None:
        return ""
    for a in lst.find_all("a"):
        a.unwrap()
    return str(lst)


def handout(page_html: str, question: str = "", prepare: str = "", stem: str = "") -> str:
    """The handout of one chapter (a complete HTML page) from its built page.

    Raises
    ------
    ValueError if the page has no article or no title.
    """
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page_html, "html.parser")
    article = soup.find("article") or soup.find("main")
    if article is None or article.find("h1") is None:
        raise ValueError("page_html: not a chapter page (no article with a title)")
    for link in article.select("a.headerlink"):
        link.decompose()
    if stem:
        _fix_links(article, stem)
    title = _text(article.find("h1"))
    parts = [f"<h1>{html.escape(title)}</h1>"]
    if question:
        parts.append(f"<p class='question'>The session's question: {html.escape(question)}</p>")
    claim = article.find(class_="admonition")
    if claim is not None:
        paras = [p for p in claim.find_all("p") if "admonition-title" not in (p.get("class") or [])]
        if paras:
            parts.append(f"<div class='claim'><strong>The claim.</strong> {paras[0].decode_contents()}</div>")
    theory = _section_by_heading(article, ("theory",)) or article
    equations = theory.find_all("div", class_="math")[:N_EQUATIONS]
    if equations:
        parts.append("<h2>Key equations</h2>" + "".join(str(d) for d in equations))
    figure = next((f for f in article.find_all("figure") if f.find("img")), None)
    if figure is not None:
        _fix_src(figure)
        cap = figure.find("figcaption")
        parts.append("<h2>A figure from the chapter</h2>" + str(figure.find("img"))
                     + (f"<div class='caption'>{cap.decode_contents()}</div>" if cap else ""))
    if prepare:
        parts.append("<h2>Before the session</h2>" + prepare)
    exercise = article.find(class_="exercise")
    if exercise is not None:
        for hidden in exercise.select(".solution, details"):
            hidden.decompose()
        parts.append("<h2>Exercise</h2><div class='exercise'>" + exercise.decode_contents() + "</div>")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(title)} — handout</title><style>{STYLE}</style>
<script>window.MathJax = {{tex: {{inlineMath: [['\\\\(', '\\\\)']], displayMath: [['\\\\[', '\\\\]']]}}}};</script>
<script defer src="../_static/mathjax/tex-mml-chtml.js"></script>{FIT}</head>
<body>{''.join(parts)}
<p class='links'>NeurIPS 2024, Executed{f" — <a href='../notebooks/{html.escape(stem)}.html'>the chapter</a>"
                                            if stem else ""}</p></body></html>
"""


def write_handouts(site: Path) -> list[Path]:
    """Write ``site/handouts/<stem>.html`` for every built chapter page."""
    seminar = site / "book" / "seminar.html"
    text = seminar.read_text(encoding="utf-8") if seminar.exists() else ""
    questions, prepare = session_questions(text), preparation(text)
    out = site / "handouts"
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for page in sorted((site / "notebooks").glob("*.html")):
        path = out / f"{page.stem}.html"
        path.write_text(handout(page.read_text(encoding="utf-8"), questions.get(page.stem, ""), prepare,
                                page.stem), encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m neurips24.handouts", description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=Path("_build/html"), help="the built book (default _build/html)")
    args = parser.parse_args(argv)
    if not (args.site / "notebooks").is_dir():
        print(f"no built chapters under {args.site}: build the book first")
        return 1
    print(f"handouts: {len(write_handouts(args.site))} pages in {args.site / 'handouts'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
