"""Executable exercises of the barely random MTS chapter (neurips24.exercise)."""
from __future__ import annotations

import numpy as np

from ..exercise import check_cases
from .rounding import capacity

TITLE = "When does the cap leave room?"


def short_of_places(p, k_max: int) -> list[int]:
    """The k in 1..k_max for which the state p has fewer places than agents, Σ_i ⌊2k p_i⌋ < k (the reference).

    Parameters
    ----------
    p : (n,) float, a probability vector.   k_max : int >= 1.

    Returns
    -------
    list of int, in increasing order (via :func:`neurips24.mts.capacity`, the cap of eq. (mts-cap)).
    """
    return [k for k in range(1, int(k_max) + 1) if int(capacity(p, k).sum()) < k]


def _cases() -> list[tuple[np.ndarray, int]]:
    rng = np.random.default_rng(0)
    cases = [(np.full(8, 1 / 8), 8)]                         # the exercise's uniform state on n = 8 points
    cases += [(rng.dirichlet(np.full(n, 0.5)), 12) for n in (3, 5, 8)]   # uneven states: other gaps
    return cases


def check_short_of_places(answer) -> bool:
    """Say whether ``answer(p, k_max)`` lists the k <= k_max with Σ_i ⌊2k p_i⌋ < k (exercise 'When does the
    cap leave room?' of the chapter).

    Compared, as a list of ints, with :func:`short_of_places` (built on the package's tested
    :func:`neurips24.mts.capacity`) on the uniform state on 8 points (k_max = 8) and three random Dirichlet(½)
    states on 3, 5 and 8 points (k_max = 12, seed 0).

    Parameters
    ----------
    answer : callable, ``answer(p: np.ndarray, k_max: int) -> list[int]``.

    Returns
    -------
    bool, True when every case matches; prints the verdict ("not attempted yet" for the scaffold).

    Raises
    ------
    TypeError if ``answer`` is not callable. Errors raised by ``answer`` itself propagate.
    """
    cases = _cases()
    return check_cases(
        TITLE, answer, cases, short_of_places,
        describe=lambda i, case, got, want: f"for p = {np.round(case[0], 3).tolist()}, k_max = {case[1]} you return "
                                            f"{got!r}; the k with fewer places than agents are {want}.",
        summary=f"matches mts.capacity on {len(cases)} states (uniform on 8 points: k = {short_of_places(*cases[0])}).")
