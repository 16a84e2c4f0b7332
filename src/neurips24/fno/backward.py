"""The FNO's own backward mean field: the lag-resolved gradient recursion and its per-layer slope.

This is the book's derivation (the paper's equations were not available to us), checked against Monte Carlo
in the tests and the chapter. For width D → ∞, with the usual gradient-independence assumption, the lag
covariance of the backpropagated signal g_l = ∂ℓ/∂Z^l, δ_l(r) = E[g_l(x) g_l(x + r)], obeys

    δ_l(r) = C′_l(r) · [σ_w² δ_{l+1}(r) + σ_r² (P_K δ_{l+1})(r)],   C′_l(r) = E[φ′(u) φ′(v)],

with (u, v) ~ N(0, [[κ_l(0), κ_l(r)], [κ_l(r), κ_l(0)]]) from the forward lag covariance κ_l of the same
network (:func:`lag_forward`, chapter eq. (fno-kappa) for one input). ‖∂ℓ/∂Z^l‖² ∝ δ_l(0). With
K = N/2 + 1 (P_K the identity) and σ_w² = 0 it reduces to δ_l(0) = σ² E[φ′²] δ_{l+1}(0) = χ δ_{l+1}(0), the
fully-connected gain of eq. (fno-chi); with K < N/2 + 1 the low-pass P_K and the lag dependence of C′_l
change the per-layer gain, which the fully-connected χ does not see.

Gaussian expectations: closed forms for ReLU (the arc-cosine kernels of Cho & Saul), Gauss–Hermite
quadrature for tanh (``meanfield.gaussian_pair_expectation``); the low-pass filter uses ``numpy.fft``.
"""
from __future__ import annotations

import numpy as np

from .layer import check_activation, check_int, check_nonnegative
from .meanfield import N_QUAD, _check_quad, gauss_nodes, gaussian_pair_expectation


def _low_pass(C, n_modes: int):
    """P_K on lag functions for 1 <= K <= N/2 + 1 (K = N/2 + 1 keeps every mode: the identity)."""
    N = C.shape[-1]
    C_hat = np.fft.rfft(C, axis=-1)
    C_hat[..., n_modes:] = 0.0
    return np.fft.irfft(C_hat, n=N, axis=-1)


def _rho(kappa):
    return np.clip(kappa / kappa[..., :1], -1.0, 1.0)


def pair_phi(kappa, activation: str, n_quad: int = N_QUAD):
    """E[φ(u) φ(v)] at every lag for a stationary lag covariance κ (u, v of variance κ(0), covariance κ(r)).

    Parameters
    ----------
    kappa : (N,) float64 lag covariance, κ(0) > 0.   activation : 'tanh' | 'relu'.

    Returns
    -------
    (N,) float64. ReLU: κ(0)/(2π) · (sin θ + (π − θ) cos θ), θ = arccos ρ (Cho & Saul's arc-cosine kernel);
    tanh: 2-D Gauss–Hermite quadrature.
    """
    kappa = np.asarray(kappa, dtype=np.float64)
    if activation == "relu":
        theta = np.arccos(_rho(kappa))
        return kappa[..., :1] / (2 * np.pi) * (np.sin(theta) + (np.pi - theta) * np.cos(theta))
    q = float(kappa[0])
    return gaussian_pair_expectation(q, q, kappa, activation, n_quad)


def pair_dphi(kappa, activation: str, n_quad: int = N_QUAD):
    """C′(r) = E[φ′(u) φ′(v)] at every lag for a stationary lag covariance κ.

    Parameters
    ----------
    kappa : (N,) float64 lag covariance, κ(0) > 0.   activation : 'tanh' | 'relu'.

    Returns
    -------
    (N,) float64. ReLU: (π − θ)/(2π), θ = arccos ρ (closed form; 1/2 at ρ = 1, 1/4 at ρ = 0);
    tanh: 2-D Gauss–Hermite quadrature of sech²(u) sech²(v).
    """
    kappa = np.asarray(kappa, dtype=np.float64)
    rho = _rho(kappa)
    if activation == "relu":
        return (np.pi - np.arccos(rho)) / (2 * np.pi)
    x, w = gauss_nodes(n_quad)
    q = float(kappa[0])
    r = rho[..., None, None]
    v = np.sqrt(q) * (r * x[:, None] + np.sqrt(1.0 - r**2) * x[None, :])
    return (np.cosh(v) ** -2 @ w) @ (w * np.cosh(np.sqrt(q) * x) ** -2)


