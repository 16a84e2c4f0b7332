"""Executable exercises of the evidential deep learning chapter (neurips24.exercise)."""
from __future__ import annotations

import numpy as np

from ..exercise import check_cases
from .dirichlet import epistemic_uncertainty

TITLE = "The floor at other λ"
RTOL, ATOL = 1e-8, 1e-12


def _cases() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [
        np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 11.0], [2.0, 3.0, 5.0]]),      # flat, peaked, in between (C = 3)
        rng.gamma(2.0, 3.0, size=(50, 3)) + 0.05,                            # random, C = 3
        1.0 + rng.dirichlet(np.ones(10), size=20) / 1e-4,                    # the optimum α = 1 + η/λ, C = 10
    ]


def check_mutual_information(answer) -> bool:
    """Say whether ``answer(alpha)`` is the mutual information I(y; π) of Dir(α), row by row, in nats (exercise
    'The floor at other λ' of the chapter).

    I = H(ᾱ) − E H(π) with ᾱ = α / α₀ and E H(π) = −Σ_c ᾱ_c (ψ(α_c + 1) − ψ(α₀ + 1)); compared with
    :func:`neurips24.edl.epistemic_uncertainty` (the package's tested closed form) to rtol 1e-8, atol 1e-12
    on three hand-picked rows, 50 random rows (C = 3) and 20 optima α = 1 + η/λ at λ = 10⁻⁴ (C = 10).

    Parameters
    ----------
    answer : callable, ``answer(alpha: (n, C) float array) -> (n,) float array``.

    Returns
    -------
    bool, True when every case matches; prints the verdict ("not attempted yet" for the scaffold).

    Raises
    ------
    TypeError if ``answer`` is not callable. Errors raised by ``answer`` itself propagate.
    """
    cases = [(alpha,) for alpha in _cases()]
    return check_cases(
        TITLE, answer, cases, epistemic_uncertainty, rtol=RTOL, atol=ATOL,
        describe=lambda i, case, got, want: f"for alpha = {np.round(case[0][0], 3).tolist()} (first row of case "
                                            f"{i + 1}) you return {np.ravel(got)[:1]!r}...; the mutual information is "
                                            f"{want[0]:.6g}.",
        summary=f"matches edl.epistemic_uncertainty to {RTOL:g} on {sum(len(alpha) for alpha, in cases)} Dirichlets "
                "(C = 3 and 10).")
