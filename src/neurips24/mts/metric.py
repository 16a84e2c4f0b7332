"""Finite metric spaces for metrical task systems, and the transport distance W1 between distributions on them.

A metrical task system (MTS) lives on n points with a distance matrix ``d`` (paper Sec. 2). The chapter's
metrics are all tree metrics, on which W1 has a closed form: the sum over the tree's edges of the edge length
times the mass that must cross the edge, W1(p, q) = Σ_e ℓ_e |S_e (p − q)| with S_e the indicator of the points on
one side of e. Four families: the uniform metric (a star with every point at 1/2 from a centre), a weighted
star, points on a line, and a random tree (a random recursive tree with random edge lengths, points at its
vertices). For a distance matrix given by hand, SciPy's HiGHS linear programme computes W1 exactly.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

KINDS = ("uniform", "star", "line", "tree")


@dataclass(frozen=True)
class Metric:
    """An n-point metric space.

    Attributes
    ----------
    d : (n, n) float64 array, d[i, j] the distance between points i and j (symmetric, zero diagonal,
        positive off the diagonal, triangle inequality).
    kind : 'uniform', 'star', 'line', 'tree', or 'general' for a matrix given by hand.
    side : (m, n) float64 0/1 array or None; for a tree metric, row e marks the points on the far side of
        edge e (for a star, the edge from the centre to each point; for a line, the points left of each gap).
    length : (m,) float64 or None, the edge lengths ℓ_e.
    """

    d: np.ndarray
    kind: str = "general"
    side: np.ndarray | None = None
    length: np.ndarray | None = None

    @property
    def n(self) -> int:
        return self.d.shape[0]

    @property
    def diameter(self) -> float:
        return float(self.d.max())

    @property
    def name(self) -> str:
        return f"{self.kind} (n = {self.n})"

    @property
    def is_star(self) -> bool:
        return self.kind in ("uniform", "star")


def check_metric(d) -> np.ndarray:
    """Validate a distance matrix and return it as a float64 array.

    Parameters
    ----------
    d : (n, n) array-like of real numbers, n >= 2.

    Returns
    -------
    (n, n) float64 array.

    Raises
    ------
    TypeError if ``d`` is not numeric. ValueError if it is not a square matrix with n >= 2, has NaN/inf,
    negative entries, a non-zero diagonal, a zero distance between distinct points, is not symmetric, or
    violates the triangle inequality d[i, j] <= d[i, m] + d[m, j] (relative tolerance 1e-9).
    """
    arr = np.asarray(d)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"d must be a numeric matrix, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or arr.shape[0] < 2:
        raise ValueError(f"d must be a square (n, n) matrix with n >= 2, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("d must be finite (no NaN or inf)")
    if np.any(arr < 0):
        raise ValueError("d must be non-negative: a distance is >= 0")
    if np.any(np.diag(arr) != 0):
        raise ValueError("d must have a zero diagonal: d[i, i] = 0")
    off = ~np.eye(arr.shape[0], dtype=bool)
    if np.any(arr[off] <= 0):
        raise ValueError("d must be positive between distinct points (d[i, j] > 0 for i != j)")
    scale = arr.max()
    if not np.allclose(arr, arr.T, rtol=0, atol=1e-12 * scale):
        raise ValueError("d must be symmetric: d[i, j] = d[j, i]")
    # triangle inequality: d[i, j] <= min_m d[i, m] + d[m, j]
    through = np.min(arr[:, :, None] + arr[None, :, :], axis=1)
    if np.any(arr > through + 1e-9 * scale):
        i, j = np.argwhere(arr > through + 1e-9 * scale)[0]
        raise ValueError(f"d violates the triangle inequality: d[{i}, {j}] = {arr[i, j]:.6g} exceeds the "
                         f"shortest detour {through[i, j]:.6g}")
    return arr


def _check_n(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"n must be an integer >= 2, got {n!r}")
    return int(n)


def uniform_metric(n: int) -> Metric:
    """The uniform metric: d(i, j) = 1 for i != j (a star with every point at 1/2 from the centre).

    Raises
    ------
    ValueError if n is not an integer >= 2.
    """
    n = _check_n(n)
    return Metric(d=1.0 - np.eye(n), kind="uniform", side=np.eye(n), length=np.full(n, 0.5))


def star_metric(leaf) -> Metric:
    """A weighted star: the points are leaves at distances ``leaf[i]`` from a centre, d(i, j) = leaf[i] + leaf[j].

    Raises
    ------
    ValueError if ``leaf`` is not a 1-d array of n >= 2 positive finite numbers.
    """
    w = np.asarray(leaf, dtype=np.float64)
    if w.ndim != 1 or w.size < 2 or not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise ValueError("leaf must be a 1-d array of n >= 2 positive finite distances")
    d = w[:, None] + w[None, :]
    np.fill_diagonal(d, 0.0)
    return Metric(d=d, kind="star", side=np.eye(w.size), length=w)


def line_metric(position) -> Metric:
    """Points on a line at strictly increasing coordinates: d(i, j) = |x_i − x_j|.

    Raises
    ------
    ValueError if ``position`` is not a 1-d array of n >= 2 finite, strictly increasing numbers.
    """
    x = np.asarray(position, dtype=np.float64)
    if x.ndim != 1 or x.size < 2 or not np.all(np.isfinite(x)) or np.any(np.diff(x) <= 0):
        raise ValueError("position must be a 1-d array of n >= 2 finite, strictly increasing coordinates")
    n = x.size
    side = np.tril(np.ones((n - 1, n)))                  # gap e separates points 0..e from e+1..n-1
    return Metric(d=np.abs(x[:, None] - x[None, :]), kind="line", side=side, length=np.diff(x))


def tree_metric(parent, length) -> Metric:
    """The shortest-path metric of a tree whose vertices are the points: point i > 0 hangs from
    ``parent[i - 1]`` < i by an edge of length ``length[i - 1]``.

    Raises
    ------
    ValueError if ``parent`` and ``length`` are not 1-d of equal size n − 1 >= 1, a parent is not a smaller
    index, or a length is not positive and finite.
    """
    par = np.asarray(parent)
    ell = np.asarray(length, dtype=np.float64)
    if par.ndim != 1 or par.size < 1 or ell.shape != par.shape or not np.issubdtype(par.dtype, np.integer):
        raise ValueError("parent (integers) and length must be 1-d arrays of the same size n - 1 >= 1")
    if np.any(par < 0) or np.any(par >= np.arange(1, par.size + 1)):
        raise ValueError("parent[i - 1] must be an earlier point, in [0, i - 1]")
    if not np.all(np.isfinite(ell)) or np.any(ell <= 0):
        raise ValueError("length must hold positive finite edge lengths")
    n = par.size + 1
    side = np.zeros((n - 1, n))                          # edge i-1 (i -> parent) separates the subtree of i
    depth = np.zeros(n)
    for i in range(1, n):
        depth[i] = depth[par[i - 1]] + ell[i - 1]
    for i in range(n - 1, 0, -1):
        side[i - 1, i] = 1.0
        if par[i - 1] > 0:
            side[par[i - 1] - 1] += side[i - 1]
    # d(i, j) = Σ_e ℓ_e |side_e(i) − side_e(j)|: the edges on the path between i and j
    d = np.einsum("e,eij->ij", ell, np.abs(side[:, :, None] - side[:, None, :]))
    return Metric(d=d, kind="tree", side=side, length=ell)


def make_metric(kind: str, n: int, seed: int = 0) -> Metric:
    """One metric of the chapter's experiments.

    - 'uniform': d = 1 off the diagonal;
    - 'star': leaves at distances drawn uniformly in [0.1, 1] (seeded);
    - 'line': n points whose n − 1 gaps are a Dirichlet(1) split of [0, 1], each at least 10⁻³ (seeded);
    - 'tree': a random recursive tree (point i hangs from a uniformly drawn earlier point) with edge lengths
      uniform in [0.1, 1] (seeded).

    Raises
    ------
    ValueError for an unknown kind, n < 2 or a negative seed.
    """
    n = _check_n(n)
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    rng = np.random.default_rng([int(seed), n, KINDS.index(kind)])
    if kind == "uniform":
        return uniform_metric(n)
    if kind == "star":
        return star_metric(rng.uniform(0.1, 1.0, n))
    if kind == "line":
        gaps = rng.dirichlet(np.ones(n - 1)) * (1 - 1e-3 * (n - 1)) + 1e-3
        return line_metric(np.concatenate([[0.0], np.cumsum(gaps)]))
    parent = np.array([rng.integers(i) for i in range(1, n)], dtype=np.int64)
    return tree_metric(parent, rng.uniform(0.1, 1.0, n - 1))


def as_metric(metric) -> Metric:
    """``metric`` itself, or a 'general' :class:`Metric` built from a distance matrix (validated)."""
    if isinstance(metric, Metric):
        return metric
    return Metric(d=check_metric(metric), kind="general")


def dominating_star(metric: Metric) -> np.ndarray:
    """Leaf distances of a star that dominates the metric: w_i = max_j d(i, j) / 2, so w_i + w_j >= d(i, j).

    A star's own leaves for 'uniform' and 'star' (no distortion). Mirror descent on this star is the chapter's
    fractional algorithm on the other metrics: its moves cost at most what the star says they cost.
    """
    if metric.is_star:
        return metric.length
    return metric.d.max(axis=1) / 2


def wasserstein1(p, q, metric: Metric) -> np.ndarray:
    """Earth mover's distance W1(p, q) = min over couplings π of Σ_ij π_ij d(i, j) (the fractional movement cost).

    On a tree metric, W1(p, q) = Σ_e ℓ_e |Σ_i side_e(i) (p_i − q_i)| (each edge is crossed by exactly the mass
    imbalance of its far side); for a 'general' metric SciPy's ``linprog`` (HiGHS) solves the transport LP.

    Parameters
    ----------
    p, q : (..., n) arrays of probability vectors (non-negative, summing to 1 up to 1e-9).
    metric : :class:`Metric` on n points.

    Returns
    -------
    (...) float64 array of distances, in the metric's units.

    Raises
    ------
    ValueError if the shapes differ or do not end in n, or if p or q is not a probability vector.
    """
    p = np.asarray(p, dtype=np.float64)
    q = np.asarray(q, dtype=np.float64)
    if p.shape != q.shape or p.shape[-1] != metric.n:
        raise ValueError(f"p and q must have the same shape (..., {metric.n}), got {p.shape} and {q.shape}")
    for name, v in (("p", p), ("q", q)):
        if not np.isfinite(v).all() or v.min() < -1e-12 or np.abs(v.sum(-1) - 1).max() > 1e-9:
            raise ValueError(f"{name} must hold probability vectors (finite, >= 0, summing to 1)")
    if metric.side is not None:
        return np.abs((p - q) @ metric.side.T) @ metric.length
    flat_p, flat_q = p.reshape(-1, metric.n), q.reshape(-1, metric.n)
    out = np.array([transport_lp(a, b, metric.d) for a, b in zip(flat_p, flat_q, strict=True)])
    return out.reshape(p.shape[:-1])


def transport_lp(a, b, d) -> float:
    """W1 between two distributions by SciPy's ``linprog`` (HiGHS) on the transport polytope.

    Raises
    ------
    ValueError if a, b are not probability vectors of the size of the square matrix d.
    """
    from scipy.optimize import linprog

    d = np.asarray(d, dtype=np.float64)
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    n = d.shape[0]
    if d.shape != (n, n) or a.shape != (n,) or b.shape != (n,):
        raise ValueError(f"a and b must have the size n = {n} of the square matrix d")
    if np.any(a < -1e-12) or np.any(b < -1e-12) or abs(a.sum() - 1) > 1e-9 or abs(b.sum() - 1) > 1e-9:
        raise ValueError("a and b must be probability vectors")
    a = np.clip(a, 0, None) / np.clip(a, 0, None).sum()
    b = np.clip(b, 0, None) / np.clip(b, 0, None).sum()
    rows = np.kron(np.eye(n), np.ones(n))          # Σ_j π_ij = a_i
    cols = np.kron(np.ones(n), np.eye(n))          # Σ_i π_ij = b_j
    res = linprog(d.ravel(), A_eq=np.vstack([rows, cols])[:-1], b_eq=np.concatenate([a, b])[:-1],
                  bounds=(0, None), method="highs")
    if not res.success:   # pragma: no cover - the transport polytope is never empty for a, b on the simplex
        raise RuntimeError(f"linprog failed: {res.message}")
    return float(res.fun)
