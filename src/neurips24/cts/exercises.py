"""Executable exercises of the combinatorial Thompson sampling chapter (neurips24.exercise)."""
from __future__ import annotations

from ..exercise import check_cases
from .theory import switch_probability

#: the decision sizes the check tries (small, the chapter's, and the paper's m = 35)
TITLE = "When does the exact posterior give up?"
SIZES = (1, 3, 10, 25, 35)
RTOL = 1e-6


def check_switch_probability(answer) -> bool:
    """Say whether ``answer(m)`` is B-CTS's per-round chance p_m of leaving A_1 (exercise 'When does the exact
    posterior give up?').

    p_m = P(U_1 + … + U_m > 0.7 m) for i.i.d. U(0, 1) (the uniform prior, A_1's arms at mean 0.7), compared
    with :func:`neurips24.cts.switch_probability` (``uniform_exact``, the Irwin–Hall tail in exact rational
    arithmetic) to a relative tolerance of 1e-6 at m ∈ {1, 3, 10, 25, 35}.

    Parameters
    ----------
    answer : callable, ``answer(m: int) -> float``.

    Returns
    -------
    bool, True when every value matches; prints the verdict (or "not attempted yet" for the scaffold).

    Raises
    ------
    TypeError if ``answer`` is not callable. Errors raised by ``answer`` itself propagate.
    """
    return check_cases(
        TITLE, answer, [(m,) for m in SIZES], lambda m: switch_probability(m)["uniform_exact"], rtol=RTOL,
        describe=lambda i, case, got, want: f"at m = {case[0]} you return {got!r}; the Irwin–Hall tail is {want:.6g}.",
        summary=f"matches the exact Irwin–Hall tail to {RTOL:g} (relative) at m = {', '.join(map(str, SIZES))}.")
