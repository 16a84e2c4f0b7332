"""The learned local mechanism: a family of integer 3×3 templates, its exact residual and the two exact solves.

Paper steps (Luo et al. 2024, as far as the captions show): learn a local coefficient template ``c`` (step 1),
split the data into boundary values and a source term with ``K_c u = f`` (step 2), decompress by solving
``K_c u = f`` with an FFT after periodic continuation (step 5). This book's own design: the template is an
*integer* 3×3 template of the family (eq. melloc-family)

    K = a ∂xx + c ∂yy + b Δ× + e ∂xy + p ∂x + r ∂y      (a, …, r half-integers, every entry an integer)

with zero sum (constants are its only null vectors) and a Fourier symbol that does not vanish on the block's
grid away from zero frequency (:func:`grid_condition`). It is chosen by the coded size of its source term
(:func:`learn_stencil`), so ``f = K q`` is exact in integers. Two exact decoders: the FFT solve iterated to the
exact integers (any template of the family) and, for templates whose last row is a single middle entry
(no diagonal terms there), integer *marching* row by row (:func:`solve_march`, no FFT).

Conventions: ``q[i, j]``, i = row (y, axis 0), j = column (x, axis 1); a template ``m`` acts by correlation,
``(K q)[i, j] = Σ m[1 + di, 1 + dj] q[i + di, j + dj]``, with periodic wrap-around.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

# the basis of the family (eq. melloc-family); central differences, unit grid spacing
DXX = np.array([[0, 0, 0], [1, -2, 1], [0, 0, 0]], dtype=np.int64)       # ∂xx  (along axis 1)
DYY = DXX.T.copy()                                                        # ∂yy  (along axis 0)
LAPLACE_X = np.array([[1, 0, 1], [0, -4, 0], [1, 0, 1]], dtype=np.int64)  # Δ×, the diagonal Laplacian
DXY = np.array([[1, 0, -1], [0, 0, 0], [-1, 0, 1]], dtype=np.int64)       # 4 ∂xy
DX = np.array([[0, 0, 0], [-1, 0, 1], [0, 0, 0]], dtype=np.int64)         # 2 ∂x  (first order, advective)
DY = DX.T.copy()                                                          # 2 ∂y
LAPLACE5 = DXX + DYY                                                      # Δ₅
MAX_WEIGHT = 64          # Σ|m| ≤ 64 keeps K q inside int64 for |q| < 2^55 (intmap.Q_BITS)
MIN_CONDITION = 1e-3     # grid_condition below this: the template is treated as singular on the grid
SEARCH_SIDE = 256        # learn_stencil codes the central SEARCH_SIDE² crop of a block for each candidate

# search moves of learn_stencil: one direction per coefficient (a, c, p, r, b, e) and the half-steps that
# change one edge entry or one pair of opposite corners (the centre always keeps the sum zero)
_MOVES = []
for _cells in ([(1, 0), (1, 2)], [(0, 1), (2, 1)], [(1, 0)], [(1, 2)], [(0, 1)], [(2, 1)],
               [(0, 0), (0, 2), (2, 0), (2, 2)], [(0, 0), (2, 2)], [(0, 2), (2, 0)]):
    _d = np.zeros((3, 3), np.int64)
    for _c in _cells:
        _d[_c] = 1
    _d[1, 1] = -_d.sum()
    _MOVES.append(_d)
_MOVES += [DX.copy(), DY.copy(), DXY.copy()]
_MOVES = tuple(s * d for d in _MOVES for s in (1, -1))


class SolveError(RuntimeError):
    """The fast solve did not reach the exact integers (it never returns a wrong value)."""


def template(a: float, c: float, b: float = 0, e: float = 0, p: float = 0, r: float = 0) -> np.ndarray:
    """The integer 3×3 template ``a ∂xx + c ∂yy + b Δ× + e ∂xy + p ∂x + r ∂y`` (eq. melloc-family).

    Parameters
    ----------
    a, c : weights of the second differences along x (axis 1) and y (axis 0).
    b : weight of the diagonal Laplacian Δ×; e : of the mixed difference 4∂xy (the 9-point template's corners).
    p, r : weights of the central first differences 2∂x, 2∂y (advection).
    All may be half-integers as long as every entry of the template is an integer.

    Returns
    -------
    (3, 3) int64 array.

    Raises
    ------
    ValueError if an entry is not an integer.
    """
    m = a * DXX + c * DYY + b * LAPLACE_X + e * DXY + p * DX + r * DY
    if not np.all(np.isfinite(m)) or not np.array_equal(m, np.rint(m)):
        raise ValueError(f"template entries must be integers, got {np.asarray(m).tolist()}")
    return np.rint(m).astype(np.int64)


def stencil_matrix(a: int, b: int) -> np.ndarray:
    """The isotropic member ``a Δ₅ + b Δ×`` (the previous one-parameter family): (3, 3) int64."""
    return template(a, a, b)


def coefficients(stencil) -> tuple[float, float, float, float, float, float]:
    """(a, c, b, e, p, r) of a template of the family (inverse of :func:`template`).

    Raises
    ------
    ValueError if ``stencil`` is not a 3×3 integer array with zero sum and the family's corner symmetry
    (``m[0, 0] == m[2, 2]``, ``m[0, 2] == m[2, 0]``), or its weight Σ|m| exceeds :data:`MAX_WEIGHT`.
    """
    m = np.asarray(stencil)
    if m.shape != (3, 3) or m.dtype.kind not in "iu":
        raise ValueError(f"stencil must be a 3x3 integer array, got {m.dtype} {m.shape}")
    m = m.astype(np.int64)
    if m.sum() != 0 or m[0, 0] != m[2, 2] or m[0, 2] != m[2, 0] or np.abs(m).sum() > MAX_WEIGHT:
        raise ValueError(f"stencil {m.tolist()} is not in the family a*Dxx + c*Dyy + b*Lx + e*Dxy + p*Dx + r*Dy "
                         f"(zero sum, symmetric corners, sum |m| <= {MAX_WEIGHT})")
    b, e = (m[0, 0] + m[0, 2]) / 2, (m[0, 0] - m[0, 2]) / 2
    a, p = (m[1, 0] + m[1, 2]) / 2, (m[1, 2] - m[1, 0]) / 2
    c, r = (m[0, 1] + m[2, 1]) / 2, (m[2, 1] - m[0, 1]) / 2
    return float(a), float(c), float(b), float(e), float(p), float(r)


def describe(stencil) -> str:
    """The template as a formula, e.g. ``'Dxx + 4 Dyy'`` or ``'Δ5'`` (for tables)."""
    m = np.asarray(stencil, dtype=np.int64)
    if np.array_equal(m, LAPLACE5):
        return "Δ5"
    names = ("Dxx", "Dyy", "Δx", "Dxy", "Dx", "Dy")
    terms = [f"{'' if w == 1 else '-' if w == -1 else f'{w:g} '}{n}"
             for w, n in zip(coefficients(m), names, strict=True) if w]
    return " + ".join(terms).replace("+ -", "- ") or "0"


def apply_stencil(q: np.ndarray, stencil) -> np.ndarray:
    """Periodic residual ``f = K q`` of a 3×3 template (eq. melloc-residual), exact for integer ``q``.

    Parameters
    ----------
    q : (H, W) integer (int32/int64) or float array, H, W ≥ 3; the arithmetic stays in that type, so for
        integers the caller must make sure ``Σ|m| · max|q|`` fits it (see :func:`work_dtype`).
    stencil : (3, 3) integer template (correlation convention, see the module docstring).

    Returns
    -------
    (H, W) array of ``q``'s dtype. Neighbours wrap around (periodic continuation).
    """
    m = np.asarray(stencil, dtype=np.int64)
    H, W = q.shape
    p = np.pad(q, 1, mode="wrap")
    f = np.zeros_like(q)
    for (i, j), w in np.ndenumerate(m):
        if w == 1:
            f += p[i:i + H, j:j + W]
        elif w == -1:
            f -= p[i:i + H, j:j + W]
        elif w:
            f += q.dtype.type(w) * p[i:i + H, j:j + W]
    return f


def _valid_residual(q: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``K q`` on the interior only (no wrap-around): (H − 2, W − 2)."""
    H, W = q.shape
    f = np.zeros((H - 2, W - 2), q.dtype)
    for (i, j), w in np.ndenumerate(m):
        if w:
            f += q.dtype.type(w) * q[i:i + H - 2, j:j + W - 2]
    return f


def symbol(H: int, W: int, stencil, xp=np):
    """Fourier symbol of the periodic template on the rfft2 grid: (H, W//2 + 1) complex128.

    λ(θ, φ) = Σ m[1 + di, 1 + dj] exp(i (di θ + dj φ)), θ = 2πk/H, φ = 2πl/W (eq. melloc-symbol), so that
    ``rfft2(K q) = λ · rfft2(q)``. Real for symmetric templates; λ(0, 0) = 0 for every template of the family.
    """
    m = np.asarray(stencil, dtype=np.float64)
    et = xp.exp(1j * 2 * np.pi * xp.arange(H) / H)[:, None]
    ep = xp.exp(1j * 2 * np.pi * xp.arange(W // 2 + 1) / W)[None, :]
    rows = [m[k, 0] / ep + m[k, 1] + m[k, 2] * ep for k in range(3)]   # Σ_dj m[., dj] e^{i dj φ}
    return rows[0] / et + rows[1] + rows[2] * et


def grid_condition(stencil, H: int, W: int) -> float:
    """Smallest |λ| away from zero frequency on the (H, W) grid, relative to Δ₅'s smallest one there.

    Δ₅ itself gives 1; a template whose symbol vanishes at a grid frequency other than (0, 0) (for example
    2Δ₅ − Δ× on the axes, or Δ× at (π, π)) gives 0. Templates below :data:`MIN_CONDITION` are not invertible
    on that grid (the family's check for invertibility).
    """
    return _grid_condition(H, W, np.asarray(stencil, dtype=np.int64).tobytes())


@lru_cache(maxsize=256)
def _grid_condition(H: int, W: int, key: bytes) -> float:
    lam = np.abs(_symbol_cached(H, W, key))
    lam[0, 0] = np.inf
    ref = 2.0 * (1.0 - np.cos(2 * np.pi / max(H, W)))
    return float(lam.min() / ref)


@lru_cache(maxsize=64)
def _symbol_cached(H: int, W: int, key: bytes) -> np.ndarray:
    out = symbol(H, W, np.frombuffer(key, np.int64).reshape(3, 3))
    out.flags.writeable = False
    return out


@lru_cache(maxsize=16)
def _inverse_symbol(H: int, W: int, key: bytes) -> np.ndarray:
    """1 / λ on the rfft2 grid with the zero frequency set to 0 (the mean is fixed by the anchor)."""
    lam = np.array(_symbol_cached(H, W, key))
    lam[0, 0] = 1.0
    inv = 1.0 / lam
    inv[0, 0] = 0.0
    if np.all(inv.imag == 0):
        inv = np.ascontiguousarray(inv.real)      # symmetric template: a real multiplier (cheaper)
    inv.flags.writeable = False
    return inv


def in_family(stencil, H: int, W: int) -> bool:
    """True when ``stencil`` is a template of the family (:func:`coefficients`) invertible on the (H, W) grid."""
    try:
        coefficients(stencil)
    except ValueError:
        return False
    return grid_condition(stencil, H, W) >= MIN_CONDITION


def lsq_t(q: np.ndarray) -> float:
    """Unconstrained least-squares ``t`` of ``min_t ‖Δ× q + t (Δ₅ q − Δ× q)‖²`` (closed form; a diagnostic).

    On smooth data it sits near t = 2, the template 2Δ₅ − Δ×, whose symbol vanishes on the axes.
    """
    x = np.asarray(q, dtype=np.float64)
    l5 = _valid_residual(x, LAPLACE5)
    lx = _valid_residual(x, LAPLACE_X)
    d = l5 - lx
    den = float(np.vdot(d, d))
    return 1.0 if den == 0 else float(-np.vdot(lx, d) / den)


def coded_size(q: np.ndarray, stencil, backend: str = "zstd", level: int = 3) -> int:
    """Bytes of the coded interior source term ``K q`` (no wrap-around) of an integer block.

    ``backend`` as in ``backends.encode_best`` ('zstd', the search's measure; 'auto' codes as the container
    does, the shorter of zstd and pcodec), in int32 when the values fit. zstd on shuffled bytes is nearly blind
    to the template's scale (3 K q is a one-to-one image of K q, with about the same byte entropy).
    """
    from .backends import encode_best

    q = np.asarray(q)
    if q.dtype not in (np.int32, np.int64):
        q = q.astype(np.int64)
    f = _valid_residual(q, np.asarray(stencil, np.int64)).ravel()
    if f.dtype == np.int64 and f.size and np.abs(f).max() < 2**31:
        f = f.astype(np.int32)
    return len(encode_best(f, backend, level)[1])


def learn_stencil(q: np.ndarray, start=None, max_steps: int = 40, beam_width: int = 3,
                  return_path: bool = False):
    """The template of the family whose source term codes smallest (step 1 of the paper, this book's search).

    A beam search over the integer templates of eq. (melloc-family), measured by :func:`coded_size` (zstd, on the
    central :data:`SEARCH_SIDE`² crop of the block, interior residual, exact integers). The beam starts at Δ₅,
    2Δ₅ and 3Δ₅ (or at ``start``); each step codes every move of one coefficient by ±1 (and the half-steps that
    change one edge entry or one pair of opposite corners) from every beam member, admits those invertible on
    the block's grid (:func:`in_family`) and keeps the ``beam_width`` shortest; it stops when the shortest no
    longer shrinks (ties go to the smaller Σ|m|). The end point is divided by the gcd of its entries, since
    zstd cannot tell K from 3K. No member is preferred and nothing is clamped, so anisotropic, diagonal
    (9-point), mixed and advective templates are reachable (``tests/test_melloc_mechanism.py`` recovers
    u_xx + 4u_yy and an advection–diffusion operator, and Δ₅ from Δ₅ data).

    Limits and choices, measured: near the generating operator the coded size is a narrow valley, so the search
    can miss an operator the criterion ranks first (2Δ₅ + 2∂x − 2∂y: every single move from 2Δ₅ towards it codes
    longer). pcodec is not the search's measure: with its delta predictor every smooth source term codes short
    and it picks Δ₅ on fields that zstd attributes to their generating operator. A least-squares start (the
    smallest eigenvector of the six residuals' Gram matrix) lands next to the near-singular 2Δ₅ − Δ× of
    :func:`lsq_t` and was dropped.

    Parameters
    ----------
    q : (H, W) integer array (|q| < 2^55), H, W ≥ 3.
    start : (3, 3) template to start from (default: Δ₅, 2Δ₅ and 3Δ₅); must be in the family.
    max_steps : most steps.
    beam_width : templates kept per step.
    return_path : also return the list of (template, coded bytes) visited.

    Returns
    -------
    (3, 3) int64 template (and the path when ``return_path``).

    Raises
    ------
    ValueError for a non-integer or non-2-D ``q``, sides < 3, or a ``start`` outside the family.
    """
    q = np.asarray(q)
    if q.ndim != 2 or min(q.shape) < 3 or q.dtype.kind not in "iu":
        raise ValueError(f"q must be a 2-D integer array with sides >= 3, got {q.dtype} {q.shape}")
    H, W = q.shape
    if start is not None and not in_family(start, H, W):
        raise ValueError(f"start {np.asarray(start).tolist()} is not an invertible template of the family")
    h, w = min(H, SEARCH_SIDE), min(W, SEARCH_SIDE)
    crop = np.asarray(q[(H - h) // 2:(H - h) // 2 + h, (W - w) // 2:(W - w) // 2 + w], dtype=np.int64)
    if MAX_WEIGHT * (int(np.abs(crop).max(initial=0)) + 1) < 2**31:
        crop = crop.astype(np.int32)              # every candidate's residual fits: half the bytes to touch
    sizes: dict[bytes, int] = {}

    def size(m):
        key = m.tobytes()
        if key not in sizes:
            sizes[key] = coded_size(crop, m)
        return sizes[key]

    def admissible(m):
        return np.abs(m).sum() <= MAX_WEIGHT and np.abs(m).max() <= 127 and in_family(m, H, W)

    def rank(m):
        return size(m), int(np.abs(m).sum())

    beam = [k * LAPLACE5 for k in (1, 2, 3)] if start is None else [np.asarray(start, dtype=np.int64)]
    path = [min(beam, key=rank)]
    for _ in range(max_steps):
        seen = {m.tobytes() for m in beam}
        cands = [m for b in beam for m in (b + d for d in _MOVES) if m.tobytes() not in seen
                 and np.abs(m).sum() <= MAX_WEIGHT]
        cands = list({m.tobytes(): m for m in cands}.values())
        cands.sort(key=rank)
        new = [m for m in cands[:4 * beam_width] if admissible(m)][:beam_width]
        beam = sorted(beam + new, key=rank)[:beam_width]
        if rank(beam[0]) >= rank(path[-1]):
            break
        path.append(beam[0])
    path = [(m, size(m)) for m in path]
    # zstd cannot tell K from 3K (same byte entropy), so the end point is reduced by the gcd of its entries:
    # the same template with the smallest values (which pcodec, coding magnitudes, prefers)
    end = path[-1][0]
    cur = end // max(int(np.gcd.reduce(np.abs(end).ravel())), 1)
    if not np.array_equal(cur, end):
        path.append((cur, size(cur)))
    return (cur, path) if return_path else cur


def work_dtype(max_abs_q: int, stencil):
    """int32 when the residual of values up to ``max_abs_q`` fits it (twice as fast), else int64."""
    weight = int(np.abs(np.asarray(stencil, dtype=np.int64)).sum())
    return np.int32 if weight * (max_abs_q + 1) < 2**31 else np.int64


def can_march(stencil) -> bool:
    """True when the template's last row is a single nonzero middle entry (row-by-row marching applies)."""
    m = np.asarray(stencil)
    return m[2, 0] == 0 and m[2, 2] == 0 and m[2, 1] != 0


def solve_march(f_rows: np.ndarray, top: np.ndarray, stencil) -> np.ndarray:
    """Exact integer decode by marching: rows 2, 3, … of ``q`` from ``K q = f`` and the first two rows.

    Row i of ``K q = f`` (1 ≤ i ≤ H − 2, columns periodic) involves rows i − 1, i, i + 1; when the template's
    row for i + 1 is the single entry ``m[2, 1] = ℓ`` it gives ``q[i + 1] = (f[i] − (terms of rows i − 1, i)) / ℓ``
    — one vectorised NumPy step per row, in the integers of ``f``'s dtype, with no rounding anywhere. (Marching
    amplifies floating-point errors without bound; in exact integers there is none to amplify, and every
    intermediate sum is bounded by Σ|m| · max|q|, which :func:`work_dtype` made fit.) A damaged stream can
    produce wrong integers (the division floors, sums may wrap around): the container's digest catches that.

    Parameters
    ----------
    f_rows : (H − 2, W) integers, rows 1 … H − 2 of the periodic residual ``K q``.
    top : (2, W) integers, rows 0 and 1 of ``q``.
    stencil : (3, 3) template with :func:`can_march`.

    Returns
    -------
    (H, W) array of ``f_rows``' dtype (a view into a (H, W + 2) buffer: rows are contiguous, the array is not).
    """
    m = np.asarray(stencil, dtype=np.int64)
    if not can_march(m):
        raise ValueError(f"stencil {m.tolist()} cannot march (its last row must be [0, l, 0] with l != 0)")
    n, W = f_rows.shape
    dt = f_rows.dtype
    Q = np.empty((n + 2, W + 2), dt)                  # q with one wrapped column on each side
    Q[:2, 1:-1] = top
    Q[:2, 0], Q[:2, -1] = Q[:2, -2], Q[:2, 1]
    lead = int(m[2, 1])
    # (weight, row offset, column slice) of every term of rows i − 1 and i, applied to Q[i − 1 + off, sl]
    terms = [(int(m[di, dj]), di, slice(dj, dj + W)) for di in (0, 1) for dj in range(3) if m[di, dj]]
    ones = [(w, di, sl) for w, di, sl in terms if w in (1, -1)]
    others = [(dt.type(w), di, sl) for w, di, sl in terms if w not in (1, -1)]
    tmp = np.empty(W, dt)
    for i in range(1, n + 1):
        out = Q[i + 1, 1:-1]
        out[...] = f_rows[i - 1]
        for w, di, sl in others:
            np.multiply(Q[i - 1 + di, sl], w, out=tmp)
            out -= tmp
        for w, di, sl in ones:
            if w == 1:
                out -= Q[i - 1 + di, sl]
            else:
                out += Q[i - 1 + di, sl]
        if lead == -1:
            np.negative(out, out=out)
        elif lead != 1:
            np.floor_divide(out, dt.type(lead), out=out)
        Q[i + 1, 0], Q[i + 1, -1] = Q[i + 1, -2], Q[i + 1, 1]
    return Q[:, 1:-1]


def solve_periodic(f: np.ndarray, stencil, anchor: int, max_iter: int = 8) -> np.ndarray:
    """Exact integer solve of ``K q = f`` (periodic) with ``q[0, 0] = anchor`` (decode, paper step 5).

    Each pass solves ``K d = r`` by FFT (divide by the symbol), rounds ``d − d[0, 0]`` to integers, adds it and
    recomputes the exact integer residual ``r = f − K q``; the loop stops when ``r`` is exactly zero, which
    proves ``q`` is the encoder's array (the only null vectors of ``K`` are the constants, pinned by the anchor).

    Parameters
    ----------
    f : (H, W) int32/int64 source term (with its seam); its dtype is the working dtype.
    stencil : (3, 3) template of the family, invertible on the (H, W) grid.
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
    m = np.asarray(stencil, dtype=np.int64)
    inv = _inverse_symbol(H, W, m.tobytes())
    wd = f.dtype
    q = None
    r = f
    for _ in range(max_iter):
        spec = sfft.rfft2(r.astype(np.float64), workers=1)
        spec *= inv
        d = sfft.irfft2(spec, s=(H, W), workers=1, overwrite_x=True)
        d -= d[0, 0]
        np.rint(d, out=d)
        if q is None:
            q = d.astype(wd)
            q += wd.type(anchor)
        else:
            q += d.astype(wd)
        kq = apply_stencil(q, m)
        if np.array_equal(kq, f):               # exact integer check: q solves K q = f, so it is the encoder's
            return q
        r = f - kq
    r = f - apply_stencil(q, m)
    raise SolveError(f"the FFT solve did not reach the exact integers in {max_iter} passes "
                     f"(max |residual| = {int(np.abs(r).max())})")
