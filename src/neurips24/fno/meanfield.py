"""Mean-field theory of the random FNO: lag-covariance recursion, correlation map c, gradient gain χ.

This is the book's own derivation, checked against Monte Carlo in the tests and the chapter (the paper's
text states the phase transition and its link to gradients; its equations were not available to us).
For width D → ∞ the pre-activations of a layer form a Gaussian process over the grid whose lag
covariance obeys (chapter eq. (4))

    κ^{αβ}_{l+1}(r) = σ_w² C^{αβ}_l(r) + σ_r² (P_K C^{αβ}_l)(r) + σ_b²,
    C^{αβ}_l(r) = E[φ(u) φ(v)],  (u, v) ~ N(0, [[κ^{αα}_l(0), κ^{αβ}_l(r)], [κ^{αβ}_l(r), κ^{ββ}_l(0)]]),

with P_K the ideal low-pass filter on the lag function (eq. (5)), the order parameter
c_l = κ^{αβ}_l(0) / √(κ^{αα}_l(0) κ^{ββ}_l(0)) (eq. (6)) and the gradient gain per layer
χ = (σ_w² + σ_r²) E[φ'(z)²], z ~ N(0, q*) (eq. (7)).
The Gaussian expectations use Gauss–Hermite quadrature (``numpy.polynomial.hermite_e.hermegauss``);
the low-pass filter uses ``numpy.fft``.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.polynomial.hermite_e import hermegauss

from .layer import check_activation, check_int, check_modes, check_nonnegative, check_positive

N_QUAD = 48


def _phi(z, activation):
    return np.tanh(z) if activation == "tanh" else np.maximum(z, 0.0)


def _dphi(z, activation):
    return 1.0 / np.cosh(z) ** 2 if activation == "tanh" else (z > 0).astype(float)


def _check_quad(n_quad: int) -> int:
    """Gauss–Hermite node counts beyond ~350 overflow in ``hermegauss``; accept 2..200."""
    n = check_int("n_quad", n_quad, 2)
    if n > 200:
        raise ValueError(f"n_quad must be between 2 and 200, got {n}")
    return n


@lru_cache(maxsize=16)
def gauss_nodes(n_quad: int):
    """Probabilists' Gauss–Hermite nodes and weights normalised to N(0, 1), cached (read-only arrays)."""
    x, w = hermegauss(n_quad)
    w = w / np.sqrt(2.0 * np.pi)
    x.flags.writeable = w.flags.writeable = False
    return x, w


def gaussian_pair_expectation(q1: float, q2: float, cov, activation: str, n_quad: int = N_QUAD):
    """E[φ(u) φ(v)] for (u, v) ~ N(0, [[q1, cov], [cov, q2]]), by 2-D Gauss–Hermite quadrature.

    Parameters
    ----------
    q1, q2 : variances, > 0.
    cov : covariance, scalar or array of any shape with |cov| <= √(q1 q2).
    activation : 'tanh' or 'relu'.

    Returns
    -------
    float64 array of the shape of ``cov``.

    Raises
    ------
    ValueError if q1 or q2 is not a finite number > 0, or ``cov`` has NaN/inf entries.
    """
    check_activation(activation)
    q1, q2 = check_positive("q1", q1), check_positive("q2", q2)
    x, w = gauss_nodes(_check_quad(n_quad))
    cov = np.asarray(cov, dtype=np.float64)
    if not np.all(np.isfinite(cov)):
        raise ValueError("cov must be finite (no NaN or inf)")
    rho = np.clip(cov / np.sqrt(q1 * q2), -1.0, 1.0)[..., None, None]
    v = np.sqrt(q2) * (rho * x[:, None] + np.sqrt(1.0 - rho**2) * x[None, :])    # (..., i, j)
    wu = w * _phi(np.sqrt(q1) * x, activation)                                   # φ(u) depends on i only
    return (_phi(v, activation) @ w) @ wu


def low_pass(C, n_modes: int):
    """P_K of eq. (5): keep the Fourier modes |k| < K of a real lag function.

    Parameters
    ----------
    C : (..., N) float64, a function of the lag r = 0..N-1 (periodic).
    n_modes : K, 1 <= K <= N/2.

    Returns
    -------
    (..., N) float64, (P_K C)(r) = N⁻¹ Σ_{|k|<K} Ĉ(k) e^{2πikr/N}.
    """
    C = np.asarray(C, dtype=np.float64)
    N = C.shape[-1]
    check_modes(n_modes, N)
    C_hat = np.fft.rfft(C, axis=-1)
    C_hat[..., n_modes:] = 0.0
    return np.fft.irfft(C_hat, n=N, axis=-1)


def lag_average(a, b):
    """Circular cross-correlation N⁻¹ Σ_x a(x) b(x + r) of two (..., N) arrays, for r = 0..N-1."""
    N = a.shape[-1]
    return np.fft.irfft(np.conj(np.fft.rfft(a, axis=-1)) * np.fft.rfft(b, axis=-1), n=N, axis=-1) / N


