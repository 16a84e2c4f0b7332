"""Sphinx extension: the <script> tags of each page, mended for the offline site.

- Each script is written once. Sphinx 7 adds an inline script registered with ``add_js_file(None, body=...)``
  twice (sphinx-doc/sphinx#13402, fixed in Sphinx 8.2; Jupyter Book 1 needs Sphinx 7): sphinx-thebe's
  ``const THEBE_JS_URL`` then raised "Identifier 'THEBE_JS_URL' has already been declared" on every page.
- On a page with saved widget states, before RequireJS: RequireJS learns where the widget manager lives
  (``_static/html-manager``), since the manager loads its fonts from its AMD module's address, which RequireJS
  would otherwise resolve against the page's own folder (a 404 for every font, online and offline); and the
  manager, which typesets widget labels with MathJax 2's ``MathJax.Hub.Queue``, gets that call on MathJax 3
  (without it every widget label raised "Cannot read properties of undefined (reading 'Queue')").
- The site's own files in ``book/_static`` are served and linked from every page: ``neurips24.css`` (display
  equations that scroll sideways, tables that fit the column) and ``neurips24.js`` (the theme's sidebar toggles
  and the solution titles made to work; the file says why).
- The Colab badge of each chapter's title card is the site's own copy (``_static/colab-badge.svg``): the notebooks
  name Colab's badge image (for GitHub and Colab), which a reader without network would see broken. Its link
  target does not change.
- Each chapter's header has a button that opens its slide deck (``slides/<stem>.html``, neurips24.slides).
- A solution's hidden code cell (a cell tagged ``solution`` and ``hide-cell`` or ``hide-input``) says "Show
  solution code" / "Hide solution code" and its summary's accessible name says so too; myst-nb writes "Show code
  cell content" and "Toggle hidden content" for every hidden cell. (``neurips24.js`` names the other toggles.)
- Each chapter's saved run, ``saved/<stem>.ipynb``: its Colab copy (``colab/<stem>.ipynb``, CommonMark) with the
  outputs of this build's run (myst-nb's ``jupyter_execute/notebooks/<stem>.ipynb``) and, in the prose, the
  values the run glued in place of the copy's ``⟨name⟩`` placeholders: what a lecturer opens in Jupyter or Colab
  when the live run fails (the kit links it). A chapter whose copy does not have the run's code cells (a stale
  copy: CI's ``python -m neurips24.colab --check`` fails on it too) gets none.
- The header's Colab launch button opens the chapter's Colab copy, ``colab/<stem>.ipynb`` (as the badge does):
  sphinx-book-theme builds it from the page's own path, ``notebooks/<stem>.ipynb``, whose MyST markup Colab shows
  as raw text, and has no option to point one launcher elsewhere. Binder opens the same copy in JupyterLab
  (``urlpath=lab/tree/colab/<stem>.ipynb``): the classic view would show the chapter's MyST source.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

STATIC = Path(__file__).resolve().parent.parent / "_static"
COLAB_BADGE = "https://colab.research.google.com/assets/colab-badge.svg"

WIDGETS_SETUP = """\
var require = {paths: {'@jupyter-widgets/html-manager/dist':
                       document.documentElement.dataset.content_root + '_static/html-manager'}};
