"""Executable exercises of the Markov-chain transformer chapter (neurips24.exercise)."""
from __future__ import annotations

import numpy as np

from ..exercise import NOT_ATTEMPTED, attempt, verdict
from .reduced import energy

TITLE = "The energy is conserved"
ATOL = 1e-9


def _points() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    e = rng.uniform(-2.0, 2.0, 200)
    w = rng.uniform(0.05, 2.0, 200) * rng.choice([-1.0, 1.0], 200)
    return e, w


def check_energy(answer) -> bool:
    """Say whether ``answer(e, w)`` is the conserved energy of the reduced flow with b = b* (exercise 'The
    energy is conserved' of the chapter), up to an additive constant on each side of the invariant line w = 0.

    Compared with :func:`neurips24.markov.reduced.energy`, E = e² − w² − sign(w) log|w|, at 200 random points
    (e ∈ [−2, 2], |w| ∈ [0.05, 2], both signs of w, seed 0): after removing the mean difference on each side
    of w = 0 (a constant does not change conservation), the largest difference must be below 1e-9.

    Parameters
    ----------
    answer : callable, ``answer(e: (n,) float array, w: (n,) float array) -> (n,) float array``.

    Returns
    -------
    bool, True when the energy matches; prints the verdict ("not attempted yet" for the scaffold).

    Raises
    ------
    TypeError if ``answer`` is not callable. Errors raised by ``answer`` itself propagate.
    """
    e, w = _points()
    got = attempt(answer, e.copy(), w.copy())
    if got is NOT_ATTEMPTED:
        return verdict(TITLE, got, False)
    want = energy(e, w)
    try:
        diff = np.asarray(got, dtype=np.float64) - want
        ok = diff.shape == want.shape and bool(np.all(np.isfinite(diff)))
        worst = max(float(np.abs(diff[s] - diff[s].mean()).max()) for s in (w > 0, w < 0)) if ok else np.inf
    except (TypeError, ValueError):
        ok, worst = False, np.inf
    ok = ok and worst < ATOL
    return verdict(TITLE, got, ok, f"largest difference from e² − w² − sign(w) log|w| (up to a constant on each "
                   f"side of w = 0): {worst:.2g} at 200 points (tolerance {ATOL:g}).")
