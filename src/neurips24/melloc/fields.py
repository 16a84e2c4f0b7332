"""Benchmark fields generated in code: three PDE solutions, a turbulence-like spectrum and white noise.

Every field is an (n, n) array stored as ``280 + 30 · v / max|v|`` (a temperature-like
range), in float32 or float64. The PDE fields are exact solutions of the *discrete*
5-point Laplacian problems with zero Dirichlet boundary, computed by DST-I (``scipy.fft``):

- ``poisson`` (elliptic): −Δ₅ v = g with ``n_sources`` Gaussian sources;
- ``heat`` (parabolic): v(T) = exp(T Δ₅) v₀, v₀ a sum of hot discs, diffusion length ≈ n/40;
- ``wave`` (hyperbolic): v(T) = cos(T √(−Δ₅)) v₀, v₀ Gaussian pulses, at time T = n/8 (wave fronts);
- ``turbulence``: periodic random phases with energy spectrum E(k) ∝ k^(−5/3) (no PDE behind it);
- ``signed``: a smooth spectral field (|v̂| ∝ k^(−3), random phases, no PDE) stored as ``30 · v / max|v|``
  *without* the offset, so it crosses zero (the exponent of the values changes across the block);
- ``masked``: the heat field with a NaN disc (a land mask) covering about 7 % of the cells;
- ``noise``: independent standard normals (the negative control).

``signed``, ``masked``, ``turbulence`` and ``noise`` are not made by the 5-point Laplacian the PDE fields use.
"""
from __future__ import annotations

import numpy as np
import scipy.fft as sfft

KINDS = ("poisson", "heat", "wave", "turbulence", "signed", "masked", "noise")
PDE_KINDS = ("poisson", "heat", "wave")


def _grid(n: int):
    x = np.arange(n) / (n - 1)
    return np.meshgrid(x, x, indexing="ij")


def _dirichlet_eigs(n: int) -> np.ndarray:
    """Eigenvalues of Δ₅ on the (n − 2)² interior with zero boundary: (n − 2, n − 2), all < 0."""
    th = np.pi * np.arange(1, n - 1) / (n - 1)
    return 2 * np.cos(th)[:, None] + 2 * np.cos(th)[None, :] - 4


def _embed(interior: np.ndarray) -> np.ndarray:
    v = np.zeros((interior.shape[0] + 2, interior.shape[1] + 2))
    v[1:-1, 1:-1] = interior
    return v


def _gaussians(n: int, count: int, rng, width: tuple[float, float]) -> np.ndarray:
    X, Y = _grid(n)
    g = np.zeros((n, n))
    for _ in range(count):
        cx, cy = rng.uniform(0.15, 0.85, 2)
        s, amp = rng.uniform(*width), rng.uniform(0.5, 1.5)
        g += amp * np.exp(-((X - cx) ** 2 + (Y - cy) ** 2) / (2 * s * s))
    return g


