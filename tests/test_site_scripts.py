"""book/_ext/site_scripts.py: a solution's hidden code cell says "Show solution code" and has that accessible
name; other hidden cells keep myst-nb's wording. (The toggles named in the browser: tests/browser/test_reader.py.)"""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("site_scripts", ROOT / "book" / "_ext" / "site_scripts.py")
site_scripts = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(site_scripts)


def _cell(tags: str, what: str = "content") -> str:   # myst-nb 1.x's markup of a hidden code cell
    return (f'<div class="cell {tags} docutils container">\n<details class="admonition hide above-input">\n'
            f'<summary aria-label="Toggle hidden content">\n<p class="collapsed admonition-title">Show code cell {what}'
            f'</p>\n<p class="expanded admonition-title">Hide code cell {what}</p>\n</summary>')


def _label(body: str) -> str:
    context = {"body": body}
    site_scripts.solution_code_label(None, "notebooks/x", "page.html", context, None)
    return context["body"]


def test_a_hidden_solution_cell_says_show_solution_code():
    out = _label(_cell("tag_hide-cell tag_solution") + _cell("tag_solution tag_hide-input", "source"))
    assert out.count('aria-label="Show or hide the solution code"') == 2
    assert out.count(">Show solution code</p>") == 2 and out.count(">Hide solution code</p>") == 2
    assert "code cell" not in out and "Toggle hidden content" not in out


def test_other_hidden_cells_are_left_alone():
    body = _cell("tag_hide-cell") + _cell("tag_hide-input tag_solutions_table")
    assert _label(body) == body
