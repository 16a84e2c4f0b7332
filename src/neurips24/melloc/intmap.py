"""Exact float → integer mapping (this book's own design, not the paper's).

A block of IEEE floats ``u`` is written as ``u = q · 2^(−k)`` with one integer exponent ``k`` per block and
integers ``q`` (int64, ``|q| < 2^55``). This is exact whenever every value is a multiple of ``2^(−k)``; values
that do not fit (NaN, ±inf, −0.0, values too fine for the block's ``k`` such as tiny denormals next to large
values) become *exceptions*: their raw bit patterns are stored aside and ``q`` is 0 there.
"""
from __future__ import annotations

import numpy as np

Q_BITS = 55            # |q| < 2^55: a 3×3 stencil with coefficient sum ≤ 64 stays inside int64
_LAYOUT = {            # dtype: (uint type, mantissa bits, exponent bias, exponent mask)
    np.dtype(np.float32): (np.uint32, 23, 127, 0xFF),
    np.dtype(np.float64): (np.uint64, 52, 1023, 0x7FF),
}


def _exponents(u: np.ndarray):
    """For finite nonzero values: (lsb exponent L, magnitude exponent E) with u = odd · 2^L, 2^E ≤ |u| < 2^(E+1)."""
    utype, mbits, bias, emask = _LAYOUT[u.dtype]
    bits = u.view(utype).astype(np.uint64)
    e_field = ((bits >> np.uint64(mbits)) & np.uint64(emask)).astype(np.int64)
    mant = (bits & np.uint64((1 << mbits) - 1)).astype(np.int64)
    normal = e_field > 0
    full = np.where(normal, mant | (1 << mbits), mant)              # integer significand
    base = np.where(normal, e_field, 1) - bias - mbits                # u = full · 2^base
    low = full & (-full)                                              # lowest set bit (a power of two)
    tz = np.frexp(low.astype(np.float64))[1] - 1                      # its exponent, exact (low < 2^53)
    top = np.frexp(full.astype(np.float64))[1] - 1                    # highest set bit
    return base + tz, base + top


def float_to_int(u: np.ndarray) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    """Map a float block to integers exactly: ``u = q · 2^(−k)`` except at the returned exceptions.

    Parameters
    ----------
    u : (H, W) float32 or float64 (any shape works; it is flattened internally).

    Returns
    -------
    q : int64, same shape, ``|q| < 2^55``; 0 at exceptions.
    k : int, the block's binary scale.
    exc_index : (X,) int64 flat indices of the exceptions (NaN, ±inf, −0.0, values not on the 2^(−k) grid).
    exc_bits : (X,) uint32/uint64 raw bit patterns of the exceptions.

    Raises
    ------
    TypeError if ``u`` is not float32/float64.
    """
    if u.dtype not in _LAYOUT:
        raise TypeError(f"u must be float32 or float64, got {u.dtype}")
    flat = u.ravel()
    utype = _LAYOUT[u.dtype][0]
    finite = np.isfinite(flat)
    nonzero = finite & (flat != 0)
    exc = ~finite | ((flat == 0) & np.signbit(flat))                   # NaN, ±inf, −0.0
    k = 0
    if nonzero.any():
        lsb, mag = _exponents(flat[nonzero])
        need = -lsb                                                    # k needed by each value
        k_max = Q_BITS - 1 - int(mag.max())                            # largest k keeping |q| < 2^55
        too_fine = need > k_max
        if too_fine.any():
            idx = np.flatnonzero(nonzero)[too_fine]
            exc[idx] = True
            need = need[~too_fine]
        k = int(need.max()) if need.size else 0
    ok = ~exc
    q = np.zeros(flat.shape, dtype=np.int64)
    q[ok] = np.ldexp(flat[ok].astype(np.float64), k).astype(np.int64)
    exc_index = np.flatnonzero(exc).astype(np.int64)
    exc_bits = flat.view(utype)[exc_index].copy()
    return q.reshape(u.shape), k, exc_index, exc_bits


def int_to_float(q: np.ndarray, k: int, dtype, exc_index: np.ndarray | None = None,
                 exc_bits: np.ndarray | None = None) -> np.ndarray:
    """Inverse of :func:`float_to_int`: ``u = q · 2^(−k)`` in ``dtype``, exceptions restored bit for bit.

    Fast path (the decoder's): convert ``q`` to ``dtype`` and multiply by the power of two ``2^(−k)`` in
    ``dtype``. Both steps are exact when ``q`` came from values of ``dtype``: ``q`` is then such a value times
    a power of two (its significand fits), and the product of exact factors that is representable (it is the
    original value) is exactly rounded. When ``2^(−k)`` itself is not representable in ``dtype`` the float64
    ``ldexp`` path is taken. (A damaged stream may round somewhere; the container's digest catches that.)
    """
    dtype = np.dtype(dtype)
    scale = np.ldexp(1.0, -int(k)) if -1100 < k < 1100 else 0.0
    if scale != 0.0 and np.isfinite(scale) and float(dtype.type(scale)) == scale:
        u = q.astype(dtype)
        u *= dtype.type(scale)
    else:
        u = np.ldexp(q.astype(np.float64), -int(k)).astype(dtype)
    if exc_index is not None and exc_index.size:
        flat = u.reshape(-1)
        flat.view(_LAYOUT[dtype][0])[exc_index] = exc_bits
    return u
