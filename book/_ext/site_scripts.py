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
"""
from __future__ import annotations

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


def serve_static(app, config) -> None:
    config.html_static_path.append(str(STATIC))


def setup(app):
    app.connect("config-inited", serve_static)
    app.add_css_file("neurips24.css")
    app.add_js_file("neurips24.js")
    app.connect("html-page-context", mend_scripts, priority=900)   # after myst-nb has added the page's scripts
    app.connect("html-page-context", local_badge)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
