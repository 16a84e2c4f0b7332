"""A 1-D PDE data set generated in code: the heat equation on the periodic unit interval.

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
