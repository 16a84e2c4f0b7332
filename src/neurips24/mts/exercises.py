"""Executable exercises of the barely random MTS chapter (neurips24.exercise)."""
from __future__ import annotations

import numpy as np

from ..exercise import NOT_ATTEMPTED, attempt, verdict
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
    first = attempt(answer, cases[0][0].copy(), cases[0][1])
    if first is NOT_ATTEMPTED:
        return verdict(TITLE, first, False)
    for i, (p, k_max) in enumerate(cases):
        got = first if i == 0 else answer(p.copy(), k_max)
        want = short_of_places(p, k_max)
        try:
            ok = [int(k) for k in got] == want
        except (TypeError, ValueError):
            ok = False
        if not ok:
            return verdict(TITLE, got, False, f"for p = {np.round(p, 3).tolist()}, k_max = {k_max} you return "
                           f"{got!r}; the k with fewer places than agents are {want}.")
    return verdict(TITLE, first, True, f"matches mts.capacity on {len(cases)} states "
                   f"(uniform on 8 points: k = {short_of_places(*cases[0])}).")
