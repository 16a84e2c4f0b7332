"""The reduced (e, w, b) model of the one-layer transformer and its loss landscape (Makkuva et al. 2024, §3–4).

With a rank-one embedding of norm e, an MLP of rank one with weight w and the output bias b, the logit of
"next token = 1" after token x ∈ {0, 1} is

    logit(x) = e² (1 + 2 w|w|) x + b − e²/2,   so   f₁ = e² (½ + 2 w|w|) + b,   f₀ = b − e²/2.

The population loss is the expected cross-entropy under the stationary chain (in nats):

    L = −π₁ [q log σ(−f₁) + (1 − q) log σ(f₁)] − π₀ [p log σ(f₀) + (1 − p) log σ(−f₀)].

Everything here is elementwise on arrays of (e, w, b) and exact (no sampling); p and q are scalars.
Sources: the official code (``Markov-Fixed/src/models/base.py``, ``Markov-Fixed/energy/contour_plot.py``).
"""
from __future__ import annotations

import numpy as np

from .chain import check_pq, stationary

W_SADDLE = -1.0 / np.sqrt(2.0)
"""w of the saddle point (e, w) = (0, −1/√2), where the two families of critical points on e = 0 meet."""

SEPARATRIX_ENERGY = -0.5 * (1.0 + np.log(2.0))
"""E at the saddle, −(1 + log 2)/2: the energy level of the separatrix between the basins."""


def _log_sigmoid(x):
    return -np.logaddexp(0.0, -x)


def _sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def logits(e, w, b):
    """(f₀, f₁): logits of P(next = 1) after a 0 and after a 1, arrays broadcast from e, w, b (float64)."""
    e, w, b = (np.asarray(v, dtype=np.float64) for v in (e, w, b))
    e2 = e * e
    return b - 0.5 * e2, e2 * (0.5 + 2.0 * w * np.abs(w)) + b


def loss(e, w, b, p: float, q: float):
    """Population cross-entropy L(e, w, b) in nats (module docstring); broadcast over e, w, b.

    Raises
    ------
    ValueError if p or q is outside (0, 1).
    """
    p, q = check_pq(p, q)
    pi0, pi1 = stationary(p, q)
    f0, f1 = logits(e, w, b)
    return (-pi1 * (q * _log_sigmoid(-f1) + (1 - q) * _log_sigmoid(f1))
            - pi0 * (p * _log_sigmoid(f0) + (1 - p) * _log_sigmoid(-f0)))


def gradient(e, w, b, p: float, q: float):
    """Exact population gradient (∂L/∂e, ∂L/∂w, ∂L/∂b); each an array broadcast from e, w, b.

    With r₁ = σ(f₁) − (1 − q) and r₀ = σ(f₀) − p (prediction minus target probability):
    ∂L/∂e = 2e (½ + 2w|w|) π₁ r₁ − e π₀ r₀,  ∂L/∂w = 4|w| e² π₁ r₁,  ∂L/∂b = π₁ r₁ + π₀ r₀.

    Raises
    ------
    ValueError if p or q is outside (0, 1).
    """
    p, q = check_pq(p, q)
    pi0, pi1 = stationary(p, q)
    e, w, b = (np.asarray(v, dtype=np.float64) for v in (e, w, b))
    f0, f1 = logits(e, w, b)
    g1 = pi1 * (_sigmoid(f1) - (1.0 - q))
    g0 = pi0 * (_sigmoid(f0) - p)
    return 2.0 * e * (0.5 + 2.0 * w * np.abs(w)) * g1 - e * g0, 4.0 * np.abs(w) * e * e * g1, g1 + g0


def optimal_bias(e, w, p: float, q: float):
    """b*(e, w) = argmin_b L, in a form that neither overflows nor cancels.

    With a = (1 + 2w|w|) e² = f₁ − f₀ and δ = p − q, the paper's code writes
    b* = e²/2 + log[(δ + √(δ² + 4pq eᵃ)) / (2q eᵃ)]. Here log √(δ² + 4pq eᵃ) is a log-sum-exp and, for δ < 0,
    δ + s is rewritten as 4pq eᵃ / (s − δ) to avoid cancellation; so b* is finite for any finite a.

    Returns
    -------
    array broadcast from e and w, float64.

    Raises
    ------
    ValueError if p or q is outside (0, 1).
    """
    p, q = check_pq(p, q)
    e, w = np.asarray(e, dtype=np.float64), np.asarray(w, dtype=np.float64)
    e2 = e * e
    a = (1.0 + 2.0 * w * np.abs(w)) * e2
    delta = p - q
    log4pq = np.log(4.0 * p * q)
    if delta == 0.0:
        log_num = 0.5 * (log4pq + a)                                  # δ + s = s = 2p e^{a/2}
    else:
        log_d = np.log(abs(delta))
        log_s = 0.5 * np.logaddexp(2.0 * log_d, log4pq + a)
        log_num = np.logaddexp(log_d, log_s) if delta > 0 else log4pq + a - np.logaddexp(log_s, log_d)
    return 0.5 * e2 + log_num - np.log(2.0 * q) - a


