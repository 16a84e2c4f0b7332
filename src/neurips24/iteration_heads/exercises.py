"""Executable exercises of the iteration heads chapter (neurips24.exercise)."""
from __future__ import annotations

import numpy as np

from ..exercise import check_cases
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
    cases = [(x,) for x in _cases()]
    return check_cases(
        TITLE, answer, cases, lambda x: encode("polynomial", [x], cot=True)[0],
        describe=lambda i, case, got, want: f"for x = {case[0]} you return {got!r}; the sequence is {want.tolist()}.",
        summary=f"matches ih.tasks.encode on {len(cases)} inputs (lengths 1 to 9).")