def correlation_recursion(u, *, sigma_w2: float, sigma_r2: float, sigma_b2: float, n_modes: int,
                          depth: int, activation: str, n_quad: int = N_QUAD):
    """Iterate the lag-covariance map eq. (4) for two inputs and return the order parameter per layer.

    The network's input layer is Z^0_c = u for every channel c (a constant lifting), so layer 1 follows
    exactly from the inputs; later layers use the lag (position-averaged) form, which is exact for the
    pure spectral FNO (σ_w² = 0) and a mean-field approximation when σ_w² > 0.

    Parameters
    ----------
    u : (2, N) float64, the two inputs u^α, u^β on the grid.
    sigma_w2, sigma_b2 : >= 0. sigma_r2 : > 0 when sigma_w2 == 0.
    n_modes : K, 1 <= K <= N/2.
    depth : L >= 1.
    activation : 'tanh' or 'relu'.

    Returns
    -------
    c : (L + 1,) float64, c_l of eq. (6) for l = 0..L.
    q : (L + 1,) float64, the variance κ^{αα}_l(0).
    kappa : (3, N) float64, the lag covariances κ^{αα}, κ^{ββ}, κ^{αβ} after layer L.

    Raises
    ------
    ValueError on a non-(2, N) input, negative variances, K outside [1, N/2] or L < 1.
    """
    u = np.asarray(u, dtype=np.float64)
    if u.ndim != 2 or u.shape[0] != 2 or u.shape[1] < 2:
        raise ValueError(f"u must have shape (2, N) with N >= 2, got {u.shape}")
    sigma_w2 = check_nonnegative("sigma_w2", sigma_w2)
    sigma_r2 = check_nonnegative("sigma_r2", sigma_r2)
    sigma_b2 = check_nonnegative("sigma_b2", sigma_b2)
    if sigma_w2 + sigma_r2 <= 0:
        raise ValueError("sigma_w2 + sigma_r2 must be > 0")
    check_modes(n_modes, u.shape[1])
    check_int("depth", depth, 1)
    check_activation(activation)
    _check_quad(n_quad)

    def step(C):  # eq. (4) on the three lag functions at once
        return sigma_w2 * C + sigma_r2 * low_pass(C, n_modes) + sigma_b2

    a = _phi(u, activation)
    C0 = np.stack([lag_average(a[0], a[0]), lag_average(a[1], a[1]), lag_average(a[0], a[1])])
    kappa = step(C0)                                  # (3, N): αα, ββ, αβ
    q0 = np.mean(u * u, axis=1)
    c = [np.mean(u[0] * u[1]) / np.sqrt(q0[0] * q0[1])]
    q = [q0[0]]
    for layer in range(1, depth + 1):
        qa, qb = kappa[0, 0], kappa[1, 0]
        c.append(kappa[2, 0] / np.sqrt(qa * qb))
        q.append(qa)
        if layer == depth:
            break
        kappa = step(pair_expectations(kappa, activation, n_quad))
    return np.array(c), np.array(q), kappa


def pair_expectations(kappa, activation: str, n_quad: int = N_QUAD):
    """The three lag functions C^{αα}, C^{ββ}, C^{αβ} of eq. (4) from κ of shape (3, N) (rows αα, ββ, αβ)."""
    qa, qb = kappa[0, 0], kappa[1, 0]
    return np.stack([
        gaussian_pair_expectation(qa, qa, kappa[0], activation, n_quad),
        gaussian_pair_expectation(qb, qb, kappa[1], activation, n_quad),
        gaussian_pair_expectation(qa, qb, kappa[2], activation, n_quad),
    ])


def chi(activation: str, sigma_w2: float, sigma_r2: float, q: float, n_quad: int = N_QUAD) -> float:
    """Gradient gain per layer for perturbations in the kept modes, eq. (7): (σ_w² + σ_r²) E[φ'(z)²].

    Parameters
    ----------
    activation : 'tanh' or 'relu' (for ReLU E[φ'²] = 1/2 exactly, whatever q).
    sigma_w2, sigma_r2 : >= 0.
    q : variance of z, > 0 (the fixed point q* of the variance map).

    Returns
    -------
    float, dimensionless; χ < 1 ordered (vanishing gradients), χ > 1 chaotic (exploding).

    Raises
    ------
    ValueError on an unknown activation, a negative variance, q <= 0 or not finite, or ``n_quad`` outside
    2..200 (TypeError if it is not an int).
    """
    check_activation(activation)
    sigma_w2 = check_nonnegative("sigma_w2", sigma_w2)
    sigma_r2 = check_nonnegative("sigma_r2", sigma_r2)
    if not (np.isfinite(q) and q > 0):
        raise ValueError(f"q must be a finite number > 0, got {q!r}")
    n_quad = _check_quad(n_quad)
    if activation == "relu":
        return 0.5 * (sigma_w2 + sigma_r2)
    x, w = gauss_nodes(n_quad)
    return float((sigma_w2 + sigma_r2) * np.sum(w * _dphi(np.sqrt(q) * x, activation) ** 2))
