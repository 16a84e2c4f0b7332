"""The fractional algorithm's step for B instances at once: the CUDA kernel ``mts_step.cu`` and its NumPy reference.

A step of the fractional MTS algorithm on a weighted star (the uniform metric is the star with leaves 1/2) is
the mirror-descent update p = MD(q, c), eq. (mts-md), and its cost W1(q, p) + <c, p>, eq. (mts-frac). Instances
are independent, so a batch of B adversarial instances (or B collectives' fractional states) is one launch,
one thread per instance. The reference is the chapter's own code path: :func:`~neurips24.mts.fractional.
mirror_descent_step` and :func:`~neurips24.mts.metric.wasserstein1` on the star, both NumPy (book's own).
"""
from __future__ import annotations

import time

import numpy as np

from ..backend import cupy_or_none, to_numpy
from .fractional import _check_costs, _check_simplex, mirror_descent_step
from .metric import star_metric, wasserstein1


def _check_leaf(leaf, n: int) -> np.ndarray:
    w = np.asarray(leaf, dtype=np.float64)
    if w.shape != (n,) or not np.isfinite(w).all() or w.min() <= 0:
        raise ValueError(f"leaf must be {n} positive finite distances, got shape {w.shape}")
    return w


def _check_scalars(eta, delta, n: int) -> tuple[float, float]:
    delta = 1.0 / n if delta is None else delta
    for name, v in (("eta", eta), ("delta", delta)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.floating)) or not np.isfinite(v) or v <= 0:
            raise ValueError(f"{name} must be a positive finite number, got {v!r}")
    return float(eta), float(delta)


def star_step_reference(q, c, leaf, eta: float = 1.0, delta: float | None = None):
    """One fractional step on a star for B instances, on NumPy: the reference of the CUDA kernel.

    Parameters
    ----------
    q : (B, n) float, the previous states (probability vectors).
    c : (B, n) float, the cost vectors (finite, >= 0).
    leaf : (n,) float > 0, the star's leaf distances w_i (1/2 for the uniform metric).
    eta : float > 0, the step size η.   delta : float > 0, the entropy shift δ (default 1/n).

    Returns
    -------
    p : (B, n) float64, the new states, eq. (mts-md).
    cost : (B,) float64, the step's fractional cost Σ_i w_i |p_i − q_i| + <c, p>, eq. (mts-frac) — W1 on the star.

    Raises
    ------
    ValueError on shapes that are not (B, n) with n >= 2, NaN/inf or negative costs, q off the simplex, or
    eta, delta or a leaf distance that is not positive.
    """
    q = _check_simplex(q)
    if q.ndim != 2:
        raise ValueError(f"q must have shape (B, n), got {q.shape}")
    n = q.shape[1]
    c = _check_costs(c, n)
    if c.shape != q.shape:
        raise ValueError(f"c must have the shape of q {q.shape}, got {c.shape}")
    w = _check_leaf(leaf, n)
    eta, delta = _check_scalars(eta, delta, n)
    p = mirror_descent_step(q, c, w, eta, delta)
    return p, wasserstein1(q, p, star_metric(w)) + (c * p).sum(1)