def make_field(kind: str, n: int = 512, dtype=np.float32, seed: int = 0, n_sources: int = 6) -> np.ndarray:
    """One benchmark field.

    Parameters
    ----------
    kind : one of :data:`KINDS`.
    n : grid side, n ≥ 8.
    dtype : float32 or float64 (the stored precision).
    seed : random seed (source positions, initial data, phases).
    n_sources : number of Gaussian sources (poisson), hot discs (heat) or pulses (wave), ≥ 1.

    Returns
    -------
    (n, n) array of ``dtype``, values in [250, 310] (temperature-like units); ``signed`` in [−30, 30];
    ``masked`` has NaN on a disc.

    Raises
    ------
    ValueError for an unknown ``kind``, ``n < 8`` or ``n_sources < 1``; TypeError for a non-float dtype.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if not (isinstance(n, (int, np.integer)) and n >= 8):
        raise ValueError(f"n must be an integer >= 8, got {n!r}")
    if not (isinstance(n_sources, (int, np.integer)) and n_sources >= 1):
        raise ValueError(f"n_sources must be an integer >= 1, got {n_sources!r}")
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(f"dtype must be float32 or float64, got {dtype}")
    rng = np.random.default_rng(seed)
    lam = _dirichlet_eigs(n) if kind in PDE_KINDS else None
    if kind == "poisson":
        g = _gaussians(n, n_sources, rng, (0.02, 0.06))[1:-1, 1:-1]
        v = _embed(sfft.idstn(sfft.dstn(g, type=1) / (-lam), type=1))
    elif kind == "heat":
        X, Y = _grid(n)
        v0 = np.zeros((n, n))
        for _ in range(n_sources):
            cx, cy = rng.uniform(0.15, 0.85, 2)
            v0 += rng.uniform(0.5, 1.5) * (((X - cx) ** 2 + (Y - cy) ** 2) < rng.uniform(0.05, 0.15) ** 2)
        T = (n / 40) ** 2 / 4                     # diffusion length sqrt(4T) = n / 40 pixels
        v = _embed(sfft.idstn(sfft.dstn(v0[1:-1, 1:-1], type=1) * np.exp(T * lam), type=1))
    elif kind == "wave":
        v0 = _gaussians(n, n_sources, rng, (0.01, 0.03))[1:-1, 1:-1]
        T = n / 8
        v = _embed(sfft.idstn(sfft.dstn(v0, type=1) * np.cos(T * np.sqrt(-lam)), type=1))
    elif kind == "turbulence":
        k = np.hypot(np.fft.fftfreq(n)[:, None], np.fft.rfftfreq(n)[None, :]) * n
        amp = np.where(k > 0, np.maximum(k, 1.0) ** (-4.0 / 3.0), 0.0)   # |v̂| ∝ k^(-4/3) ⇔ E(k) ∝ k^(-5/3)
        phase = np.exp(2j * np.pi * rng.random(amp.shape))
        v = np.fft.irfft2(amp * phase, s=(n, n))
    elif kind == "signed":
        k = np.hypot(np.fft.fftfreq(n)[:, None], np.fft.rfftfreq(n)[None, :]) * n
        amp = np.where(k > 0, np.maximum(k, 1.0) ** -3.0, 0.0)
        v = np.fft.irfft2(amp * np.exp(2j * np.pi * rng.random(amp.shape)), s=(n, n))
        return (30.0 * v / np.abs(v).max()).astype(dtype)
    elif kind == "masked":
        u = make_field("heat", n, dtype, seed, n_sources).copy()
        X, Y = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
        u[(X - 0.3 * n) ** 2 + (Y - 0.6 * n) ** 2 < (0.15 * n) ** 2] = np.nan
        return u
    else:
        v = rng.standard_normal((n, n))
    return (280.0 + 30.0 * v / np.abs(v).max()).astype(dtype)


def operator_field(stencil, n: int = 256, dtype=np.float32, seed: int = 0, n_sources: int = 6) -> np.ndarray:
    """A periodic field generated by an arbitrary 3×3 operator: ``K v = g − mean(g)``, solved by FFT.

    Used to test whether the learned template recovers the operator that made the data (and does not return
    Δ₅ for data that Δ₅ did not make). ``g`` is a sum of ``n_sources`` Gaussian sources.

    Parameters
    ----------
    stencil : (3, 3) array, the operator's template (correlation convention: entry [1 + di, 1 + dj] weights
        v[i + di, j + dj]); its symbol must vanish only at the zero frequency.
    n : grid side, n ≥ 8. dtype, seed, n_sources : as in :func:`make_field`.

    Returns
    -------
    (n, n) array of ``dtype`` in [250, 310].

    Raises
    ------
    ValueError for a stencil that is not 3×3 and finite, or whose symbol vanishes away from zero frequency.
    """
    c = np.asarray(stencil, dtype=np.float64)
    if c.shape != (3, 3) or not np.all(np.isfinite(c)):
        raise ValueError(f"stencil must be a finite 3x3 array, got shape {c.shape}")
    if not (isinstance(n, (int, np.integer)) and n >= 8):
        raise ValueError(f"n must be an integer >= 8, got {n!r}")
    kern = np.zeros((n, n))
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            kern[(-di) % n, (-dj) % n] += c[1 + di, 1 + dj]
    lam = np.fft.rfft2(kern)
    lam_nz = lam.copy()
    lam_nz[0, 0] = 1.0
    if np.min(np.abs(lam_nz)) < 1e-9:
        raise ValueError("stencil's symbol vanishes away from the zero frequency (not invertible on this grid)")
    rng = np.random.default_rng(seed)
    g = _gaussians(n, n_sources, rng, (0.02, 0.06))
    spec = np.fft.rfft2(g - g.mean()) / lam_nz
    spec[0, 0] = 0.0
    v = np.fft.irfft2(spec, s=(n, n))
    return (280.0 + 30.0 * v / np.abs(v).max()).astype(np.dtype(dtype))
