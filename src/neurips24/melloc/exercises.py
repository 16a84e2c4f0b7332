"""Executable exercise of the MeLLoC chapter: write the Fourier symbol of a 3×3 template."""
from __future__ import annotations

import numpy as np

from ..exercise import NOT_ATTEMPTED, attempt, verdict
from .stencil import symbol, template

TITLE = "The symbol of a template"
# Δ5, the anisotropic u_xx + 4u_yy and the advection–diffusion Δ5 + 2∂x (complex symbol: catches sign slips)
CASES = ((template(1, 1), 8, 6), (template(1, 4), 6, 10), (template(1, 1, p=1), 9, 8))


def check_symbol(answer) -> bool:
    """Say whether ``answer(m, H, W)`` computes the Fourier symbol λ of a 3×3 template on the rfft2 grid
    (exercise 'The symbol of a template' of the chapter, eq. melloc-symbol).

    The answer is called on three templates (Δ₅ on 8 × 6, u_xx + 4u_yy on 6 × 10, Δ₅ + 2∂x on 9 × 8) with
    ``m`` a (3, 3) int64 array, and must return an (H, W//2 + 1) array equal to
    :func:`neurips24.melloc.stencil.symbol` within 1e-9 (absolute), i.e. ``rfft2(K q) = λ · rfft2(q)``. Returns
    True when it does; prints what was compared or the first mismatch.

    Raises
    ------
    TypeError if ``answer`` is not callable.
    """
    if not callable(answer):
        raise TypeError(f"answer must be a function answer(m, H, W), got {type(answer).__name__}")
    errs = []
    for m, H, W in CASES:
        result = attempt(answer, m.copy(), H, W)
        if result is NOT_ATTEMPTED:
            return verdict(TITLE, result, False)
        got = np.asarray(result)
        want = symbol(H, W, m)
        if got.shape != want.shape:
            return verdict(TITLE, result, False, f"shape {got.shape} for H, W = {H}, {W}; expected {want.shape}")
        errs.append(float(np.abs(got - want).max()))
    worst = int(np.argmax(errs))
    return verdict(TITLE, result, max(errs) < 1e-9,
                   f"max |answer − λ| = {max(errs):.2e} (worst: template {CASES[worst][0].tolist()}) over "
                   "Δ5, u_xx + 4u_yy and Δ5 + 2∂x (tolerance 1e-9)")
