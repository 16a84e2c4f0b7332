"""``glue``: a number a run computed, put into the chapter's prose so that text and run cannot disagree.

In the book, myst-nb does the work: ``myst_nb.glue(name, value, display=False)`` stores the value in the cell's
output, and the ``{glue}`name``` role in a markdown cell shows it. A reader who runs the chapter in JupyterLab
or Colab sees the role as raw text (neither renders MyST), so there the value is also shown in the code cell's
output, as a short line ``name = value``. Unattended runs under ``make`` (``NEURIPS24_WIDGETS=0``, the same
switch that turns the live controls off) skip that line: the book shows the value in the prose.

The value is glued as formatted text (``fmt``), so the prose shows ``0.036``, not ``0.036214...`` or a quoted
string; myst-nb is used when it is installed and the line alone otherwise (Colab does not ship myst-nb).
"""
from __future__ import annotations

import os
import re

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


class _Text(str):
    """A string whose repr is itself, so myst-nb's text/plain output shows ``0.036``, not ``'0.036'``."""

    def __repr__(self) -> str:
        return str(self)


def glue(name: str, value, fmt: str | None = None) -> None:
    """Glue ``value`` under ``name`` for the ``{glue}`name``` role, and show it where MyST is not rendered.

    Parameters
    ----------
    name : the key the prose uses: letters, digits, '_' and '-', starting with a letter or '_'.
    value : a number, string or anything with a ``str``; NumPy scalars are fine.
    fmt : a format string applied to ``value`` (e.g. ``'{:.3g}'``, ``'{:.1%}'``, ``'{:,d}'``); default ``str``.

    Raises
    ------
    ValueError if ``name`` is not a valid key or ``fmt`` does not format ``value``.
    """
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"name must be letters, digits, '_' or '-' (starting with a letter), got {name!r}")
    try:
        text = _Text(fmt.format(value) if fmt is not None else str(value))
    except (ValueError, TypeError, IndexError, KeyError) as exc:
        raise ValueError(f"fmt {fmt!r} cannot format {value!r}: {exc}") from exc
    try:
        from myst_nb import glue as myst_glue
    except ImportError:
        myst_glue = None
    if myst_glue is not None:
        myst_glue(name, text, display=False)
    if os.environ.get("NEURIPS24_WIDGETS", "1").strip() != "0":
        print(f"{name} = {text}")
