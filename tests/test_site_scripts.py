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


def _nb(cells):
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _md(text):
    return {"cell_type": "markdown", "id": "m", "metadata": {}, "source": text.splitlines(keepends=True)}


def _code(cid, source, outputs=(), count=None):
    return {"cell_type": "code", "id": cid, "metadata": {}, "source": source, "outputs": list(outputs),
            "execution_count": count}


OUT = {"output_type": "stream", "name": "stdout", "text": "ran\n"}


def test_the_saved_run_is_the_copy_with_outputs_and_glued_numbers():
    copy = _nb([_md("> **This is the Colab / Jupyter copy of the chapter.** placeholders..."),
                _md("It holds `⟨acc⟩` of the time, `⟨fig⟩` and `⟨unknown⟩`; `code` stays."),
                _code("a", "x = 1"), _code("b", "#@title Solution (double-click to open)\ny = 2")])
    run = _nb([_md("the chapter's MyST"), _code("a", "x = 1", [OUT], 1), _code("b", "y = 2", [OUT], 2)])
    glued = {"acc": {"output_type": "display_data", "data": {"text/plain": "0.93"}},
             "fig": {"output_type": "display_data", "data": {"image/png": "iVBOR"}}}
    saved = site_scripts.saved_copy(copy, run, glued)
    prose = ["".join(c["source"]) for c in saved["cells"] if c["cell_type"] == "markdown"]
    assert prose[0] == site_scripts.SAVED_NOTE
    assert prose[1] == "It holds 0.93 of the time, `⟨fig⟩` and `⟨unknown⟩`; `code` stays."
    code = [c for c in saved["cells"] if c["cell_type"] == "code"]
    assert [c["outputs"] for c in code] == [[OUT], [OUT]] and [c["execution_count"] for c in code] == [1, 2]
    # a copy that shows the book's recorded values: the run's value replaces placeholder and recorded value alike
    shown = _md("It holds `⟨acc⟩` (book's run: 0.91 (seed 0)) of the time; `⟨unknown⟩` (book's run: 3).")
    saved = site_scripts.saved_copy(_nb([shown, *copy["cells"][2:]]), run, glued, {"acc": "0.91 (seed 0)",
                                                                                    "unknown": "3"})
    assert "".join(saved["cells"][0]["source"]) == "It holds 0.93 of the time; `⟨unknown⟩`."
    assert code[1]["source"].startswith("#@title")   # the copy's folding is kept
    assert copy["cells"][2]["outputs"] == []          # the copy itself is not changed


def test_a_stale_copy_gets_no_saved_run():
    copy = _nb([_code("a", "x = 1"), _code("b", "y = 2")])
    assert site_scripts.saved_copy(copy, _nb([_code("a", "x = 1")]), {}) is None              # a cell more
    assert site_scripts.saved_copy(copy, _nb([_code("a", "x = 1"), _code("c", "y = 2")]), {}) is None   # an id
    assert site_scripts.saved_copy(copy, _nb([_code("a", "x = 1"), _code("b", "y = 3")]), {}) is None   # a source
