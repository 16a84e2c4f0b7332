"""Executable exercises of the sparse-function queries chapter (neurips24.exercise)."""
from __future__ import annotations

import numpy as np

from ..exercise import check_cases
from .junta import make_junta
from .queries import loss_derivative

TITLE = "Huber's blind spot"
ATOL = 1e-12


def _cases() -> list[tuple[float, np.ndarray, float]]:
    y = np.asarray(make_junta(32, (0, 1, 2), "gaussian", 0.2).label_values(), dtype=np.float64)
    rng = np.random.default_rng(0)
    y_rand = rng.normal(0.0, 3.0, 40)
    return [(0.0, y, 1.0), (0.0, y, 0.5), (0.0, y, 3.0), (0.7, y_rand, 1.0), (-2.0, y_rand, 2.5)]


def check_huber_derivative(answer) -> bool:
    """Say whether ``answer(u, y, delta)`` is the Huber loss derivative ℓ'(u, y) = ∂ℓ(u, y)/∂u (exercise
    "Huber's blind spot" of the chapter).

    Compared with :func:`neurips24.dlq.loss_derivative` ('huber') to 1e-12 on the chapter's junta's label
    values at u = 0 and δ ∈ {0.5, 1, 3}, and on 40 normal labels (σ = 3, seed 0) at (u, δ) = (0.7, 1) and
    (−2, 2.5).

    Parameters
    ----------
    answer : callable, ``answer(u: float, y: (n,) float array, delta: float) -> (n,) float array``.

    Returns
    -------
    bool, True when every case matches; prints the verdict ("not attempted yet" for the scaffold).

    Raises
    ------
    TypeError if ``answer`` is not callable. Errors raised by ``answer`` itself propagate.
    """
    cases = _cases()
    return check_cases(
        TITLE, answer, cases, lambda u, y, delta: loss_derivative("huber", u, y, delta), atol=ATOL,
        describe=lambda i, case, got, want: f"at u = {case[0]}, δ = {case[2]}, y = {np.round(case[1][:4], 3).tolist()}"
                                            f"... you return {np.round(np.ravel(got)[:4], 3).tolist()}...; ℓ' is "
                                            f"{np.round(want[:4], 3).tolist()}...",
        summary=f"matches dlq.loss_derivative('huber') on {len(cases)} cases.")
