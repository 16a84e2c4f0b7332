"""Tables a chapter shows: an HTML table in Jupyter, Colab and the book, aligned plain text elsewhere.

myst-nb renders a Markdown output as CommonMark, which has no tables, so ``display(Markdown(pipe_table))`` reaches
the book's reader as raw ``| pipes |``. :func:`show_table` displays one output with two representations: HTML
(escaped, in a box that scrolls sideways when the table is wider than the column) and text/plain (aligned
columns, what a terminal or a text-only front end shows). Cells may hold inline TeX as ``$...$``: it is shown as
``\\(...\\)``, which MathJax typesets in Jupyter and in the book (the table's box asks for it with the class
``mathjax_process``).
"""
from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence
from numbers import Integral, Real

import numpy as np

_DOLLAR_MATH = re.compile(r"\$([^$]+)\$")
_CODE = re.compile(r"`([^`]+)`")


def format_cell(value, fmt: str = "{:.3g}") -> str:
    """A cell's text: strings as they are, bools as yes/no, other numbers through ``fmt``, None as an em dash."""
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, Integral):
        return str(int(value))
    if isinstance(value, Real):
        return fmt.format(float(value)) if math.isfinite(float(value)) else str(float(value))
    return str(value)


def _check(rows, header) -> tuple[list[str], list[list]]:
    if isinstance(header, (str, bytes)) or not isinstance(header, Sequence) or not header:
        raise TypeError(f"header must be a non-empty sequence of column names, got {type(header).__name__}")
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence):
        raise TypeError(f"rows must be a sequence of rows, got {type(rows).__name__}")
    rows = [list(r) for r in rows]
    for i, row in enumerate(rows):
        if len(row) != len(header):
            raise ValueError(f"rows[{i}] has {len(row)} cells, the header has {len(header)}")
    return [str(h) for h in header], rows


def _html_cell(text: str) -> str:
    """Escaped HTML; ``$tex$`` becomes ``\\(tex\\)`` for MathJax and ```code``` becomes ``<code>code</code>``."""
    out = []
    for j, chunk in enumerate(_CODE.split(text)):   # odd indices: inline code, shown as it is
        if j % 2:
            out.append(f"<code>{html.escape(chunk)}</code>")
            continue
        parts = _DOLLAR_MATH.split(chunk)   # even indices: text, odd: TeX
        out.append("".join(html.escape(p) if i % 2 == 0 else r"\(" + html.escape(p) + r"\)"
                           for i, p in enumerate(parts)))
    return "".join(out)


def table_html(rows, header, *, caption: str | None = None, fmt: str = "{:.3g}", collapsed: str | None = None) -> str:
    """The table as an HTML fragment (a ``div.neurips24-table-wrap`` holding a ``table.neurips24-table``).

    Parameters
    ----------
    rows : sequence of rows, each a sequence of cells (str, number, bool or None), one per column of ``header``.
    header : sequence of column names (str; ``$...$`` is typeset as inline math).
    caption : optional caption above the table.
    fmt : format of the cells that are non-integer numbers (default three significant digits).
    collapsed : if given, the table is folded away in a ``details.neurips24-table-details`` element whose
        summary (the line a reader clicks to open it) is this text; a long table then takes one line.

    Raises
    ------
    TypeError if ``header`` or ``rows`` is not a sequence (a string is not), or ``collapsed`` is not a str;
    ValueError if a row's length differs from the header's, or ``collapsed`` is empty.
    """
    header, rows = _check(rows, header)
    if collapsed is not None and not isinstance(collapsed, str):
        raise TypeError(f"collapsed must be a str (the summary line) or None, got {type(collapsed).__name__}")
    if collapsed is not None and not collapsed.strip():
        raise ValueError("collapsed must be a non-empty summary line (or None for an open table)")
    head = "".join(f"<th>{_html_cell(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{_html_cell(format_cell(c, fmt))}</td>" for c in row) + "</tr>"
                   for row in rows)
    cap = f"<caption>{_html_cell(caption)}</caption>" if caption else ""
    table = (f"<div class='neurips24-table-wrap mathjax_process' style='overflow-x:auto;max-width:100%'>"
             f"<table class='neurips24-table'>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")
    if collapsed is None:
        return table
    return (f"<details class='neurips24-table-details'><summary>{_html_cell(collapsed)}</summary>"
            f"{table}</details>")