def _check(kappa0, sigma_w2, sigma_r2, n_modes, depth, activation, n_quad):
    kappa0 = np.asarray(kappa0)
    if kappa0.dtype.kind not in "iuf":
        raise TypeError(f"kappa0 must be a real float array, got dtype {kappa0.dtype}")
    kappa0 = kappa0.astype(np.float64)
    if kappa0.ndim != 1 or kappa0.size < 2:
        raise ValueError(f"kappa0 must have shape (N,) with N >= 2, got {kappa0.shape}")
    if not np.all(np.isfinite(kappa0)) or not kappa0[0] > 0 or np.any(np.abs(kappa0) > kappa0[0] * (1 + 1e-12)):
        raise ValueError("kappa0 must be finite with kappa0[0] > 0 and |kappa0[r]| <= kappa0[0]")
    sigma_w2 = check_nonnegative("sigma_w2", sigma_w2)
    sigma_r2 = check_nonnegative("sigma_r2", sigma_r2)
    if sigma_w2 + sigma_r2 <= 0:
        raise ValueError("sigma_w2 + sigma_r2 must be > 0")
    N = kappa0.size
    n_modes = check_int("n_modes", n_modes, 1)
    if n_modes > N // 2 + 1:
        raise ValueError(f"n_modes must be between 1 and N/2 + 1 = {N // 2 + 1}, got {n_modes}")
    check_int("depth", depth, 1)
    check_activation(activation)
    _check_quad(n_quad)
    return kappa0, sigma_w2, sigma_r2


def lag_forward(kappa0, *, sigma_w2: float, sigma_r2: float, sigma_b2: float = 0.0, n_modes: int, depth: int,
                activation: str, n_quad: int = N_QUAD):
    """Forward lag covariances κ_0, ..., κ_L of one input, iterating eq. (fno-kappa).

    κ_{l+1}(r) = σ_w² C_l(r) + σ_r² (P_K C_l)(r) + σ_b²,  C_l = E[φφ] under κ_l (:func:`pair_phi`).
    Z^0 is treated as a stationary Gaussian process with lag covariance ``kappa0`` (for the chapter's
    Z^0_c = a_c u with a_c, u(x) i.i.d. N(0, 1): κ_0 = 1[r = 0], exact for ReLU's pair expectations).

    Parameters
    ----------
    kappa0 : (N,) float64, the lag covariance of Z^0; κ_0(0) > 0, |κ_0(r)| <= κ_0(0).
    sigma_w2, sigma_r2, sigma_b2 : >= 0, σ_w² + σ_r² > 0.
    n_modes : K, 1 <= K <= N/2 + 1 (N/2 + 1 keeps every mode).   depth : L >= 1.
    activation : 'tanh' | 'relu'.   n_quad : Gauss–Hermite nodes, 2..200 (tanh only).

    Returns
    -------
    (L + 1, N) float64, row l = κ_l.

    Raises
    ------
    TypeError for a non-float ``kappa0`` or a non-integer count; ValueError for a bad shape, NaN/inf, a
    negative variance, K outside [1, N/2 + 1] or L < 1 (each names the argument).
    """
    kappa, sigma_w2, sigma_r2 = _check(kappa0, sigma_w2, sigma_r2, n_modes, depth, activation, n_quad)
    sigma_b2 = check_nonnegative("sigma_b2", sigma_b2)
    out = [kappa]
    for _ in range(depth):
        C = pair_phi(out[-1], activation, n_quad)
        out.append(sigma_w2 * C + sigma_r2 * _low_pass(C, n_modes) + sigma_b2)
    return np.array(out)


def lag_backward(kappa0, *, sigma_w2: float, sigma_r2: float, sigma_b2: float = 0.0, n_modes: int, depth: int,
                 activation: str, n_quad: int = N_QUAD):
    """Backward lag covariances δ_0, ..., δ_L of ∂ℓ/∂Z^l for ℓ = ⟨G, Z^L⟩ with white G (δ_L = 1[r = 0]).

    δ_l(r) = C′_l(r) · [σ_w² δ_{l+1}(r) + σ_r² (P_K δ_{l+1})(r)], C′_l from κ_l of :func:`lag_forward`.

    Parameters
    ----------
    As :func:`lag_forward`.

    Returns
    -------
    (L + 1, N) float64, row l = δ_l (units of E[G²]); ‖∂ℓ/∂Z^l‖² ∝ δ_l(0).

    Raises
    ------
    As :func:`lag_forward`.
    """
    kappa = lag_forward(kappa0, sigma_w2=sigma_w2, sigma_r2=sigma_r2, sigma_b2=sigma_b2, n_modes=n_modes,
                        depth=depth, activation=activation, n_quad=n_quad)
    sigma_w2, sigma_r2 = float(sigma_w2), float(sigma_r2)
    N = kappa.shape[1]
    delta = [np.eye(1, N)[0]]
    for layer in range(depth - 1, -1, -1):
        d = delta[-1]
        delta.append(pair_dphi(kappa[layer], activation, n_quad) * (sigma_w2 * d + sigma_r2 * _low_pass(d, n_modes)))
    return np.array(delta[::-1])


