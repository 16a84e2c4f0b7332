"""One way to seed: every seed a chapter uses goes through :func:`seed` or :func:`seeds`.

``NEURIPS24_SEED_OFFSET`` (an integer >= 0, default 0) shifts every seed, so that the whole book can be run at
another seed set (``make reseed`` runs every chapter at offset 1000) and a verdict that depends on the draw is
found. NumPy generators are passed explicitly; torch's global RNG is seeded when torch is used.
"""
from __future__ import annotations

import os
import random
import sys

import numpy as np

OFFSET_VAR = "NEURIPS24_SEED_OFFSET"


def _check_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return int(value)


def offset() -> int:
    """The seed offset, read from ``$NEURIPS24_SEED_OFFSET`` at each call (default 0).

    Raises
    ------
    ValueError if the variable is set to something other than an integer >= 0.
    """
    raw = os.environ.get(OFFSET_VAR, "").strip()
    if not raw:
        return 0
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{OFFSET_VAR} must be an integer >= 0, got {raw!r}") from None
    if value < 0:
        raise ValueError(f"{OFFSET_VAR} must be an integer >= 0, got {raw!r}")
    return value


def seed(i: int = 0) -> int:
    """The seed a chapter calls ``i``: ``offset() + i``.

    Raises
    ------
    TypeError if ``i`` is not an int; ValueError if it is negative.
    """
    return offset() + _check_int("i", i)


def seeds(n: int, start: int = 0) -> tuple[int, ...]:
    """``n`` consecutive seeds ``(offset()+start, ..., offset()+start+n-1)``: the seed set of a multi-seed claim.

    Raises
    ------
    TypeError if ``n`` or ``start`` is not an int; ValueError if ``n < 1`` or ``start < 0``.
    """
    n = _check_int("n", n)
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    first = seed(_check_int("start", start))
    return tuple(range(first, first + n))


def seed_everything(seed_: int = 0) -> np.random.Generator:
    """Seed Python's ``random``, torch (when imported) with ``seed(seed_)`` (the offset applied) and return
    ``numpy.random.default_rng(seed(seed_))``.

    Raises
    ------
    TypeError if ``seed_`` is not an int; ValueError if it is negative.
    """
    s = seed(seed_)
    random.seed(s)
    if "torch" in sys.modules:
        sys.modules["torch"].manual_seed(s)
    return np.random.default_rng(s)
