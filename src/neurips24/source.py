"""``show(obj)``: display a function's tested source in a notebook, syntax-highlighted.

The source comes from :func:`inspect.getsource`; IPython's ``display.Code`` (Pygments) highlights it.
"""
from __future__ import annotations

import ast
import inspect
import textwrap


def show(obj, *, docstring: bool = True):
    """Display the source of a function, class or method from the package.

    Parameters
    ----------
    obj : a Python function, class or method whose source file is available.
    docstring : if False, the docstring is left out and only the code is shown.

    Returns
    -------
    IPython.display.Code, which Jupyter renders highlighted (plain text elsewhere).

    Raises
    ------
    TypeError if ``obj`` has no retrievable source (a builtin, a number, a string).
    """
    from IPython.display import Code

    try:
        src = textwrap.dedent(inspect.getsource(obj))
    except (TypeError, OSError) as exc:
        raise TypeError(f"show() needs a Python function, class or method, got {obj!r}") from exc
    if not docstring:
        src = without_docstring(src)
    return Code(src, language="python")


def without_docstring(src: str) -> str:
    """``src`` (one def or class) with the docstring lines of its outer definition removed."""
    node = ast.parse(src).body[0]
    first = node.body[0] if getattr(node, "body", None) else None
    if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)) or len(node.body) == 1 or first.lineno == node.lineno:
        return src
    lines = src.splitlines(keepends=True)
    return "".join(lines[: first.lineno - 1] + lines[first.end_lineno:])