def table_text(rows, header, *, caption: str | None = None, fmt: str = "{:.3g}") -> str:
    """The table as aligned plain text (columns padded to their widest cell). Same parameters as :func:`table_html`."""
    header, rows = _check(rows, header)
    cells = [header] + [[" ".join(format_cell(c, fmt).split()) for c in row] for row in rows]
    widths = [max(len(r[j]) for r in cells) for j in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(([caption] if caption else []) + lines)


def show_table(rows, header, *, caption: str | None = None, fmt: str = "{:.3g}", collapsed: str | None = None) -> None:
    """Display the table: HTML in Jupyter, Colab and the book; aligned text where only text shows (a script prints it).

    Same parameters and errors as :func:`table_html`; a ``collapsed`` table's text form starts with its summary line.
    """
    html_text = table_html(rows, header, caption=caption, fmt=fmt, collapsed=collapsed)
    plain = table_text(rows, header, caption=caption, fmt=fmt)
    if collapsed is not None:
        plain = f"{collapsed}\n{plain}"
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:   # pragma: no cover - IPython is a dependency
        get_ipython = None
    if get_ipython is not None and get_ipython() is not None:
        display({"text/html": html_text, "text/plain": plain}, raw=True)
    else:
        print(plain)


def pivot(records, rows, column: str, value: str) -> tuple[list[list], list[str]]:
    """A long table made wide: one row per distinct ``rows`` key, one column per distinct ``column`` value.

    For :func:`show_table`: ``show_table(*pivot(records, ("field", "dtype"), "codec", "ratio"))``.

    Parameters
    ----------
    records : sequence of dicts (one per measurement), each holding the keys named below.
    rows : a key (str) or a sequence of keys whose values label a row (each key becomes a leading column).
    column : the key whose distinct values become the columns, in order of first appearance.
    value : the key whose value fills a cell; a (row, column) pair no record has is None (shown as an em dash).

    Returns
    -------
    (rows, header): header = [*rows keys, *column values]; rows in order of first appearance.

    Raises
    ------
    TypeError if ``records`` is not a sequence of dicts; ValueError if a record lacks a named key, or two records
    share a (row, column) pair (the cell would be ambiguous).
    """
    keys = (rows,) if isinstance(rows, str) else tuple(rows)
    if isinstance(records, (str, bytes)) or not isinstance(records, Sequence) \
            or not all(isinstance(r, dict) for r in records):
        raise TypeError("records must be a sequence of dicts")
    cells: dict[tuple, dict] = {}
    columns: dict = {}
    for i, rec in enumerate(records):
        missing = [k for k in (*keys, column, value) if k not in rec]
        if missing:
            raise ValueError(f"records[{i}] has no key {missing[0]!r}")
        label, col = tuple(rec[k] for k in keys), rec[column]
        columns.setdefault(col, None)
        row = cells.setdefault(label, {})
        if col in row:
            raise ValueError(f"two records for {dict(zip(keys, label, strict=True))} and {column} = {col!r}")
        row[col] = rec[value]
    header = [*keys, *map(str, columns)]
    return [[*label, *(row.get(c) for c in columns)] for label, row in cells.items()], header


def parse_pipes(text: str) -> tuple[list[list[str]], list[str]]:
    """The rows and the header of a Markdown pipe table (``| a | b |`` lines, the second one ``|---|---|``).

    For a package that already formats its table as Markdown: ``show_table(*parse_pipes(md))`` shows it as
    :func:`show_table` does. Cells are stripped; a ``|`` inside inline code (```<|im_end|>```) or escaped as
    ``\\|`` belongs to its cell.

    Raises
    ------
    TypeError if ``text`` is not a str; ValueError if it has no header and separator line, or a row's
    number of cells differs from the header's.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if len(lines) < 2 or not all(ln.startswith("|") and ln.endswith("|") for ln in lines) \
            or not re.fullmatch(r"\|(\s*:?-{3,}:?\s*\|)+", lines[1]):
        raise ValueError("text must be a pipe table: a '| ... |' header line, a '|---|' separator line, then rows")
    header, *rows = [[cell.strip() for cell in _split_row(ln[1:-1])] for ln in lines[:1] + lines[2:]]
    for i, row in enumerate(rows):
        if len(row) != len(header):
            raise ValueError(f"row {i} of the table has {len(row)} cells, the header has {len(header)}")
    return rows, header


def _split_row(text: str) -> list[str]:
    """A pipe-table row's cells: split on ``|`` outside inline code and not escaped (``\\|`` becomes ``|``)."""
    cells, cell, in_code, i = [], [], False, 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] == "|":
            cell.append("|")
            i += 2
            continue
        if ch == "`":
            in_code = not in_code
        if ch == "|" and not in_code:
            cells.append("".join(cell))
            cell = []
        else:
            cell.append(ch)
        i += 1
    cells.append("".join(cell))
    return cells