def star_step_kernel(q, c, leaf, eta: float = 1.0, delta: float | None = None, tol: float = 1e-13,
                     max_iter: int = 100, block: int = 128):
    """The same step as :func:`star_step_reference`, as one launch of the CUDA kernel ``mts_step`` (CuPy arrays).

    Parameters and returns as :func:`star_step_reference` (CuPy arrays in and out); ``tol`` and ``max_iter``
    are Newton's stopping rule, per instance.

    Raises
    ------
    ValueError on shapes, dtypes or values as :func:`star_step_reference`, or non-contiguous arrays; ImportError
    without CuPy.
    """
    if not (np.isfinite(tol) and tol > 0):
        raise ValueError(f"tol must be a positive finite number, got {tol!r}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ValueError(f"max_iter must be an integer >= 1, got {max_iter!r}")
    import cupy as cp

    from ..cuda import raw_kernel

    if q.ndim != 2 or q.shape[1] < 2 or c.shape != q.shape:
        raise ValueError(f"q and c must both have shape (B, n) with n >= 2, got {q.shape} and {c.shape}")
    for name, a in (("q", q), ("c", c)):
        if not isinstance(a, cp.ndarray) or a.dtype != cp.float64 or not a.flags.c_contiguous:
            raise ValueError(f"{name} must be a C-contiguous float64 CuPy array")
    B, n = q.shape
    if not bool(cp.isfinite(c).all()) or bool((c < 0).any()):
        raise ValueError("c must be finite and non-negative")
    if not bool(cp.isfinite(q).all()) or bool((q < 0).any()) or float(cp.abs(q.sum(1) - 1).max()) > 1e-9:
        raise ValueError("q must hold probability vectors (finite, >= 0, summing to 1)")
    w = cp.asarray(_check_leaf(to_numpy(leaf), n))
    eta, delta = _check_scalars(eta, delta, n)
    p = cp.empty_like(q)
    cost = cp.empty(B, dtype=cp.float64)
    kernel = raw_kernel("neurips24.mts", "mts_step.cu", "mts_step")
    grid = min((B + block - 1) // block, 65535)
    kernel((grid,), (block,), (q, c, w, p, cost, np.int64(B), np.int64(n), np.float64(eta), np.float64(delta),
                               np.float64(tol), np.int32(max_iter)))
    return p, cost


def star_step(q, c, leaf, eta: float = 1.0, delta: float | None = None):
    """:func:`star_step_kernel` on CuPy arrays, :func:`star_step_reference` on anything else."""
    cp = cupy_or_none()
    if cp is not None and isinstance(q, cp.ndarray):
        return star_step_kernel(q, c, leaf, eta, delta)
    return star_step_reference(q, c, leaf, eta, delta)


def random_costs(rng: np.random.Generator, B: int, n: int, eps: float) -> np.ndarray:
    """(B, n) float64 cost vectors of the random adversary: ``eps`` on one uniformly drawn point per instance."""
    c = np.zeros((B, n))
    c[np.arange(B), rng.integers(0, n, size=B)] = eps
    return c


def _run(xp, stepper, B, n, n_steps, eps, seed, sync=lambda: None):
    """Advance B instances ``n_steps`` steps from the uniform state; time only the steps."""
    leaf = np.full(n, 0.5)
    rng = np.random.default_rng(seed)
    q = xp.full((B, n), 1.0 / n)
    total, costs = 0.0, xp.zeros(B)
    for _ in range(n_steps):
        c = xp.asarray(random_costs(rng, B, n, eps))
        sync()
        start = time.perf_counter()
        q, cost = stepper(q, c, leaf)
        sync()
        total += time.perf_counter() - start
        costs += cost
    return total / n_steps, q, costs


def bench_mts_step(B: int = 10_000, n: int = 16, n_steps: int = 5, eps: float = 0.1,
                   seed: int = 0) -> list[tuple[str, float, float]]:
    """Time one fractional step for B instances on the uniform metric: NumPy (CPU) and the CUDA kernel (GPU).

    Each backend advances its own B instances against the random adversary; cost vectors are drawn outside the
    timed part. Rows are (name, seconds per step, bytes per step: q and c read, p written, cost written), like
    ``benchmarks/kernels.py``'s other rows.

    Raises
    ------
    ValueError for B < 1, n < 2, n_steps < 1 or eps not positive.
    """
    for name, v, low in (("B", B, 1), ("n", n, 2), ("n_steps", n_steps, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {v!r}")
    if not (np.isfinite(eps) and eps > 0):
        raise ValueError(f"eps must be a positive finite number, got {eps!r}")
    nbytes = 8.0 * B * (3 * n + 1)
    rows = [("numpy reference (CPU)", _run(np, star_step_reference, B, n, n_steps, eps, seed)[0], nbytes)]
    cp = cupy_or_none()
    if cp is not None:
        sync = cp.cuda.Device().synchronize
        _run(cp, star_step_kernel, B, n, 1, eps, seed, sync)                 # compile + warm up
        rows.append(("cupy kernel (GPU)", _run(cp, star_step_kernel, B, n, n_steps, eps, seed, sync)[0], nbytes))
    return rows


def kernel_parity(B: int = 4096, n: int = 16, n_steps: int = 50, eps: float = 0.1, seed: int = 0) -> dict | None:
    """Advance B instances ``n_steps`` steps through the kernel and the NumPy reference on the same costs.

    Returns
    -------
    ``None`` without a GPU; otherwise a dict with 'max_p_diff' (max |p_kernel − p_numpy| over the last states),
    'max_cost_diff' (max |difference| of the cumulative fractional costs), 'numpy_ms' and 'gpu_ms'
    (milliseconds per step at B instances).
    """
    cp = cupy_or_none()
    if cp is None:
        return None
    leaf = np.full(n, 0.5)
    rng = np.random.default_rng(seed)
    q, qd = np.full((B, n), 1.0 / n), cp.full((B, n), 1.0 / n)
    cost, cost_d = np.zeros(B), cp.zeros(B)
    for _ in range(n_steps):
        c = random_costs(rng, B, n, eps)
        q, step_cost = star_step_reference(q, c, leaf)
        qd, step_cost_d = star_step_kernel(qd, cp.asarray(c), leaf)
        cost += step_cost
        cost_d += step_cost_d
    rows = dict((name, sec) for name, sec, _ in bench_mts_step(B=B, n=n, n_steps=5, eps=eps, seed=seed))
    return {"max_p_diff": float(np.abs(to_numpy(qd) - q).max()),
            "max_cost_diff": float(np.abs(to_numpy(cost_d) - cost).max()),
            "numpy_ms": 1e3 * rows["numpy reference (CPU)"], "gpu_ms": 1e3 * rows["cupy kernel (GPU)"]}
