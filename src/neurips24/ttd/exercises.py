"""Executable exercises of the test-time dynamic image fusion chapter (neurips24.exercise)."""
from __future__ import annotations

import numpy as np

from ..exercise import check_cases
from .weights import rd_weights

TITLE = "γ and the sign"
RTOL, ATOL = 1e-9, 1e-12


def _cases() -> list[tuple[np.ndarray, float]]:
    rng = np.random.default_rng(0)
    two = rng.exponential(0.01, (2, 8, 8))                  # uni-source losses of the size the network leaves
    three = rng.exponential(0.05, (3, 5, 6))
    return [(two, 50.0), (two, 1.0), (two, 2000.0), (three, 10.0)]


def check_rd_weights(answer) -> bool:
    """Say whether ``answer(loss, gamma)`` gives TTD's per-pixel fusion weights, relative dominability (Eq. 6):
    ω_m = M e^{z_m} / Σ_k e^{z_k}, z_m = exp(−γ ℓ_m) (exercise 'γ and the sign' of the chapter).

    Compared with :func:`neurips24.ttd.rd_weights` (form 'exp') to rtol 1e-9, atol 1e-12 on exponential
    random losses (seed 0): M = 2 sources of 8 × 8 pixels at γ = 50 (the code's), 1 (the paper's) and 2000, and
    M = 3 sources of 5 × 6 pixels at γ = 10.

    Parameters
    ----------
    answer : callable, ``answer(loss: (M, H, W) float array >= 0, gamma: float > 0) -> (M, H, W) float array``.

    Returns
    -------
    bool, True when every case matches; prints the verdict ("not attempted yet" for the scaffold).

    Raises
    ------
    TypeError if ``answer`` is not callable. Errors raised by ``answer`` itself propagate.
    """
    cases = _cases()
    return check_cases(
        TITLE, answer, cases, lambda loss, gamma: rd_weights(loss, gamma, "exp"), rtol=RTOL, atol=ATOL,
        describe=lambda i, case, got, want: f"for M = {case[0].shape[0]} sources at γ = {case[1]:g} your weights "
                                            f"differ from ttd.rd_weights (which sum to M = {case[0].shape[0]} at "
                                            "every pixel).",
        summary=f"matches ttd.rd_weights to {RTOL:g} on {len(cases)} cases (M = 2 at γ = 1, 50, 2000; M = 3).")
