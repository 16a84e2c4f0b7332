"""Argument checks shared by the chapters: one message format for a bad count."""
from __future__ import annotations

import numpy as np


def check_count(name: str, value, minimum: int = 1) -> int:
    """``value`` as an int if it is an integer (not a bool) >= ``minimum``.

    Raises
    ------
    ValueError naming ``name`` and the accepted range otherwise (a float or bool included).
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)
