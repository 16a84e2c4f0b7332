"""Executable exercise of the abrupt-learning chapter: write singular-value thresholding."""
from __future__ import annotations

import numpy as np

from ..exercise import NOT_ATTEMPTED, attempt, verdict
from .nuclear import svt


def check_svt(answer) -> bool:
    """Say whether ``answer(Y, tau)`` computes D_τ(Y) = U diag(max(σ − τ, 0)) Vᵀ (exercise 'Singular-value
    thresholding' of the chapter).

    The answer is called on a fixed batch of five 7 × 7 float64 matrices (shape (5, 7, 7)) with τ = 0.8 and must
    return an array of the same shape equal to :func:`neurips24.abrupt_learning.nuclear.svt` within 1e-8
    (absolute). Returns True when it does; prints what was compared.

    Raises
    ------
    TypeError if ``answer`` is not callable.
    """
    if not callable(answer):
        raise TypeError(f"answer must be a function answer(Y, tau), got {type(answer).__name__}")
    Y = np.random.default_rng(7).uniform(-1, 1, size=(5, 7, 7))
    result = attempt(answer, Y.copy(), 0.8)
    if result is NOT_ATTEMPTED:
        return verdict("Singular-value thresholding", result, False)
    want = svt(Y, 0.8)
    got = np.asarray(result, dtype=np.float64)
    if got.shape != want.shape:
        return verdict("Singular-value thresholding", result, False, f"shape {got.shape}, expected {want.shape}")
    err = float(np.abs(got - want).max())
    return verdict("Singular-value thresholding", result, err < 1e-8,
                   f"max |answer − D_τ(Y)| = {err:.2e} over five 7×7 matrices at τ = 0.8 (tolerance 1e-8)")