document.addEventListener('DOMContentLoaded', function () {
  if (window.MathJax && window.MathJax.startup && !window.MathJax.Hub) {
    window.MathJax.Hub = {Queue: function (job) {
      MathJax.startup.promise.then(function () { return MathJax.typesetPromise([job[2]]); });
    }};
  }
});"""


def _key(script) -> tuple:
    return str(script.filename or ""), tuple(sorted((k, str(v)) for k, v in script.attributes.items()))


def mend_scripts(app, pagename, templatename, context, doctree) -> None:
    scripts = list(context.get("script_files", []))
    at = next((i for i, s in enumerate(scripts) if str(s.filename or "").endswith("requirejs/require.js")), None)
    if at is not None:   # a RequireJS configuration must come before RequireJS itself
        app.add_js_file(None, body=WIDGETS_SETUP, priority=scripts[at].priority)   # joins context["script_files"]
        scripts.insert(at, next(s for s in context["script_files"] if s.attributes.get("body") == WIDGETS_SETUP))
    seen, unique = set(), []
    for script in scripts:
        if _key(script) not in seen:
            seen.add(_key(script))
            unique.append(script)
    context["script_files"] = unique


def local_badge(app, pagename, templatename, context, doctree) -> None:
    """Point the pages' Colab badge images at the site's own copy."""
    if COLAB_BADGE in context.get("body", ""):
        context["body"] = context["body"].replace(COLAB_BADGE, context["pathto"]("_static/colab-badge.svg", 1))


_CHAPTER_NOTEBOOK = re.compile(r"/notebooks/(?P<stem>[^/]+)\.ipynb$")
_BINDER_PATH = re.compile(r"urlpath=(?:lab/)?tree/notebooks/(?P<stem>[^/&]+)\.ipynb")


def colab_launch_copy(app, pagename, templatename, context, doctree) -> None:
    """Point the header's Colab launch button at ``colab/<stem>.ipynb`` instead of ``notebooks/<stem>.ipynb``."""
    options = getattr(app.config, "html_theme_options", {}) or {}
    colab = str((options.get("launch_buttons") or {}).get("colab_url") or "").rstrip("/")
    if not colab:
        return
    for group in context.get("header_buttons", []):
        for button in group.get("buttons", []) if isinstance(group, dict) else []:
            url = button.get("url", "") if isinstance(button, dict) else ""
            if url.startswith(colab + "/github/"):
                button["url"] = _CHAPTER_NOTEBOOK.sub(r"/colab/\g<stem>.ipynb", url)
            elif _BINDER_PATH.search(url):
                button["url"] = _BINDER_PATH.sub(r"urlpath=lab/tree/colab/\g<stem>.ipynb", url)


def slides_button(app, pagename, templatename, context, doctree) -> None:
    """A header button on each chapter's page that opens its slide deck (``slides/<stem>.html``, written by
    ``python -m neurips24.slides`` after the build)."""
    if not pagename.startswith("notebooks/") or "header_buttons" not in context:
        return
    url = context["pathto"](f"slides/{pagename.split('/', 1)[1]}.html", 1)
    context["header_buttons"].append({"type": "link", "url": url, "tooltip": "Slides to project (reveal.js)",
                                      "icon": "fas fa-person-chalkboard", "label": "slides-button",
                                      "text": "Slides"})


_SOLUTION_CODE = re.compile(
    r'(<div class="cell [^"]*\btag_solution\b[^"]*">\s*<details class="[^"]*">\s*<summary) aria-label="[^"]*">'
    r'(\s*<p class="collapsed admonition-title">)Show code cell (?:content|source)(</p>'
    r'\s*<p class="expanded admonition-title">)Hide code cell (?:content|source)(</p>)')


def solution_code_label(app, pagename, templatename, context, doctree) -> None:
    """A solution's hidden code cell reads "Show solution code" (its summary's aria-label names it too)."""
    body = context.get("body", "")
    if "tag_solution" in body:
        context["body"] = _SOLUTION_CODE.sub(r'\1 aria-label="Show or hide the solution code">'
                                             r"\2Show solution code\3Hide solution code\4", body)


SAVED_NOTE = ("> **The saved run of this chapter.** The outputs below, and the numbers in the prose, are those of "
              "the book's own run of `fast` scale (the chapter's page in the book shows the same). Run the cells again "
              "in Jupyter or Colab to recompute them; the first cell installs the book's package.")
_PLACEHOLDER = re.compile(r"`⟨(?P<name>[A-Za-z_][A-Za-z0-9_\-]*)⟩`")