def fit_slope(log_norms, skip_top: int = 1):
    """Fitted gain per layer, −d log‖g_l‖/dl by least squares over layers 0..L − skip_top.

    Parameters
    ----------
    log_norms : (..., L + 1) float64, natural log of ‖∂ℓ/∂Z^l‖ for l = 0..L.
    skip_top : top layers left out, 0 <= skip_top <= L − 1.

    Returns
    -------
    (...) float64 slope (``numpy.polyfit``); ½ log χ per layer for a fully-connected network.

    Raises
    ------
    ValueError if ``log_norms`` has NaN/inf entries (e.g. the log of a zero or NaN gradient norm) or too few
    layers; TypeError if ``skip_top`` is not an int.
    """
    log_norms = np.asarray(log_norms, dtype=np.float64)
    if not np.all(np.isfinite(log_norms)):
        raise ValueError("log_norms must be finite (no NaN or inf: a gradient norm of 0, inf or NaN)")
    skip_top = check_int("skip_top", skip_top, 0)
    if log_norms.ndim < 1 or log_norms.shape[-1] - skip_top < 2:
        raise ValueError(f"log_norms needs at least skip_top + 2 = {skip_top + 2} layers, got {log_norms.shape}")
    logs = log_norms[..., : log_norms.shape[-1] - skip_top]
    flat = logs.reshape(-1, logs.shape[-1]).T
    return -np.polyfit(np.arange(logs.shape[-1]), flat, 1)[0].reshape(logs.shape[:-1])


def predicted_slope(sigma2: float, variant: str, *, n_modes: int, n_grid: int, depth: int,
                    activation: str = "relu", sigma_b2: float = 0.0, skip_top: int = 1,
                    n_quad: int = N_QUAD) -> float:
    """The lag-resolved prediction of the fitted slope for white inputs (κ_0 = 1[r = 0]).

    Same fit as the Monte Carlo (:func:`fit_slope` of ½ log δ_l(0)), so the two are compared like for like.

    Parameters
    ----------
    sigma2 : total σ² > 0, split by ``variant`` ('with_w' | 'spectral', ``layer.split_sigma2``).
    n_modes : K, 1 <= K <= N/2 + 1.  n_grid : N >= 2.  depth : L >= 2.  activation : 'tanh' | 'relu'.

    Returns
    -------
    float, the predicted slope per layer (dimensionless, natural log).
    """
    from .layer import split_sigma2

    sigma_w2, sigma_r2 = split_sigma2(sigma2, variant)
    n_grid = check_int("n_grid", n_grid, 2)
    delta = lag_backward(np.eye(1, n_grid)[0], sigma_w2=sigma_w2, sigma_r2=sigma_r2, sigma_b2=sigma_b2,
                         n_modes=n_modes, depth=depth, activation=activation, n_quad=n_quad)
    return float(fit_slope(0.5 * np.log(delta[:, 0]), skip_top))


def edge_sigma2(variant: str, *, n_modes: int, n_grid: int, depth: int, activation: str = "relu",
                bracket: tuple[float, float] = (0.5, 8.0), sigma_b2: float = 0.0) -> float:
    """The finite-depth edge: the σ² at which the lag-resolved slope (:func:`predicted_slope`) is zero.

    Root by ``scipy.optimize.brentq`` inside ``bracket``. The fully-connected χ puts it at σ² = 2 for ReLU
    whatever K and L. ``sigma_b2`` (σ_b² >= 0) is passed to :func:`predicted_slope`.

    Returns
    -------
    float, σ² (dimensionless).

    Raises
    ------
    ValueError if the slope does not change sign inside ``bracket`` (as raised by brentq).
    """
    from scipy.optimize import brentq

    return float(brentq(lambda s: predicted_slope(s, variant, n_modes=n_modes, n_grid=n_grid, depth=depth,
                                                  activation=activation, sigma_b2=sigma_b2), *bracket, xtol=1e-4))
