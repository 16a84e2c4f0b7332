"""Executable exercises of the multimodal-concepts chapter: run a reader's answer, say whether it is right."""
from __future__ import annotations

import numpy as np

from ..exercise import NOT_ATTEMPTED, attempt, verdict
from .seminmf import encode_nonneg, objective


def vstep_problem(seed: int = 0):
    """The exercise's problem: Z (60, 12), unit atoms U (4, 12), alpha = 0.5 (seeded, float64)."""
    rng = np.random.default_rng(seed)
    U = rng.normal(size=(4, 12))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    Z = np.maximum(rng.normal(size=(60, 4)), 0) * 3 @ U + 0.2 * rng.normal(size=(60, 12))
    return Z, U, 0.5


def check_vstep(answer) -> bool:
    """Say whether ``answer(Z, U, alpha)`` solves the Semi-NMF activation step (exercise 'The activation step').

    The answer must return V (M, K) with V ≥ 0 minimising ½‖Z − V U‖²_F + α Σ V (eq. (2) with U fixed). It is
    right if V has the shape, is finite and non-negative (to −1e-12), and its objective is within 1e-6 (relative)
    of the package's :func:`~neurips24.concepts.seminmf.encode_nonneg` run to convergence.

    Parameters
    ----------
    answer : callable (Z, U, alpha) -> V.

    Returns
    -------
    bool, True only for an attempted, right answer (prints the verdict).

    Raises
    ------
    TypeError if ``answer`` is not callable.
    """
    Z, U, alpha = vstep_problem()
    result = attempt(answer, Z.copy(), U.copy(), alpha)
    if result is NOT_ATTEMPTED:
        return verdict("The activation step", result, False)
    V = np.asarray(result, dtype=np.float64)
    if V.shape != (Z.shape[0], U.shape[0]) or not np.all(np.isfinite(V)):
        return verdict("The activation step", result, False,
                       f"expected a finite array of shape {(Z.shape[0], U.shape[0])}, got {V.shape}")
    if V.min() < -1e-12:
        return verdict("The activation step", result, False, f"V has a negative entry ({V.min():.3g})")
    ref = objective(Z, U, encode_nonneg(Z, U, alpha, n_iter=5000, tol=0.0), alpha)
    got = objective(Z, U, np.maximum(V, 0.0), alpha)
    ok = got <= ref + 1e-6 * abs(ref)
    return verdict("The activation step", result, ok,
                   f"objective {got:.6f} vs the package's {ref:.6f} (must be within 1e-6 relative)")
