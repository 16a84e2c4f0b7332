"""Executable exercises of the LLM survey-responses chapter (neurips24.exercise)."""
from __future__ import annotations

import numpy as np

from ..exercise import check_cases
from .adjust import adjusted_response, choice_orders

TITLE = "Undo the shuffle"
ATOL = 1e-12


def _cases() -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(0)
    cases = []
    for k, design in ((2, "all"), (3, "all"), (4, "all"), (5, "cyclic"), (7, "all")):
        orders = choice_orders(k, max_perms=30, design=design, seed=k)
        P = rng.dirichlet(np.ones(k), size=len(orders))
        cases.append((P, orders))
    return cases


def check_adjusted(answer) -> bool:
    """Say whether ``answer(P, orders)`` is the permutation-adjusted response p_adj (exercise 'Undo the shuffle').

    p_adj[c] = mean_j P[j, pos_j(c)], the probability each *choice* got, averaged over the orders asked, in the
    questionnaire's order; compared with :func:`neurips24.survey.adjust.adjusted_response` (tested against a
    loop over orders and hand-worked cases) to 1e-12 on five random cases: k = 2, 3, 4 with all orders, k = 5
    with the cyclic shifts, k = 7 with 30 sampled orders.

    Parameters
    ----------
    answer : callable, ``answer(P: (J, k) float, orders: (J, k) int) -> (k,) float``.

    Returns
    -------
    bool, True when every case matches; prints the verdict ("not attempted yet" for the scaffold).

    Raises
    ------
    TypeError if ``answer`` is not callable. Errors raised by ``answer`` itself propagate.
    """
    cases = _cases()
    return check_cases(
        TITLE, answer, cases, lambda P, orders: adjusted_response(P, orders)[1], atol=ATOL,
        describe=lambda i, case, got, want: f"for k = {case[0].shape[1]} with {len(case[1])} orders you return "
                                            f"{np.round(np.ravel(got), 4).tolist()}; the adjusted response is "
                                            f"{np.round(want, 4).tolist()}.",
        summary=f"matches survey.adjusted_response to {ATOL:g} on {len(cases)} cases (k = 2 to 7).")
