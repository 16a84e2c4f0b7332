"""Sphinx extension: the <script> tags of each page, mended for the offline site.

- Each script is written once. Sphinx 7 adds an inline script registered with ``add_js_file(None, body=...)``
  twice (sphinx-doc/sphinx#13402, fixed in Sphinx 8.2; Jupyter Book 1 needs Sphinx 7): sphinx-thebe's
  ``const THEBE_JS_URL`` then raised "Identifier 'THEBE_JS_URL' has already been declared" on every page.
- On a page with saved widget states, before RequireJS: RequireJS learns where the widget manager lives
  (``_static/html-manager``), since the manager loads its fonts from its AMD module's address, which RequireJS
  would otherwise resolve against the page's own folder (a 404 for every font, online and offline); and the
  manager, which typesets widget labels with MathJax 2's ``MathJax.Hub.Queue``, gets that call on MathJax 3
  (without it every widget label raised "Cannot read properties of undefined (reading 'Queue')").
"""
from __future__ import annotations

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


def setup(app):
    app.connect("html-page-context", mend_scripts, priority=900)   # after myst-nb has added the page's scripts
    return {"parallel_read_safe": True, "parallel_write_safe": True}
