"""Executable exercises of the feature complexity chapter (neurips24.exercise)."""
from __future__ import annotations

import numpy as np

from ..exercise import check_cases
from .vinfo import split_halves, v_information

TITLE = "Ridge strength and the spread"
RTOL, ATOL = 1e-8, 1e-10


def _cases() -> list[tuple]:
    rng = np.random.default_rng(0)
    n, p, k = 80, 12, 5
    F = rng.standard_normal((n, p)) * rng.uniform(0.5, 3.0, p) + rng.uniform(-2, 2, p)   # unstandardised
    Z = F @ rng.standard_normal((p, k)) + rng.standard_normal((n, k)) * np.array([0.1, 0.5, 1, 3, 30])
    Z[:, -1] = rng.standard_normal(n)                       # one feature F cannot decode: R² < 0, clipped to 0
    train, test = split_halves(n, seed=1)
    return [(F, Z, train, test, lam) for lam in (1.0, 1e-3, 10.0)]


def check_v_information(answer) -> bool:
    """Say whether ``answer(F, Z, train, test, lam)`` is the V-information I_V(F -> z_j) of each feature: the
    held-out R² of a ridge decoder, clipped at 0 (exercise 'Ridge strength and the spread' of the chapter).

    Compared with :func:`neurips24.complexity.v_information` to rtol 1e-8, atol 1e-10 on one synthetic
    representation (80 inputs, 12 unstandardised units, 5 features from well to not decodable, seed 0;
    split :func:`~neurips24.complexity.split_halves` with seed 1) at λ = 1, 10⁻³ and 10.

    Parameters
    ----------
    answer : callable, ``answer(F (n, p), Z (n, k), train, test, lam) -> (k,) float array``.

    Returns
    -------
    bool, True when every case matches; prints the verdict ("not attempted yet" for the scaffold).

    Raises
    ------
    TypeError if ``answer`` is not callable. Errors raised by ``answer`` itself propagate.
    """
    cases = _cases()
    return check_cases(
        TITLE, answer, cases, v_information, rtol=RTOL, atol=ATOL,
        describe=lambda i, case, got, want: f"at λ = {case[-1]:g} you return {np.round(np.ravel(got), 4)}; "
                                            f"cx.v_information gives {np.round(want, 4)}.",
        summary=f"matches cx.v_information to {RTOL:g} at λ = 1, 0.001 and 10.")
