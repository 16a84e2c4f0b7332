"""neurips24.tables: HTML and text tables instead of Markdown pipe tables (which myst-nb shows as raw pipes)."""
from __future__ import annotations

from html.parser import HTMLParser

import numpy as np
import pytest

from neurips24 import tables


class _Cells(HTMLParser):
    """The text of each th/td, row by row, as a browser would read it."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rows, self.caption, self._in = [], [], None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("th", "td"):
            self.rows[-1].append("")
            self._in = "cell"
        elif tag == "caption":
            self._in = "caption"

    def handle_endtag(self, tag):
        if tag in ("th", "td", "caption"):
            self._in = None

    def handle_data(self, data):
        if self._in == "cell":
            self.rows[-1][-1] += data
        elif self._in == "caption":
            self.caption.append(data)


def _parse(fragment):
    p = _Cells()
    p.feed(fragment)
    return p


ROWS = [["RTN", 3, 0.123456, True], ["cherry <b>", np.int64(4), np.float64(12345.0), None]]
HEADER = ["method", "bits", "$e^{-m I}$", "ok"]


def test_html_cells_escaped_numbers_formatted_tex_for_mathjax():
    fragment = tables.table_html(ROWS, HEADER, caption="Table & caption")
    parsed = _parse(fragment)
    assert parsed.rows == [["method", "bits", r"\(e^{-m I}\)", "ok"],
                           ["RTN", "3", "0.123", "yes"],
                           ["cherry <b>", "4", "1.23e+04", "—"]]
    assert "".join(parsed.caption) == "Table & caption"
    assert "<b>" not in fragment and "mathjax_process" in fragment and "|---" not in fragment


def test_text_is_aligned_columns():
    text = tables.table_text([["a", 1.5], ["longer name", 22]], ["name", "x"], fmt="{:.2f}")
    assert text.splitlines() == ["name         x", "-----------  ----", "a            1.50", "longer name  22"]


@pytest.mark.parametrize("value, text", [(None, "—"), ("s", "s"), (False, "no"), (np.bool_(True), "yes"), (7, "7"),
                                         (2.0, "2"), (float("nan"), "nan"), (float("inf"), "inf")])
def test_format_cell(value, text):
    assert tables.format_cell(value) == text


@pytest.mark.parametrize("rows, header, error", [
    ([["a"]], "ab", TypeError), ([["a"]], [], TypeError), ("rows", ["a"], TypeError), ([["a", "b"]], ["a"], ValueError),
])
def test_bad_input(rows, header, error):
    with pytest.raises(error):
        tables.table_html(rows, header)
    with pytest.raises(error):
        tables.show_table(rows, header)


def test_show_table_prints_text_outside_ipython(capsys):
    tables.show_table([["a", 1]], ["name", "x"])
    assert capsys.readouterr().out.splitlines() == ["name  x", "----  -", "a     1"]


def test_show_table_in_a_kernel_displays_html_with_a_text_fallback(monkeypatch):
    shown = []
    import IPython
    import IPython.display

    monkeypatch.setattr(IPython, "get_ipython", lambda: object())
    monkeypatch.setattr(IPython.display, "display", lambda obj, raw=False: shown.append((obj, raw)))
    tables.show_table([["a", 1]], ["name", "x"])
    ((bundle, raw),) = shown
    assert raw and set(bundle) == {"text/html", "text/plain"}
    assert _parse(bundle["text/html"]).rows == [["name", "x"], ["a", "1"]]


def test_parse_pipes_reads_a_pipe_table_and_round_trips_through_show_table():
    md = "| U | CSQ (T = y) |\n|---|---|\n| {1, 2} | +0.001 ± 0.002 (+0.000) |\n| Leap / Cover | ∞ / 3 |"
    rows, header = tables.parse_pipes(md)
    assert header == ["U", "CSQ (T = y)"]
    assert rows == [["{1, 2}", "+0.001 ± 0.002 (+0.000)"], ["Leap / Cover", "∞ / 3"]]
    assert _parse(tables.table_html(rows, header)).rows == [header] + rows


@pytest.mark.parametrize("bad, error", [(None, TypeError), ("just text", ValueError), ("| a |\n| b |", ValueError),
                                        ("| a | b |\n|---|---|\n| 1 |", ValueError)])
def test_parse_pipes_rejects_what_is_not_a_pipe_table(bad, error):
    with pytest.raises(error):
        tables.parse_pipes(bad)


def test_a_pipe_inside_inline_code_or_escaped_stays_in_its_cell_and_code_renders():
    from neurips24.tables import parse_pipes, table_html

    rows, header = parse_pipes("| `prompt` | end |\n|---|---|\n| `<|im_end|>` | a \\| b |\n")
    assert header == ["`prompt`", "end"] and rows == [["`<|im_end|>`", "a | b"]]
    page = table_html(rows, header)
    assert "<th><code>prompt</code></th>" in page and "<code>&lt;|im_end|&gt;</code>" in page and "`" not in page


# --- pivot and collapsed tables --------------------------------------------------------------------------


def test_pivot_makes_one_row_per_key_and_one_column_per_value():
    recs = [{"field": "a", "dtype": "f4", "codec": "gzip", "ratio": 1.5},
            {"field": "a", "dtype": "f4", "codec": "zstd", "ratio": 2.0},
            {"field": "b", "dtype": "f4", "codec": "zstd", "ratio": 3.0}]
    rows, header = tables.pivot(recs, ("field", "dtype"), "codec", "ratio")
    assert header == ["field", "dtype", "gzip", "zstd"]
    assert rows == [["a", "f4", 1.5, 2.0], ["b", "f4", None, 3.0]]
    rows, header = tables.pivot(recs, "field", "codec", "ratio")
    assert header == ["field", "gzip", "zstd"] and rows[1] == ["b", None, 3.0]
    assert "—" in tables.table_text(rows, header)   # the missing cell


def test_pivot_refuses_bad_records():
    with pytest.raises(TypeError, match="records"):
        tables.pivot("abc", "field", "codec", "ratio")
    with pytest.raises(TypeError, match="records"):
        tables.pivot([1, 2], "field", "codec", "ratio")
    with pytest.raises(ValueError, match="'ratio'"):
        tables.pivot([{"field": "a", "codec": "gzip"}], "field", "codec", "ratio")
    twice = [{"field": "a", "codec": "gzip", "ratio": 1.0}] * 2
    with pytest.raises(ValueError, match="two records"):
        tables.pivot(twice, "field", "codec", "ratio")


def test_a_collapsed_table_is_a_details_element_with_its_summary():
    fragment = tables.table_html([[1, "x"]], ["n", "s"], collapsed="All 1 rows: `n` and s")
    assert fragment.startswith("<details class='neurips24-table-details'><summary>All 1 rows: <code>n</code>")
    assert fragment.endswith("</table></div></details>") and " open" not in fragment
    assert _parse(fragment).rows == [["n", "s"], ["1", "x"]]
    assert "<details" not in tables.table_html([[1, "x"]], ["n", "s"])
    with pytest.raises(TypeError, match="collapsed"):
        tables.table_html([[1]], ["n"], collapsed=True)
    with pytest.raises(ValueError, match="collapsed"):
        tables.table_html([[1]], ["n"], collapsed="  ")


def test_show_table_prints_a_collapsed_table_after_its_summary(capsys):
    tables.show_table([[1]], ["n"], collapsed="the full table")
    assert capsys.readouterr().out.splitlines()[:2] == ["the full table", "n"]
