"""Fractional (fully randomized) MTS algorithms: a state p_t on the simplex Δ_n, the distribution of the point.

- :func:`mirror_descent_step`: one proximal mirror-descent step on a weighted star with the shifted entropy
  Σ_i w_i (p_i + δ) log(p_i + δ) as regulariser — the regulariser of Bubeck, Cohen, Lee and Lee's mirror-descent
  algorithm for MTS on trees, here in discrete time (one implicit step per cost vector). The uniform metric is
  the star with w_i = 1/2.
  On a metric that is not a star, the step runs on a star that dominates it (``metric.dominating_star``): the
  book's choice, which keeps the algorithm valid (its moves cost at most what the star says) but loses the
  distortion of that embedding.
- :func:`work_function_update`: the work function w_t, the cheapest way to serve c_1..c_t and end at each point
  (eq. (mts-wf)); min_j w_T(j) is the offline optimum OPT.
"""
from __future__ import annotations

import numpy as np


def _check_costs(c, n: int, name: str = "c") -> np.ndarray:
    arr = np.asarray(c, dtype=np.float64)
    if arr.shape[-1] != n:
        raise ValueError(f"{name} must end in dimension n = {n}, got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if arr.size and arr.min() < 0:
        raise ValueError(f"{name} must be non-negative: MTS costs are >= 0")
    return arr


def _check_simplex(p, name: str = "q") -> np.ndarray:
    arr = np.asarray(p, dtype=np.float64)
    if arr.ndim < 1 or arr.shape[-1] < 2:
        raise ValueError(f"{name} must have shape (..., n) with n >= 2, got {arr.shape}")
    if not np.isfinite(arr).all() or arr.min() < 0 or np.abs(arr.sum(-1) - 1).max() > 1e-9:
        raise ValueError(f"{name} must hold probability vectors (finite, >= 0, summing to 1)")
    return arr


def mirror_descent_step(q, c, leaf, eta: float = 1.0, delta: float | None = None,
                        tol: float = 1e-13, max_iter: int = 100) -> np.ndarray:
    """One mirror-descent step of the fractional algorithm on a weighted star, eq. (mts-md).

        p = argmin_{p ∈ Δ_n}  <c, p> + (1/η) Σ_i w_i [ (p_i + δ) log((p_i + δ)/(q_i + δ)) − p_i + q_i ]

    The optimality conditions give p_i = max(0, (q_i + δ) exp(−η (c_i + λ) / w_i) − δ); the multiplier λ of
    Σ p = 1 is found by Newton's method on the convex decreasing function λ ↦ Σ_i p_i(λ) − 1, started on the
    left of the root, so that the iterates increase monotonically to it. The start is the largest λ at which
    one coordinate alone reaches p_i = 1, λ₀ = max_i [ −c_i − (w_i/η) log((1 + δ)/(q_i + δ)) ]: there every
    exponent log(q_i + δ) − η (c_i + λ₀)/w_i is at most log(1 + δ), so no term overflows however large
    η c_i / w_i is (the exponents are formed in the log domain; small terms underflow harmlessly to p_i = 0).

    Parameters
    ----------
    q : (..., n) float, the previous state (probability vectors).
    c : (..., n) float, the cost vectors (finite, >= 0).
    leaf : (n,) float > 0, the star's leaf distances w_i (1/2 for the uniform metric).
    eta : float > 0, the step size η.
    delta : float > 0, the entropy shift δ (default 1/n).
    tol, max_iter : Newton's stopping rule on |Σ p − 1|.

    Returns
    -------
    (..., n) float64, the new states (rows sum to 1).

    Raises
    ------
    ValueError on shapes that disagree, NaN/inf or negative costs, q off the simplex, or eta, delta or a leaf
    distance that is not positive; FloatingPointError if the new state is not finite (it never is for valid
    input; the check guards the caller against a NaN read as a state).
    """
    q = _check_simplex(q)
    n = q.shape[-1]
    c = _check_costs(c, n)
    w = np.asarray(leaf, dtype=np.float64)
    if w.shape != (n,) or not np.isfinite(w).all() or w.min() <= 0:
        raise ValueError(f"leaf must be {n} positive finite distances, got {leaf!r}")
    delta = 1.0 / n if delta is None else delta
    for name, v in (("eta", eta), ("delta", delta)):
        if not np.isfinite(v) or v <= 0:
            raise ValueError(f"{name} must be a positive finite number, got {v!r}")
    q, c = np.broadcast_arrays(q, c)
    rate = eta / w                                                   # η / w_i
    logq = np.log(q + delta)
    lam = (-c - np.log1p(delta) / rate + logq / rate).max(axis=-1, keepdims=True)   # λ₀: Σ p(λ₀) >= 1
    for _ in range(max_iter):
        u = np.exp(logq - rate * (c + lam))                          # (q_i + δ) e^{−η(c_i + λ)/w_i} <= 1 + δ
        active = u > delta
        f = np.where(active, u - delta, 0.0).sum(-1, keepdims=True) - 1.0
        if np.abs(f).max() < tol:
            break
        slope = -np.where(active, rate * u, 0.0).sum(-1, keepdims=True)
        lam = lam - f / slope                                        # Newton step
    p = np.maximum(np.exp(logq - rate * (c + lam)) - delta, 0.0)
    p = p / p.sum(-1, keepdims=True)
    if not np.isfinite(p).all():
        raise FloatingPointError(f"mirror_descent_step produced a non-finite state (eta = {eta!r}, "
                                 f"max cost = {float(c.max()):.3g}, smallest leaf = {float(w.min()):.3g})")
    return p


def work_function_update(w, c, d) -> np.ndarray:
    """One step of the work function, eq. (mts-wf): w_t(j) = c_t(j) + min_i [ w_{t−1}(i) + d(i, j) ].

    Parameters
    ----------
    w : (..., n) float, the previous work function (w_0 = d(x_0, ·)).
    c : (..., n) float, the cost vector of step t (finite, >= 0).
    d : a :class:`~neurips24.mts.metric.Metric` (already checked) or an (n, n) distance matrix, which is checked
        to be a metric (``metric.check_metric``: finite, zero diagonal, positive off it, symmetric, triangle
        inequality).

    Returns
    -------
    (..., n) float64, w_t. min_j w_T(j) is the offline optimum of the whole sequence.

    Raises
    ------
    ValueError on NaN/inf or negative costs, shapes that disagree, NaN/inf in w, or a ``d`` that is not a metric.
    """
    from .metric import Metric, check_metric

    d = d.d if isinstance(d, Metric) else check_metric(d)
    n = d.shape[0]
    c = _check_costs(c, n)
    w = np.asarray(w, dtype=np.float64)
    if w.shape[-1] != n:
        raise ValueError(f"w must end in dimension n = {n}, got shape {w.shape}")
    if not np.isfinite(w).all():
        raise ValueError("w must be finite (no NaN or inf)")
    return c + np.min(w[..., :, None] + d, axis=-2)