def _text(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def saved_copy(colab: dict, executed: dict, glued: dict, book: dict | None = None) -> dict | None:
    """The chapter's saved run: its Colab copy with the executed chapter's outputs and glued values.

    Parameters
    ----------
    colab : the Colab copy (``colab/<stem>.ipynb``), as a dict; not changed.
    executed : the chapter as the build ran it (myst-nb's ``jupyter_execute/notebooks/<stem>.ipynb``), as a dict.
    glued : the run's glued values by name (myst-nb's ``<stem>.glue.json``: each an output with ``data``).
    book : the recorded values the copy shows beside its placeholders (``neurips24.colab.BOOK_VALUES``, this
        chapter's entry), by name; None -> none.

    Returns
    -------
    dict, a new notebook: each code cell gets the executed cell's ``outputs`` and ``execution_count``; each
    ```⟨name⟩``` of the prose, with the recorded value beside it, becomes the glued value's text (a value without
    text stays a placeholder); the copy's note on placeholders becomes :data:`SAVED_NOTE`. None when the code
    cells differ in number, ids or source (a solution's ``#@title`` line aside): the copy is stale, and the
    outputs would be another chapter's.
    """
    import copy

    from neurips24.colab import glued_text, placeholder

    new = copy.deepcopy(colab)
    mine = [c for c in new["cells"] if c["cell_type"] == "code"]
    theirs = [c for c in executed.get("cells", []) if c["cell_type"] == "code"]
    if len(mine) != len(theirs):
        return None
    for a, b in zip(mine, theirs, strict=True):
        source = _text(a)
        if source.startswith("#@title "):
            source = source.split("\n", 1)[1] if "\n" in source else ""
        if a.get("id") != b.get("id") or source != _text(b):
            return None
        a["outputs"] = copy.deepcopy(b.get("outputs", []))
        a["execution_count"] = b.get("execution_count")
    values = {name: glued_text(out) for name, out in glued.items()}
    recorded = {placeholder(name, text): placeholder(name) for name, text in (book or {}).items()}

    def value(m: re.Match) -> str:
        text = values.get(m.group("name"))
        return text if text else m.group()

    for cell in new["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        text = _text(cell)
        for shown, bare in recorded.items():   # the recorded value goes: the run's own takes its place
            text = text.replace(shown, bare)
        text = SAVED_NOTE if text.startswith("> **This is the Colab / Jupyter copy") else _PLACEHOLDER.sub(value, text)
        cell["source"] = text.splitlines(keepends=True) if isinstance(cell["source"], list) else text
    return new


def saved_runs(app, exception) -> None:
    """After the build: write ``saved/<stem>.ipynb`` (:func:`saved_copy`) for each chapter the build ran."""
    if exception is not None or getattr(app.builder, "format", "") != "html":
        return
    from neurips24.colab import load_book_values

    executed = Path(app.outdir).parent / "jupyter_execute" / "notebooks"
    out = Path(app.outdir) / "saved"
    book = load_book_values(Path(app.srcdir))
    for path in sorted((Path(app.srcdir) / "colab").glob("*.ipynb")):
        run, glue = executed / path.name, executed / f"{path.stem}.glue.json"
        if not run.is_file():
            continue
        glued = json.loads(glue.read_text(encoding="utf-8")) if glue.is_file() else {}
        nb = saved_copy(json.loads(path.read_text(encoding="utf-8")), json.loads(run.read_text(encoding="utf-8")),
                        glued, book.get(path.stem))
        if nb is None:
            continue
        out.mkdir(parents=True, exist_ok=True)
        (out / path.name).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def serve_static(app, config) -> None:
    config.html_static_path.append(str(STATIC))


def setup(app):
    app.connect("config-inited", serve_static)
    app.add_css_file("neurips24.css")
    app.add_js_file("neurips24.js")
    app.connect("html-page-context", mend_scripts, priority=900)   # after myst-nb has added the page's scripts
    app.connect("html-page-context", local_badge)
    app.connect("html-page-context", solution_code_label)
    app.connect("html-page-context", colab_launch_copy, priority=502)   # after the theme's launch buttons (501)
    app.connect("html-page-context", slides_button, priority=503)
    app.connect("build-finished", saved_runs)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
