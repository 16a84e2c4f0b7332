"""The learned local mechanism: an invertible 3×3 stencil family, its exact integer residual and the fast solve.

Paper steps (Luo et al. 2024, as far as the captions show): learn a local coefficient template ``c`` (step 1),
split the data into boundary values and a source term with ``K_c u = f`` (step 2), decompress by solving
``K_c u = f`` with an FFT after periodic continuation (step 5). This book's own design: the template is
restricted to the invertible family ``a·Δ₅ + b·Δ×`` with small integers ``a ≥ 1, b ≥ 0`` so that
``f = K q`` is exact in int64, and the solve is iterated to the exact integers and verified.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

LAPLACE5 = np.array([[0, 1, 0], [1, -4, 1], [0, 1, 0]], dtype=np.int64)       # Δ₅
LAPLACE_X = np.array([[1, 0, 1], [0, -4, 0], [1, 0, 1]], dtype=np.int64)      # Δ×
# integer members (a, b) of t·Δ₅ + (1 − t)·Δ×, t = a / (a + b) ∈ [1/3, 1]; small a + b keeps f small
FAMILY = ((1, 0), (4, 1), (3, 1), (2, 1), (1, 1), (1, 2))


class SolveError(RuntimeError):
    """The fast solve did not reach the exact integers (it never returns a wrong value)."""


def stencil_matrix(a: int, b: int) -> np.ndarray:
    """The 3×3 integer template ``a·Δ₅ + b·Δ×`` (eq. melloc-family): (3, 3) int64."""
    return a * LAPLACE5 + b * LAPLACE_X


def coefficients_from_matrix(c: np.ndarray) -> tuple[int, int]:
    """(a, b) of a 3×3 template of the family, or ValueError if it is not one."""
    c = np.asarray(c, dtype=np.int64)
    if c.shape != (3, 3):
        raise ValueError(f"stencil must be 3x3, got shape {c.shape}")
    a, b = int(c[0, 1]), int(c[0, 0])
    if a < 1 or b < 0 or not np.array_equal(c, stencil_matrix(a, b)):
        raise ValueError(f"stencil {c.tolist()} is not in the invertible family a*L5 + b*Lx with a >= 1, b >= 0")
    return a, b


def _neighbour_sum(x: np.ndarray, axis: int) -> np.ndarray:
    """x[i − 1] + x[i + 1] along ``axis`` with periodic wrap-around (same dtype, exact for integers)."""
    out = np.empty_like(x)
    xs = np.moveaxis(x, axis, 0)
    os_ = np.moveaxis(out, axis, 0)
    np.add(xs[:-2], xs[2:], out=os_[1:-1])
    np.add(xs[-1], xs[1], out=os_[0])
    np.add(xs[-2], xs[0], out=os_[-1])
    return out


def apply_stencil(q: np.ndarray, a: int, b: int) -> np.ndarray:
    """Periodic integer residual ``f = K q`` with ``K = a·Δ₅ + b·Δ×`` (eq. melloc-residual), exact.

    Parameters
    ----------
    q : (H, W) integer (int32/int64) or float array, H, W ≥ 3; the arithmetic stays in that type, so for
        integers the caller must make sure ``8·(a + b)·max|q|`` fits it (see :func:`work_dtype`).
    a, b : integer stencil weights.

    Returns
    -------
    (H, W) array of ``q``'s dtype. Neighbours wrap around (periodic continuation).
    """
    vert = _neighbour_sum(q, 0)                 # q[i−1, j] + q[i+1, j]
    f = _neighbour_sum(q, 1)                    # q[i, j−1] + q[i, j+1]
    f += vert
    f -= 4 * q
    if a != 1:
        f *= a
    if b:
        diag = _neighbour_sum(vert, 1)          # the four diagonal neighbours
        diag -= 4 * q
        if b != 1:
            diag *= b
        f += diag
    return f


def learn_stencil(q: np.ndarray) -> tuple[float, int, int]:
    """Least-squares template in the invertible family (step 1 of the paper, restricted by this book).

    Minimises ``‖Δ× q + t (Δ₅ q − Δ× q)‖²`` over ``t`` (closed form), clamps ``t`` to [1/3, 1] and picks the
    nearest integer member (a, b) of :data:`FAMILY`. On smooth data the unconstrained optimum sits near
    t = 2, the nearly singular template 2Δ₅ − Δ× (it annihilates smooth fields to fourth order); the clamp to
    the invertible family is what makes the learned template usable.

    Parameters
    ----------
    q : (H, W) integer array, H, W ≥ 3.

    Returns
    -------
    (t, a, b): the least-squares t (unclamped, float) and the chosen integer weights.
    """
    x = q.astype(np.float64)
    l5 = apply_stencil(x, 1, 0)[1:-1, 1:-1]
    lx = apply_stencil(x, 0, 1)[1:-1, 1:-1]
    d = l5 - lx
    den = float(np.vdot(d, d))
    t = 1.0 if den == 0 else float(-np.vdot(lx, d) / den)
    tc = min(max(t, 1 / 3), 1.0)
    a, b = min(FAMILY, key=lambda ab: (abs(ab[0] / (ab[0] + ab[1]) - tc), ab[0] + ab[1]))
    return t, a, b


def symbol(H: int, W: int, a: int, b: int, xp=np):
    """Fourier symbol of the periodic template on the rfft2 grid: (H, W//2 + 1) float64.

    λ(θ, φ) = a(2cos θ + 2cos φ − 4) + b(4 cos θ cos φ − 4), θ = 2πi/H, φ = 2πj/W (eq. melloc-symbol). It is
    zero only at (0, 0) for a ≥ 1, b ≥ 0; that entry is set to 1 (the mean is fixed by the anchor instead).
    """
    cx = xp.cos(2 * np.pi * xp.arange(H) / H)[:, None]
    cy = xp.cos(2 * np.pi * xp.arange(W // 2 + 1) / W)[None, :]
    lam = a * (2 * cx + 2 * cy - 4) + b * (4 * cx * cy - 4)
    lam[0, 0] = 1.0
    return lam


@lru_cache(maxsize=16)
def _symbol_cached(H: int, W: int, a: int, b: int) -> np.ndarray:
    return symbol(H, W, a, b)


def work_dtype(max_abs_q: int, a: int, b: int):
    """int32 when the residual of values up to ``max_abs_q`` fits it (twice as fast), else int64."""
    return np.int32 if 8 * (a + b) * (max_abs_q + 1) < 2**31 else np.int64


def solve_periodic(f: np.ndarray, a: int, b: int, anchor: int, max_iter: int = 8) -> np.ndarray:
    """Exact integer solve of ``K q = f`` (periodic) with ``q[0, 0] = anchor`` (decode, paper step 5).

    Each pass solves ``K d = r`` by FFT (divide by the symbol), rounds ``d − d[0, 0]`` to integers, adds it and
    recomputes the exact integer residual ``r = f − K q``; the loop stops when ``r`` is exactly zero, which
    proves ``q`` is the encoder's array (the only null vector of ``K`` is the constant, pinned by the anchor).

    Parameters
    ----------
    f : (H, W) int32/int64 source term (with its seam); its dtype is the working dtype.
    a, b : template weights, a ≥ 1, b ≥ 0.
    anchor : the value ``q[0, 0]``.
    max_iter : passes before giving up.

    Returns
    -------
    (H, W) integer array of ``f``'s dtype.

    Raises
    ------
    SolveError if the residual is not zero after ``max_iter`` passes.
    """
    import scipy.fft as sfft

    H, W = f.shape
    lam = _symbol_cached(H, W, a, b)
    q = np.full(f.shape, anchor, dtype=f.dtype)
    r = f
    for _ in range(max_iter):
        spec = sfft.rfft2(r.astype(np.float64), workers=1)
        spec /= lam
        spec[0, 0] = 0.0
        d = sfft.irfft2(spec, s=(H, W), workers=1)
        d -= d[0, 0]
        q += np.rint(d).astype(f.dtype)
        r = f - apply_stencil(q, a, b)
        if not r.any():
            return q
    raise SolveError(f"the FFT solve did not reach the exact integers in {max_iter} passes "
                     f"(max |residual| = {int(np.abs(r).max())})")
