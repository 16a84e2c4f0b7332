"""The position-resolved forward mean field Σ^l(x, y) of one input (the exact D → ∞ map with the W path).

The lag recursion of ``meanfield`` averages over position. With σ_w² > 0 the pointwise path keeps the
position dependence, and the exact mean field of one input u is an N × N covariance (the book's derivation;
the paper's equations were not available to us):

    Σ^{l+1}(x, y) = σ_w² C_l(x, y) + σ_r² (P_K C̄_l)(x − y) + σ_b²,
    C_l(x, y) = E[φ(a) φ(b)],  (a, b) ~ N(0, [[Σ^l(x, x), Σ^l(x, y)], [Σ^l(x, y), Σ^l(y, y)]]),
    C̄_l(r) = N⁻¹ Σ_x C_l(x, x + r)   (the spectral path sees only the lag average, through its power spectrum).

With the constant lifting Z^0_c = u of ``montecarlo.simulate_correlation``, C_0(x, y) = φ(u(x)) φ(u(y)).
For σ_w² = 0 every Σ^l is circulant and equals the lag recursion. Gaussian expectations: 2-D Gauss–Hermite
quadrature (``meanfield.gauss_nodes``); the lag average and P_K use ``numpy.fft``.
"""
from __future__ import annotations

import numpy as np

from .layer import check_activation, check_int, check_modes, check_nonnegative
from .meanfield import _check_quad, _phi, gauss_nodes, lag_average, low_pass


def pair_expectation_matrix(sigma, activation: str, n_quad: int = 32):
    """C(x, y) = E[φ(a) φ(b)] for (a, b) ~ N(0, [[Σ(x,x), Σ(x,y)], [Σ(x,y), Σ(y,y)]]): (N, N) float64.

    Parameters
    ----------
    sigma : (N, N) float64 covariance with a positive diagonal.   activation : 'tanh' | 'relu'.
    n_quad : Gauss–Hermite nodes per axis, 2..200.
    """
    x, w = gauss_nodes(_check_quad(n_quad))
    d = np.sqrt(np.diag(sigma))
    rho = np.clip(sigma / np.outer(d, d), -1.0, 1.0)[..., None, None]
    b = d[None, :, None, None] * (rho * x[:, None] + np.sqrt(1.0 - rho**2) * x[None, :])   # (N, N, i, j)
    wa = w * _phi(d[:, None] * x, activation)                                                 # (N, i)
    return np.einsum("xyi,xi->xy", _phi(b, activation) @ w, wa)


def lag_to_matrix(kappa):
    """The circulant matrix K(x, y) = κ(y − x mod N) of a lag function κ: (N,) → (N, N)."""
    N = kappa.shape[-1]
    idx = (np.arange(N)[None, :] - np.arange(N)[:, None]) % N
    return kappa[idx]


def position_covariance(u, *, sigma_w2: float, sigma_r2: float, sigma_b2: float, n_modes: int, depth: int,
                        activation: str = "tanh", n_quad: int = 32):
    """Σ^1, ..., Σ^L of the position-resolved forward mean field for one input u (constant lifting).

    Parameters
    ----------
    u : (N,) float64 finite input on the grid, N >= 2.
    sigma_w2, sigma_r2, sigma_b2 : >= 0, σ_w² + σ_r² > 0.   n_modes : K, 1 <= K <= N/2.   depth : L >= 1.
    activation : 'tanh' | 'relu'.   n_quad : Gauss–Hermite nodes per axis, 2..200.

    Returns
    -------
    (L, N, N) float64, row l − 1 = Σ^l(x, y) (covariance of the pre-activations of one channel).

    Raises
    ------
    TypeError for a non-integer count; ValueError for a bad shape, NaN/inf, a negative variance, K outside
    [1, N/2] or L < 1 (each names the argument).
    """
    u = np.asarray(u, dtype=np.float64)
    if u.ndim != 1 or u.size < 2 or not np.all(np.isfinite(u)):
        raise ValueError(f"u must be a finite (N,) array with N >= 2, got shape {u.shape}")
    sigma_w2 = check_nonnegative("sigma_w2", sigma_w2)
    sigma_r2 = check_nonnegative("sigma_r2", sigma_r2)
    sigma_b2 = check_nonnegative("sigma_b2", sigma_b2)
    if sigma_w2 + sigma_r2 <= 0:
        raise ValueError("sigma_w2 + sigma_r2 must be > 0")
    check_modes(n_modes, u.size)
    depth = check_int("depth", depth, 1)
    check_activation(activation)
    _check_quad(n_quad)
    a = _phi(u, activation)
    C = np.outer(a, a)
    out = []
    for layer in range(depth):
        c_bar = np.mean([np.roll(C[x], -x) for x in range(u.size)], axis=0)   # N⁻¹ Σ_x C(x, x + r)
        out.append(sigma_w2 * C + sigma_r2 * lag_to_matrix(low_pass(c_bar, n_modes)) + sigma_b2)
        if layer < depth - 1:
            C = pair_expectation_matrix(out[-1], activation, n_quad)
    return np.array(out)


def spatial_correlation(sigma):
    """Σ(x, y) / √(Σ(x, x) Σ(y, y)): the spatial correlation map of a covariance (..., N, N)."""
    d = np.sqrt(np.diagonal(sigma, axis1=-2, axis2=-1))
    return sigma / (d[..., :, None] * d[..., None, :])


__all__ = ["lag_average", "lag_to_matrix", "pair_expectation_matrix", "position_covariance", "spatial_correlation"]


def simulate_covariance(u, sigma2: float, *, variant: str = "with_w", sigma_b2: float = 0.05, n_modes: int,
                        depth: int, width: int, n_networks: int, activation: str = "tanh", seed: int = 0):
    """Monte Carlo of the actual FNO layer (``layer.fno_layer``): Σ̂^l(x, y) per random network.

    Parameters
    ----------
    u : (N,) float64 input; constant lifting Z^0_c = u.   sigma2 : total σ² > 0, split by ``variant``.
    sigma_b2 : >= 0.   n_modes : K.   depth : L >= 1.   width : D >= 1.   n_networks : G >= 1.   seed : >= 0.

    Returns
    -------
    (G, L, N, N) float64, D⁻¹ Σ_c Z^l_c(x) Z^l_c(y) of each network g at layers l = 1..L.
    """
    from threadpoolctl import threadpool_limits

    from .layer import draw_layer, fno_layer, split_sigma2

    u = np.asarray(u, dtype=np.float64)
    sw2, sr2 = split_sigma2(sigma2, variant)
    G, D = check_int("n_networks", n_networks, 1), check_int("width", width, 1)
    depth = check_int("depth", depth, 1)
    rng = np.random.default_rng(check_int("seed", seed, 0))
    z = np.broadcast_to(u[None, None, None, :], (G, 1, D, u.size)).copy()
    out = []
    with threadpool_limits(limits=1, user_api="blas"):
        for _ in range(depth):
            W, R, b = draw_layer(rng, G, D, n_modes, np.full(G, sw2), np.full(G, sr2), sigma_b2)
            z = fno_layer(z, W, R, b, activation)
            out.append(np.einsum("gcx,gcy->gxy", z[:, 0], z[:, 0]) / D)
    return np.stack(out, axis=1)
