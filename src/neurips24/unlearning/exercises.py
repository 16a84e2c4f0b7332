"""Executable exercises of the unlearning difficulty chapter (neurips24.exercise)."""
from __future__ import annotations

import numpy as np

from ..exercise import check_cases
from .metrics import tow

TITLE = "ToW of doing nothing"
KEYS = ("forget", "retain", "test")


def _cases() -> list[tuple[dict, dict]]:
    rng = np.random.default_rng(0)
    cases = [({"forget": 1.0, "retain": 0.98, "test": 0.9}, {"forget": 0.0, "retain": 0.98, "test": 0.9}),  # flipped
             ({"forget": 1.0, "retain": 0.98, "test": 0.9}, {"forget": 0.97, "retain": 0.98, "test": 0.9})]  # typical
    for _ in range(6):
        u, r = rng.uniform(0, 1, 3), rng.uniform(0, 1, 3)
        cases.append((dict(zip(KEYS, u.tolist(), strict=True)), dict(zip(KEYS, r.tolist(), strict=True))))
    return cases


def check_tow(answer) -> bool:
    """Say whether ``answer(acc_u, acc_r)`` is the tug-of-war score ToW of an unlearned model against the
    retrained oracle (exercise 'ToW of doing nothing' of the chapter): the product over S, R and the test set of
    1 − |a_u − a_r|.

    Compared with :func:`neurips24.unlearning.tow` to 1e-12 on the exercise's two cases (flipped-label and
    typical forget sets, the original model as the unlearned one) and six random pairs of accuracies (seed 0).

    Parameters
    ----------
    answer : callable, ``answer(acc_u: dict, acc_r: dict) -> float``; each dict maps 'forget', 'retain', 'test'
        to an accuracy in [0, 1].

    Returns
    -------
    bool, True when every case matches; prints the verdict ("not attempted yet" for the scaffold).

    Raises
    ------
    TypeError if ``answer`` is not callable. Errors raised by ``answer`` itself propagate.
    """
    cases = _cases()
    return check_cases(
        TITLE, answer, cases, tow, atol=1e-12,
        describe=lambda i, case, got, want: f"for acc_u = {case[0]}, acc_r = {case[1]} you return {got!r}; "
                                            f"ToW is {want:.6g}.",
        summary=f"matches unlearning.tow on {len(cases)} pairs, the exercise's two included.")
