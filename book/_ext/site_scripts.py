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
- The header's Colab launch button opens the chapter's Colab copy, ``colab/<stem>.ipynb`` (as the badge does):
  sphinx-book-theme builds it from the page's own path, ``notebooks/<stem>.ipynb``, whose MyST markup Colab shows
  as raw text, and has no option to point one launcher elsewhere. Binder opens the same copy in JupyterLab
  (``urlpath=lab/tree/colab/<stem>.ipynb``): the classic view would show the chapter's MyST source.
"""
from __future__ import annotations

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
    return {"parallel_read_safe": True, "parallel_write_safe": True}
