"""1-D PDE data sets generated in code: the heat equation and linear advection on the periodic unit interval.

u_t = ν u_xx has the exact solution û(k, T) = exp(−ν (2πk)² T) û₀(k) for each Fourier mode k.
Initial conditions u₀ are Gaussian random fields with power spectrum ∝ (1 + (k/k₀)²)^(−2)
(drawn in Fourier space with NumPy's generator; transforms by ``numpy.fft``).
"""
from __future__ import annotations

import numpy as np

from .layer import check_int, check_positive


def heat_dataset(n_samples: int, n_grid: int = 64, nu: float = 0.01, t_final: float = 0.5,
                 k0: float = 4.0, seed: int = 0):
    """Pairs (u₀, u(·, T)) of the periodic heat equation, exact in every Fourier mode.

    Parameters
    ----------
    n_samples : number of pairs, >= 1.
    n_grid : N grid points on [0, 1), even, >= 4.
    nu : diffusivity ν > 0 (units: length²/time, the domain has length 1).
    t_final : T > 0 (time units).
    k0 : correlation wavenumber of the initial field, > 0.
    seed : seed of ``numpy.random.default_rng``, an int >= 0.

    Returns
    -------
    u0 : (n_samples, N) float64, unit mean-square initial conditions.
    uT : (n_samples, N) float64, solutions at time T.

    Raises
    ------
    ValueError if an argument is out of range; TypeError if a count or the seed is not an int.
    """
    check_int("n_samples", n_samples, 1)
    if check_int("n_grid", n_grid, 4) % 2:
        raise ValueError(f"n_grid must be an even integer >= 4, got {n_grid!r}")
    nu, t_final, k0 = check_positive("nu", nu), check_positive("t_final", t_final), check_positive("k0", k0)
    seed = check_int("seed", seed, 0)
    rng = np.random.default_rng(seed)
    k = np.fft.rfftfreq(n_grid, d=1.0 / n_grid)                       # 0, 1, ..., N/2 (cycles per unit)
    amp = (1.0 + (k / k0) ** 2) ** -1.0
    amp[0] = 0.0
    coef = amp * (rng.standard_normal((n_samples, k.size)) + 1j * rng.standard_normal((n_samples, k.size)))
    u0 = np.fft.irfft(coef, n=n_grid, axis=-1)
    u0 /= np.sqrt(np.mean(u0**2, axis=-1, keepdims=True))
    uT = np.fft.irfft(np.fft.rfft(u0, axis=-1) * np.exp(-nu * (2 * np.pi * k) ** 2 * t_final), n=n_grid, axis=-1)
    return u0, uT


def advection_dataset(n_samples: int, n_grid: int = 64, beta: float = 0.4, t_final: float = 2.0,
                      n_waves: int = 2, k_max: int = 4, seed: int = 0):
    """Pairs (u₀, u(·, T)) of the periodic linear advection u_t + β u_x = 0, exact: u(x, T) = u₀(x − βT).

    The initial condition is a sum of ``n_waves`` sines, u₀(x) = Σ_i A_i sin(2π k_i x + φ_i) with
    k_i uniform on {1, ..., k_max}, A_i ~ U(0, 1), φ_i ~ U(0, 2π) (a PDEBench-style advection set; the
    paper's own data generator is not known here). Both fields are scaled by the same factor so that u₀ has unit
    mean square. Random numbers: ``numpy.random.default_rng(seed)``.

    Parameters
    ----------
    n_samples : number of pairs, >= 1.
    n_grid : N grid points x = 0, 1/N, ..., on the unit period, even, >= 4.
    beta : advection speed β (period lengths per time unit), finite.
    t_final : T > 0 (time units).
    n_waves : number of sines per sample, >= 1.
    k_max : largest wave number, 1 <= k_max < N/2 (so every sine is resolved on the grid).
    seed : seed of ``numpy.random.default_rng``, an int >= 0.

    Returns
    -------
    u0 : (n_samples, N) float64; uT : (n_samples, N) float64, u₀ shifted by βT.

    Raises
    ------
    TypeError if a count or the seed is not an int; ValueError if an argument is out of range (each names
    the argument).
    """
    check_int("n_samples", n_samples, 1)
    if check_int("n_grid", n_grid, 4) % 2:
        raise ValueError(f"n_grid must be an even integer >= 4, got {n_grid!r}")
    beta = float(beta)
    if not np.isfinite(beta):
        raise ValueError(f"beta must be a finite number, got {beta!r}")
    t_final = check_positive("t_final", t_final)
    check_int("n_waves", n_waves, 1)
    if not 1 <= check_int("k_max", k_max, 1) < n_grid // 2:
        raise ValueError(f"k_max must satisfy 1 <= k_max < N/2 = {n_grid // 2}, got {k_max}")
    rng = np.random.default_rng(check_int("seed", seed, 0))
    k = rng.integers(1, k_max + 1, size=(n_samples, n_waves, 1))
    amp = rng.uniform(0.0, 1.0, size=(n_samples, n_waves, 1))
    phase = rng.uniform(0.0, 2 * np.pi, size=(n_samples, n_waves, 1))
    x = np.arange(n_grid) / n_grid
    u0 = (amp * np.sin(2 * np.pi * k * x + phase)).sum(axis=1)
    uT = (amp * np.sin(2 * np.pi * k * (x - beta * t_final) + phase)).sum(axis=1)
    scale = np.sqrt(np.mean(u0**2, axis=-1, keepdims=True))
    return u0 / scale, uT / scale