def reduced_loss(e, w, p: float, q: float):
    """L(e, w, b*(e, w)): the loss with the bias at its optimum (nats). Raises like :func:`loss`."""
    return loss(e, w, optimal_bias(e, w, p, q), p, q)


def energy(e, w):
    """Conserved energy E = e² − w² − sign(w) log|w| of the flow with b at b* (NaN on the line w = 0).

    Along the gradient flow dE/dt = 2e² ∂L/∂b, which vanishes when b = b*.
    """
    e, w = np.asarray(e, dtype=np.float64), np.asarray(w, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = e * e - w * w - np.sign(w) * np.log(np.abs(w))
    return np.where(w == 0, np.nan, out)


def global_minimum_a(p: float, q: float) -> float:
    """a* = log[(1 − p)(1 − q) / (pq)]: the global minima are the curve (1 + 2w|w|) e² = a*.

    a* < 0 when p + q > 1 (reachable only for w < −1/√2) and a* > 0 when p + q < 1 (for w > −1/√2).
    Raises like :func:`check_pq`.
    """
    p, q = check_pq(p, q)
    return float(np.log((1 - p) * (1 - q) / (p * q)))


def global_minimum_e(w, p: float, q: float):
    """e ≥ 0 on the global-minimum locus at each w (NaN where the locus has no point at that w)."""
    a_star = global_minimum_a(p, q)
    w = np.asarray(w, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        e2 = a_star / (1.0 + 2.0 * w * np.abs(w))
    return np.where(e2 > 0, np.sqrt(np.where(e2 > 0, e2, 0.0)), np.nan)


def separatrix_e(w):
    """e ≥ 0 on the separatrix E(e, w) = −(1 + log 2)/2 on the side w < 0 (NaN for w ≥ 0).

    e² = w² − log|w| − (1 + log 2)/2, which is ≥ 0 for every w < 0 and touches 0 at the saddle w = −1/√2.
    """
    w = np.asarray(w, dtype=np.float64)
    neg = w < 0
    with np.errstate(divide="ignore", invalid="ignore"):
        e2 = w * w - np.log(np.abs(w)) + SEPARATRIX_ENERGY
    return np.where(neg, np.sqrt(np.maximum(e2, 0.0)), np.nan)


def predict_basin(e, w, p: float, q: float):
    """Predict which minimum the flow from (e, w) with b = b* reaches: True = global (bigram), False = local.

    - p + q > 1: global basin I* = {w < 0, E > E_sep} ∪ {w < −1/√2}; the rest, including every small
      initialisation near the origin and the whole half-plane w ≥ 0, goes to the unigram minimum.
    - p + q < 1: local basin I_min = {w < −1/√2, E < E_sep}; the rest goes to the global minimum.
    - p + q = 1: the chain has no memory and both minima coincide; every point is "global".

    The lines e = 0 (stationary) and the separatrix itself are measure-zero exceptions.

    Parameters
    ----------
    e, w : arrays of any broadcastable shapes, float64.
    p, q : switching probabilities in (0, 1).

    Returns
    -------
    bool array broadcast from e and w.

    Raises
    ------
    ValueError if p or q is outside (0, 1), or e or w holds NaN or inf.
    """
    p, q = check_pq(p, q)
    e, w = np.broadcast_arrays(np.asarray(e, dtype=np.float64), np.asarray(w, dtype=np.float64))
    for name, v in (("e", e), ("w", w)):
        if not np.all(np.isfinite(v)):
            raise ValueError(f"{name} must be finite (no NaN or inf): a NaN has no basin")
    E = energy(e, w)
    above = np.where(np.isnan(E), False, E > SEPARATRIX_ENERGY)
    if p + q > 1:
        return ((w < 0) & above) | (w < W_SADDLE)
    if p + q < 1:
        return ~((w < W_SADDLE) & ~above)
    return np.ones(e.shape, dtype=bool)
