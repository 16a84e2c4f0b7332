"""Inpainting of masked cells before the residual.

Cells the exact integer map cannot hold (NaN, ±inf, −0.0, values too fine for the block's scale) are
*exceptions*: their raw bits are stored aside and restored bit for bit after decoding, so the integer value the
mechanism sees there is free. Left at 0 (the previous behaviour) a NaN hole in a field stored near 280 is a
cliff of height ~2^k·280 whose whole rim lands in the source term. Each connected hole is filled instead with
an integer *plane* ``c0 + ci·i + cj·j`` (integer slopes) fitted by least squares to the known cells on its rim:
every template of the family annihilates such a plane exactly, so the source term is 0 inside the hole and
only the (small) misfit of the plane shows on the rim. (A rounded harmonic fill was tried first: its rounding
noise inside the hole cost more bytes than it saved — see the chapter.) The decoder needs nothing: it solves
for the filled integers and then overwrites them with the stored bits. This is the book's own design; the
paper's handling of masks is unknown.

Libraries: ``scipy.ndimage.label`` / ``binary_dilation`` (holes and their rims), ``numpy.linalg.lstsq``.
"""
from __future__ import annotations

import numpy as np
from scipy import ndimage


def plane_fill(q: np.ndarray, hole: np.ndarray) -> np.ndarray:
    """Fill each connected hole of ``q`` with the integer plane that best fits the known cells around it.

    Parameters
    ----------
    q : (H, W) integer array (values at hole cells are ignored).
    hole : (H, W) bool array, True on the cells to fill; at least one cell must be False.

    Returns
    -------
    (H, W) int64 array, equal to ``q`` off the hole; on each 4-connected hole component the plane
    ``rint(c0) + rint(ci)·i + rint(cj)·j`` fitted (least squares) to the component's rim (the known cells
    8-adjacent to it), clipped to the range of the known values so that it cannot overflow the block's dtype.

    Raises
    ------
    ValueError if the shapes differ, ``q`` is not 2-D, or every cell is a hole.
    """
    q = np.asarray(q)
    hole = np.asarray(hole, dtype=bool)
    if q.ndim != 2 or hole.shape != q.shape:
        raise ValueError(f"q must be 2-D and hole the same shape, got {q.shape} and {hole.shape}")
    out = np.array(q, dtype=np.int64)
    if not hole.any():
        return out
    if hole.all():
        raise ValueError("hole covers the whole block: nothing to inpaint from")
    lo, hi = out[~hole].min(), out[~hole].max()
    labels, n = ndimage.label(hole)
    for comp, box in enumerate(ndimage.find_objects(labels), start=1):
        sl = tuple(slice(max(s.start - 1, 0), s.stop + 1) for s in box)
        inside = labels[sl] == comp
        rim = ndimage.binary_dilation(inside, structure=np.ones((3, 3), bool)) & ~hole[sl]
        ii, jj = np.indices(inside.shape)
        ri, rj = ii[rim], jj[rim]
        vals = out[sl][rim].astype(np.float64)
        ref = vals.mean()
        A = np.column_stack([np.ones(ri.size), ri - ri.mean(), rj - rj.mean()])
        coef = np.linalg.lstsq(A, vals - ref, rcond=None)[0] if ri.size >= 3 else np.zeros(3)
        ci, cj = np.rint(coef[1]), np.rint(coef[2])
        c0 = np.rint(ref + coef[0] - ci * ri.mean() - cj * rj.mean())
        plane = c0 + ci * ii[inside] + cj * jj[inside]
        block = out[sl]
        block[inside] = np.clip(plane, lo, hi).astype(np.int64)
    return out
