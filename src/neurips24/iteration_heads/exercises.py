"""Executable exercises of the iteration heads chapter (neurips24.exercise)."""
from __future__ import annotations

import numpy as np

from ..exercise import NOT_ATTEMPTED, attempt, verdict
from .tasks import ALPHABET, encode

TITLE = "Read the layout"


def _cases() -> list[list[int]]:
    rng = np.random.default_rng(0)
    low, high = ALPHABET["polynomial"][0], ALPHABET["polynomial"][-1]
    return [[3, 4, 5]] + [rng.integers(low, high + 1, size=L).tolist() for L in (1, 2, 6, 9)]


def check_cot_sequence(answer) -> bool:
    """Say whether ``answer(x)`` is the token sequence, with chain of thought, of the polynomial task for the
    inputs x (exercise 'Read the layout' of the chapter).

    Compared, token for token, with :func:`neurips24.iteration_heads.tasks.encode` ('polynomial', cot=True,
    no padding: width 2L + 3) on the exercise's x = [3, 4, 5] and on four random inputs of lengths 1, 2, 6
    and 9 (seed 0).

    Parameters
    ----------
    answer : callable, ``answer(x: list[int]) -> sequence of 2 len(x) + 3 ints``.

    Returns
    -------
    bool, True when every sequence matches; prints the verdict ("not attempted yet" for the scaffold).

    Raises
    ------
    TypeError if ``answer`` is not callable. Errors raised by ``answer`` itself propagate.
    """
    cases = _cases()
    first = attempt(answer, list(cases[0]))
    if first is NOT_ATTEMPTED:
        return verdict(TITLE, first, False)
    for i, x in enumerate(cases):
        got = first if i == 0 else answer(list(x))
        want = encode("polynomial", [x], cot=True)[0].tolist()
        try:
            ok = [int(t) for t in got] == want
        except (TypeError, ValueError):
            ok = False
        if not ok:
            return verdict(TITLE, got, False, f"for x = {x} you return {got!r}; the sequence is {want}.")
    return verdict(TITLE, first, True, f"matches ih.tasks.encode on {len(cases)} inputs (lengths 1 to 9).")
